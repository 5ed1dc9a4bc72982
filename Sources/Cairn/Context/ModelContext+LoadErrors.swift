import Foundation

// The failed-load policy (Docs/Reliability.md, "Failed loads"): a property getter cannot throw,
// so a load that fails inside one never traps. The getter returns the property's default value
// (or nil, empty, zero), the context records a typed error naming the model, the property and
// the cause, and the next save() or fetch throws it. Core Data raises an exception when a fault
// cannot be fulfilled; this keeps the report and drops the crash.

extension ModelContext {
    /// The loads that failed since the last time they were reported: each a ``FetchError`` with
    /// code ``FetchError/Code/loadFailed`` naming the model (``FetchError/model``), the property
    /// (``FetchError/property``) and the cause (``FetchError/cause``, such as a ``StorageError``
    /// of code `damagedRecord`).
    ///
    /// A model's property is loaded when it is first read. Reading happens in a getter, which
    /// cannot throw, so when the stored record or edges cannot be read (they are damaged) or the
    /// model's identifier names no model of this store (``model(for:)`` with an identifier of
    /// another store, or of a model that was never saved), the getter returns the property's
    /// default value — or `nil`, an empty string or collection, zero, `false` — and the error is
    /// kept here. The next call that reads or writes the store — ``save()``, ``fetch(_:)``,
    /// ``fetch(_:batchSize:)``, ``fetchCount(_:)``, ``fetchIdentifiers(_:)``,
    /// ``enumerate(_:batchSize:allowEscapingMutations:block:)``, ``delete(model:where:includeSubclasses:)``
    /// or ``upsert(_:chunkSize:)`` — throws the first of them and clears the list, so a save never
    /// writes placeholder values back over a damaged row without you having been told. Reading
    /// this property does not clear it.
    ///
    /// Damage the context finds while catching up with other contexts' commits (an unreadable
    /// `history.floor` in the store's description) is reported here too, once, as an error with
    /// no ``FetchError/model``: the context then refreshed every model it holds instead, which is
    /// correct, only slower.
    ///
    /// ```swift
    /// let title = book.title              // "" if the record is damaged
    /// for error in context.pendingLoadErrors {
    ///     print(error.model!, error.property!, error.cause!)   // Book/7 title StorageError.damagedRecord: …
    /// }
    /// do {
    ///     try context.save()
    /// } catch let error as FetchError where error.code == .loadFailed {
    ///     // Restore the store from a backup, or fix or delete the model, then save again.
    /// }
    /// ```
    public var pendingLoadErrors: [FetchError] {
        checkOwner()
        return loadErrors
    }

    /// Records a load that failed in a getter; the getter then returns a placeholder.
    func recordLoadError(_ id: PersistentIdentifier, property: String, cause: any Error & Sendable, reason: String) {
        let error = FetchError(
            code: .loadFailed,
            message: "\(id).\(property) could not be loaded: \(reason). It read as its default value (or nil or "
                + "empty) instead. Restore the store from a backup, or delete the model and save it again.",
            model: id, underlying: "\(cause)", property: property, cause: cause)
        cairnLog.warning("\(error.message)")
        loadErrors.append(error)
    }

    /// Where every public call that reads the store through this context begins (the fetches,
    /// counting, identifiers, enumeration, upserts): it checks the executor, takes other
    /// contexts' commits into account, then throws what failed to load since the last report.
    /// One place, so every such call follows the failed-load policy alike.
    func beginStoreAccess(_ operation: StaticString = #function) throws {
        checkOwner(operation)
        refreshIfNeeded()
        try throwPendingLoadErrors()
    }

    /// Records damage found outside any model's property (the history floor), once per context:
    /// the fallback that follows it (refreshing everything) is correct, so reporting it at every
    /// later refresh would only lock the app out of intact data.
    func recordStoreDamage(_ cause: StorageError, what: String) {
        guard !reportedStoreDamage.contains(what) else { return }
        reportedStoreDamage.insert(what)
        loadErrors.append(
            FetchError(
                code: .loadFailed,
                message: "\(what) could not be read: \(cause.message) Every model the context holds was refreshed "
                    + "from the store instead, so no stale value is used.",
                model: nil, underlying: "\(cause)", property: nil, cause: cause))
    }

    /// Throws the first pending load error, naming how many more there were, and clears them all.
    func throwPendingLoadErrors() throws {
        guard var first = loadErrors.first else { return }
        let others = loadErrors.dropFirst()
        loadErrors.removeAll()
        if !others.isEmpty {
            let names = others.prefix(5).map { "\($0.model.map { "\($0)" } ?? "?").\($0.property ?? "?")" }
            first.message +=
                " \(others.count) more loads failed too (\(names.joined(separator: ", "))"
                + (others.count > 5 ? ", …" : "") + ")."
        }
        throw first
    }

    /// The name of the persisted property at `index`.
    func propertyName(_ index: Int, tables: Store.EntityTables) -> String {
        tables.relationshipsByIndex[index]?.name
            ?? tables.entity.attributes.first { $0.index == index }?.name ?? "property #\(index)"
    }
}

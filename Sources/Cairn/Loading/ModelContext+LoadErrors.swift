import Foundation

extension ModelContext {
    /// The loads that failed since the last time they were reported: each a ``FetchError`` with
    /// code ``FetchError/Code/loadFailed`` naming the model (``FetchError/model``), the property
    /// (``FetchError/property``) and the cause (``FetchError/cause``, such as a `StorageError`
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
        return rows.failures.errors
    }

    /// Where every public call that reads the store through this context begins (the fetches,
    /// counting, identifiers, enumeration, upserts): it checks the executor, takes other
    /// contexts' commits into account, then throws what failed to load since the last report.
    /// One place, so every such call follows the failed-load policy alike.
    func beginStoreAccess(_ operation: StaticString = #function) throws {
        checkOwner(operation)
        refreshIfNeeded()
        try rows.failures.throwPending()
    }
}

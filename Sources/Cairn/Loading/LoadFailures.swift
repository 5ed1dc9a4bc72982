import Foundation

/// The failed-load policy (Docs/Reliability.md, "Failed loads"): a property getter cannot throw,
/// so a load that fails inside one never traps. The getter gets a placeholder — the property's
/// default value (or nil, empty, zero) — a typed error naming the model, the property and the
/// cause is recorded here, and the context's next save or fetch throws it. Core Data raises an
/// exception when a fault cannot be fulfilled; this keeps the report and drops the crash.
///
/// ```swift
/// var failures = LoadFailures()
/// failures.record(id, property: "title", cause: error, reason: "\(error)")
/// failures.errors.count   // 1
/// try failures.throwPending()   // throws it, and clears the list
/// ```
struct LoadFailures {
    /// The loads that failed and are not reported yet (see ``ModelContext/pendingLoadErrors``).
    private(set) var errors: [FetchError] = []
    /// What store damage outside any model has been reported (see `recordStoreDamage`).
    private var reportedStoreDamage: Set<String> = []

    /// Records a load that failed in a getter; the getter then returns a placeholder.
    mutating func record(_ id: PersistentIdentifier, property: String, cause: any Error & Sendable, reason: String) {
        let error = FetchError(
            code: .loadFailed,
            message: "\(id).\(property) could not be loaded: \(reason). It read as its default value (or nil or "
                + "empty) instead. Restore the store from a backup, or delete the model and save it again.",
            model: id, underlying: ErrorText.describing(cause), property: property, cause: cause)
        cairnLog.warning("\(error.message)")
        errors.append(error)
    }

    /// Records that property `index` of `model` could not be loaded, then gives the model the
    /// property's placeholder, so the getter that asked can return.
    mutating func fail(
        _ model: any PersistentModel, _ index: Int, tables: Store.EntityTables, cause: any Error & Sendable,
        reason: String
    ) {
        record(
            model.persistentModelID, property: Self.propertyName(index, tables: tables), cause: cause, reason: reason)
        Self.fillPlaceholder(model, index, tables: tables)
    }

    /// Records damage found outside any model's property (the history floor), once: the fallback
    /// that follows it (refreshing everything) is correct, so reporting it at every later refresh
    /// would only lock the app out of intact data.
    mutating func recordStoreDamage(_ cause: StorageError, what: String) {
        guard !reportedStoreDamage.contains(what) else { return }
        reportedStoreDamage.insert(what)
        errors.append(
            FetchError(
                code: .loadFailed,
                message: "\(what) could not be read: \(cause.message) Every model the context holds was refreshed "
                    + "from the store instead, so no stale value is used.",
                model: nil, underlying: ErrorText.describing(cause), property: nil, cause: cause))
    }

    /// Throws the first pending error, naming how many more there were, and clears them all.
    mutating func throwPending() throws {
        guard var first = errors.first else { return }
        let others = errors.dropFirst()
        errors.removeAll()
        if !others.isEmpty {
            let names = others.prefix(5).map { "\($0.model.map { "\($0)" } ?? "?").\($0.property ?? "?")" }
            first.message +=
                " \(others.count) more loads failed too (\(names.joined(separator: ", "))"
                + (others.count > 5 ? ", …" : "") + ")."
        }
        throw first
    }

    /// The model for an identifier whose entity is not in the container's schema: empty, already
    /// deleted, of no app class; the error is recorded at once (see ``ModelContext/model(for:)``).
    mutating func unknownEntityModel(_ id: PersistentIdentifier) -> any PersistentModel {
        let cause = StorageError(
            code: .notFound,
            message: "\(id) names entity '\(id.entityName)', which is not in this "
                + "container's schema. Pass identifiers of this container's models.")
        record(id, property: "*", cause: cause, reason: cause.message)
        var state = _ModelState()
        state.persistentIdentifier = id
        state.isDeleted = true
        return UnknownEntityModel(_$modelState: state)
    }

    /// The model for an identifier of the schema that names no saved model of this store (one of
    /// another store, or of a model never saved): not registered, so never tracked or saved; its
    /// getters reach the context's `fulfill`, which records the error and fills placeholders.
    static func untrackedModel(
        _ id: PersistentIdentifier, tables: Store.EntityTables, link: _ContextLink
    ) -> any PersistentModel {
        var state = _ModelState()
        state.persistentIdentifier = id
        let model = tables.modelType.init(_$modelState: state, _$constants: RowLoader.placeholderConstants(tables))
        model._$state.attach(to: link, reporting: tables.keys.attributeMask)
        return model
    }

    /// Loads the placeholder of property `index` of a model that cannot load it (its row is
    /// gone, damaged, or not of this store): an attribute's default or empty value, an empty
    /// relationship.
    static func fillPlaceholder(_ model: any PersistentModel, _ index: Int, tables: Store.EntityTables) {
        if let relationship = tables.layout.relationshipsByIndex[index] {
            relationship.access.load(model, [])
            return
        }
        guard let attribute = tables.entity.attributes.first(where: { $0.index == index }),
            let access = attribute.access,
            access.fillPlaceholder(model)
        else {
            preconditionFailure(
                "\(model.persistentModelID) was deleted by another context before its property #\(index) was read, and "
                    + "that property has no default value and its type no empty value. Give it a default value.")
        }
    }

    /// The name of the persisted property at `index`, for error messages.
    static func propertyName(_ index: Int, tables: Store.EntityTables) -> String {
        tables.layout.relationshipsByIndex[index]?.name
            ?? tables.entity.attributes.first { $0.index == index }?.name ?? "property #\(index)"
    }
}

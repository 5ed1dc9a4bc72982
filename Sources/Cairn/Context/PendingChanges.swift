import Foundation

/// The models a context has inserted, changed or deleted since its last save, each list in the
/// order its models first joined it. The lists hold their models strongly, so a model with unsaved
/// changes stays alive (and in the identity map) until it is saved or rolled back.
struct PendingChanges {
    /// Inserted models, not yet saved.
    private(set) var inserted = ModelList()
    /// Saved models with unsaved changes.
    private(set) var changed = ModelList()
    /// Changed models whose change touches an attribute a unique or index table keys: the only
    /// changed models an indexed fetch must consider besides what it reads.
    private(set) var keyChanged = ModelList()
    /// Models deleted but not yet saved (inserted ones included: their delete rules still apply).
    private(set) var deleted = ModelList()

    /// Whether anything is pending.
    var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    mutating func insert(_ model: any PersistentModel) { inserted.append(model) }

    mutating func markChanged(_ model: any PersistentModel) { changed.append(model) }

    mutating func markKeyChanged(_ model: any PersistentModel) { keyChanged.append(model) }

    /// Adds `model` to the deleted models; `false` when it already is one.
    @discardableResult
    mutating func delete(_ model: any PersistentModel) -> Bool { deleted.append(model) }

    /// Takes back the deletion of `model`; `false` when it was not deleted.
    @discardableResult
    mutating func undelete(_ model: any PersistentModel) -> Bool { deleted.remove(model) }

    /// Forgets everything: after a save, or a rollback.
    mutating func removeAll() {
        inserted = ModelList()
        changed = ModelList()
        keyChanged = ModelList()
        deleted = ModelList()
    }
}

/// Models in the order they were added, each once, with O(1) membership, append and removal.
struct ModelList: Sequence {
    private var models: [(any PersistentModel)?] = []
    private var positions: [ObjectIdentifier: Int] = [:]

    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    func contains(_ model: any PersistentModel) -> Bool { positions[ObjectIdentifier(model)] != nil }

    /// Adds `model` at the end; `false` when it is already in the list.
    @discardableResult
    mutating func append(_ model: any PersistentModel) -> Bool {
        let key = ObjectIdentifier(model)
        guard positions[key] == nil else { return false }
        positions[key] = models.count
        models.append(model)
        return true
    }

    /// Removes `model`; `false` when it is not in the list.
    @discardableResult
    mutating func remove(_ model: any PersistentModel) -> Bool {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(model)) else { return false }
        models[position] = nil
        // Compact once the holes outnumber the models, keeping removal amortised O(1).
        if models.count > 32 && positions.count < models.count / 2 {
            models = models.filter { $0 != nil }
            for (position, model) in models.enumerated() { positions[ObjectIdentifier(model!)] = position }
        }
        return true
    }

    var array: [any PersistentModel] { models.compactMap { $0 } }

    func makeIterator() -> some IteratorProtocol<any PersistentModel> { models.lazy.compactMap { $0 }.makeIterator() }
}

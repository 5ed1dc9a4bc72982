import Foundation

/// The models a context has inserted, changed or deleted since its last save, each list in the
/// order its models first joined it. The lists hold their models strongly, so a model with unsaved
/// changes stays alive (and in the identity map) until it is saved or rolled back.
struct PendingChanges {
    /// Inserted models, not yet saved.
    private(set) var inserted = ModelList(slot: 0)
    /// Saved models with unsaved changes.
    private(set) var changed = ModelList(slot: 1)
    /// Changed models whose change touches an attribute a unique or index table keys: the only
    /// changed models an indexed fetch must consider besides what it reads.
    private(set) var keyChanged = ModelList(slot: 2)
    /// Models deleted but not yet saved (inserted ones included: their delete rules still apply).
    private(set) var deleted = ModelList(slot: 3)

    /// Inserted models' positions in ``inserted`` by temporary number, for the positions below
    /// `indexedThrough`: filled in when a temporary identifier is looked up, not as models are
    /// inserted (an insert hashed into a map, and a save took each one out again, for a lookup
    /// that few apps make).
    private var temporaryIndex: [UInt64: Int] = [:]
    private var indexedThrough = 0

    /// Whether anything is pending.
    var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    /// The inserted model whose temporary identifier is `id`, if there is one.
    mutating func insertedModel(for id: PersistentIdentifier) -> (any PersistentModel)? {
        guard case .temporary(let number) = id.kind else { return nil }
        // The list only grows until it is emptied: the positions indexed so far stay right.
        while indexedThrough < inserted.endPosition {
            if case .temporary(let indexed)? = inserted.model(at: indexedThrough)?._$state.persistentIdentifier?
                .kind
            {
                temporaryIndex[indexed] = indexedThrough
            }
            indexedThrough += 1
        }
        guard let position = temporaryIndex[number], let model = inserted.model(at: position),
            model._$state.persistentIdentifier == id
        else { return nil }
        return model
    }

    mutating func insert(_ model: any PersistentModel) { inserted.append(model) }

    mutating func markChanged(_ model: any PersistentModel) { changed.append(model) }

    mutating func markKeyChanged(_ model: any PersistentModel) { keyChanged.append(model) }

    /// Adds `model` to the deleted models; `false` when it already is one.
    @discardableResult
    mutating func delete(_ model: any PersistentModel) -> Bool { deleted.append(model) }

    /// Takes back the deletion of `model`; `false` when it was not deleted.
    @discardableResult
    mutating func undelete(_ model: any PersistentModel) -> Bool { deleted.remove(model) }

    /// Forgets the changes and the deletion of `model`, which is gone from the store (a batch
    /// delete took it).
    mutating func forget(_ model: any PersistentModel) {
        changed.remove(model)
        keyChanged.remove(model)
        deleted.remove(model)
    }

    /// Forgets everything: after a save, or a rollback.
    mutating func removeAll() {
        inserted = ModelList(slot: 0)
        changed = ModelList(slot: 1)
        keyChanged = ModelList(slot: 2)
        deleted = ModelList(slot: 3)
        temporaryIndex = [:]
        indexedThrough = 0
    }
}

/// Models in the order they were added, each once, with O(1) membership, append and removal.
///
/// A model's position in the list is kept in the model's own state (one of four slots, one per
/// list of ``PendingChanges``), not in a dictionary: hashing every inserted or changed model into
/// one, and growing it, cost more than the rest of adding it. A position is trusted only when the
/// list holds that very model there, so one left behind by a list that was dropped or copied
/// means nothing.
struct ModelList: Sequence {
    /// Which of the state's four positions this list keeps (0 to 3).
    private let slot: Int
    /// The models in the order they were added, removed ones included until the list is
    /// compacted: non-optional, so ``array`` is this very array (shared, not copied) while
    /// nothing was removed, and a save's plan and the list hold one buffer, not two.
    private var models: [any PersistentModel] = []
    /// The positions in `models` of the removed models.
    private var holes: Set<Int> = []
    private(set) var count = 0

    init(slot: Int) {
        precondition((0..<4).contains(slot), "a model state keeps four list positions")
        self.slot = slot
    }

    var isEmpty: Bool { count == 0 }

    /// The position of `model` in `models`, if the list holds it.
    private func position(of model: any PersistentModel, state: _UnretainedModelState) -> Int? {
        let position = Int(state.listPositions[slot])
        guard position >= 0, position < models.count, models[position] === model,
            holes.isEmpty || !holes.contains(position)
        else { return nil }
        return position
    }

    func contains(_ model: any PersistentModel) -> Bool { position(of: model, state: model._$state) != nil }

    /// Adds `model` at the end; `false` when it is already in the list.
    @discardableResult
    mutating func append(_ model: any PersistentModel) -> Bool {
        let state = model._$state
        guard position(of: model, state: state) == nil else { return false }
        state.listPositions[slot] = Int32(truncatingIfNeeded: models.count)
        models.append(model)
        count += 1
        return true
    }

    /// Removes `model`; `false` when it is not in the list.
    @discardableResult
    mutating func remove(_ model: any PersistentModel) -> Bool {
        let state = model._$state
        guard let position = position(of: model, state: state) else { return false }
        holes.insert(position)
        state.listPositions[slot] = -1
        count -= 1
        // Compact once the holes outnumber the models, keeping removal amortised O(1).
        if models.count > 32 && count < models.count / 2 {
            models = array
            holes = []
            for (position, model) in models.enumerated() {
                model._$state.listPositions[slot] = Int32(truncatingIfNeeded: position)
            }
        }
        return true
    }

    /// The models, in order: O(1) while none was removed.
    var array: [any PersistentModel] {
        holes.isEmpty ? models : models.indices.compactMap { holes.contains($0) ? nil : models[$0] }
    }

    /// The position after the last model ever appended (removed ones leave holes until the list
    /// is compacted).
    var endPosition: Int { models.count }

    /// The model at `position`, or `nil` for a hole.
    func model(at position: Int) -> (any PersistentModel)? {
        holes.isEmpty || !holes.contains(position) ? models[position] : nil
    }

    func makeIterator() -> IndexingIterator<[any PersistentModel]> { array.makeIterator() }
}

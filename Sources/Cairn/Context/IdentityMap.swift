import Foundation

/// A context's identity map: at most one live instance per stored row, and the inserted models by
/// their temporary identifiers.
///
/// Stored models are found by entity and row id (an integer key per entity, no per-model
/// bookkeeping object). The map holds every model weakly: a model with unsaved changes is kept
/// alive by ``PendingChanges``, and a clean one lives as long as the app holds it. Entries of
/// models that went away are dropped in sweeps, each after the map has doubled since the last,
/// so the map stays within about twice the live models at an amortised O(1) per registration.
struct IdentityMap {
    private struct Slot {
        weak var model: (any PersistentModel)?
    }

    /// Each entity's rows, by ``Store/EntityTables/ordinal``.
    private var rows: [[UInt64: Slot]]
    /// Inserted models by the number of their temporary identifier.
    private var temporary: [UInt64: Slot] = [:]
    /// Entity ordinals by name, for lookups by identifier.
    private let ordinals: [String: Int]
    private let storeIdentifier: String
    private var count = 0
    private var countAtLastSweep = 0

    init(store: Store) {
        var ordinals: [String: Int] = [:]
        for tables in store.entities.values { ordinals[tables.entity.name] = tables.ordinal }
        self.ordinals = ordinals
        rows = Array(repeating: [:], count: ordinals.count)
        storeIdentifier = store.identifier
    }

    /// The live model of a row of the entity with `ordinal`.
    ///
    /// - Complexity: O(1).
    func model(entity ordinal: Int, row: UInt64) -> (any PersistentModel)? {
        rows[ordinal][row]?.model
    }

    /// The live model with this identifier, stored or inserted.
    func model(for id: PersistentIdentifier) -> (any PersistentModel)? {
        switch id.kind {
        case .temporary(let number):
            return temporary[number]?.model
        case .row(let row):
            guard id.storeIdentifier == storeIdentifier, let ordinal = ordinals[id.entityName] else { return nil }
            return rows[ordinal][row]?.model
        }
    }

    /// Makes `model` the instance of its identifier (a stored row's, or an inserted model's
    /// temporary one), replacing any other.
    mutating func register(_ model: any PersistentModel, as id: PersistentIdentifier) {
        switch id.kind {
        case .temporary(let number):
            temporary[number] = Slot(model: model)
            count += 1
            sweepIfGrown()
        case .row(let row):
            guard let ordinal = ordinals[id.entityName] else { return }
            register(model, entity: ordinal, row: row)
        }
    }

    /// Registers `model` as the instance of a row of the entity with `ordinal`.
    mutating func register(_ model: any PersistentModel, entity ordinal: Int, row: UInt64) {
        rows[ordinal][row] = Slot(model: model)
        count += 1
        sweepIfGrown()
    }

    /// Forgets the instance of `id`.
    mutating func remove(_ id: PersistentIdentifier) {
        switch id.kind {
        case .temporary(let number):
            temporary[number] = nil
        case .row(let row):
            guard let ordinal = ordinals[id.entityName] else { return }
            rows[ordinal][row] = nil
        }
    }

    /// Every live model, stored and inserted.
    var models: [any PersistentModel] {
        var result: [any PersistentModel] = []
        for entity in rows { for slot in entity.values { if let model = slot.model { result.append(model) } } }
        for slot in temporary.values { if let model = slot.model { result.append(model) } }
        return result
    }

    /// Every live stored model with its identifier.
    var storedModels: [(PersistentIdentifier, any PersistentModel)] {
        var result: [(PersistentIdentifier, any PersistentModel)] = []
        for entity in rows {
            for slot in entity.values {
                guard let model = slot.model, let id = model._$modelState.persistentIdentifier else { continue }
                result.append((id, model))
            }
        }
        return result
    }

    /// Removes the entries whose model went away.
    private static func removeGone(from slots: inout [UInt64: Slot]) {
        var gone: [UInt64] = []
        for (key, slot) in slots where slot.model == nil { gone.append(key) }
        for key in gone { slots.removeValue(forKey: key) }
    }

    /// Drops the entries of models that went away, once the map has doubled since the last sweep.
    private mutating func sweepIfGrown() {
        guard count > 1024 && count > 2 * countAtLastSweep else { return }
        // Removed in place: rebuilding each dictionary cost about as much as registering anew,
        // and most sweeps find few entries gone.
        for ordinal in rows.indices { Self.removeGone(from: &rows[ordinal]) }
        Self.removeGone(from: &temporary)
        count = rows.reduce(temporary.count) { $0 + $1.count }
        countAtLastSweep = count
    }
}

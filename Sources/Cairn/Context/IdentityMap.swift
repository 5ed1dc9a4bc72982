import Foundation

/// A context's identity map: at most one live instance per stored row, and the inserted models by
/// their temporary identifiers.
///
/// Stored models are found by entity and row id (an integer key per entity, no per-model
/// bookkeeping object).
///
/// The map holds its models strongly, and lets go of the ones nothing else holds in sweeps, each
/// after the map has doubled since the last: a model the app dropped lives until the next sweep,
/// and the map stays within about twice the models in use at an amortised O(1) per registration. A model with unsaved changes is also held by ``PendingChanges``. Weak
/// references did the same without sweeps, but a weak reference gives its object a side table,
/// and then every retain and release of that model takes the runtime's slow path: measured with
/// callgrind, 12 to 16 percent of the instructions of an insert and save, a graph insert, or a
/// fetch of every row.
struct IdentityMap {
    private struct Slot {
        /// The reference that keeps the model alive, tested for uniqueness by sweeps.
        var object: AnyObject
        /// The same model with its conformance, not retained again: `object` keeps it alive.
        unowned(unsafe) let model: any PersistentModel

        init(_ model: any PersistentModel) {
            object = model
            self.model = model
        }
    }

    /// Each entity's rows, by ``Store/EntityTables/ordinal``.
    private var rows: [[UInt64: Slot]]
    /// Inserted models by the number of their temporary identifier.
    private var temporary: [UInt64: Slot] = [:]
    /// Entity ordinals by name, for lookups by identifier.
    private let ordinals: [InternedName: Int]
    private let storeIdentifier: InternedName
    private var count = 0
    private var countAtLastSweep = 0

    init(store: Store) {
        var ordinals: [InternedName: Int] = [:]
        for tables in store.entities.values { ordinals[tables.entityName] = tables.ordinal }
        self.ordinals = ordinals
        rows = Array(repeating: [:], count: ordinals.count)
        storeIdentifier = store.internedIdentifier
    }

    /// The live model of a row of the entity with `ordinal`.
    ///
    /// - Complexity: O(1).
    func model(entity ordinal: Int, row: UInt64) -> (any PersistentModel)? {
        rows[ordinal][row]?.model
    }

    /// How many models the map holds, swept or not.
    var registeredCount: Int { rows.reduce(temporary.count) { $0 + $1.count } }

    /// The live model with this identifier, stored or inserted.
    func model(for id: PersistentIdentifier) -> (any PersistentModel)? {
        switch id.kind {
        case .temporary(let number):
            return temporary[number]?.model
        case .row(let row):
            guard id.store == storeIdentifier, let ordinal = ordinals[id.entity] else { return nil }
            return rows[ordinal][row]?.model
        }
    }

    /// Makes `model` the instance of its identifier (a stored row's, or an inserted model's
    /// temporary one), replacing any other.
    mutating func register(_ model: any PersistentModel, as id: PersistentIdentifier) {
        switch id.kind {
        case .temporary(let number):
            temporary[number] = Slot(model)
            count += 1
            sweepIfGrown()
        case .row(let row):
            guard let ordinal = ordinals[id.entity] else { return }
            register(model, entity: ordinal, row: row)
        }
    }

    /// Registers `model` as the instance of a row of the entity with `ordinal`.
    mutating func register(_ model: any PersistentModel, entity ordinal: Int, row: UInt64) {
        rows[ordinal][row] = Slot(model)
        count += 1
        sweepIfGrown()
    }

    /// Forgets the instance of `id`.
    mutating func remove(_ id: PersistentIdentifier) {
        switch id.kind {
        case .temporary(let number):
            temporary[number] = nil
        case .row(let row):
            guard let ordinal = ordinals[id.entity] else { return }
            rows[ordinal][row] = nil
        }
    }

    /// Every model the map holds, stored and inserted.
    var models: [any PersistentModel] {
        var result: [any PersistentModel] = []
        for entity in rows { for slot in entity.values { result.append(slot.model) } }
        for slot in temporary.values { result.append(slot.model) }
        return result
    }

    /// Every stored model the map holds, with its identifier.
    var storedModels: [(PersistentIdentifier, any PersistentModel)] {
        var result: [(PersistentIdentifier, any PersistentModel)] = []
        for entity in rows {
            for slot in entity.values {
                guard let id = slot.model._$modelState.persistentIdentifier else { continue }
                result.append((id, slot.model))
            }
        }
        return result
    }

    /// Lets go of the models nothing but the map holds. The map's own reference is tested in
    /// place, so the test sees the other references only.
    mutating func sweep() {
        for ordinal in rows.indices { Self.releaseUnused(in: &rows[ordinal]) }
        Self.releaseUnused(in: &temporary)
        count = registeredCount
        countAtLastSweep = count
    }

    /// Lets go of the models of `ids` that nothing but the map holds (a batch the app moved past).
    mutating func releaseIfUnused(_ ids: [PersistentIdentifier]) {
        for id in ids {
            guard case .row(let row) = id.kind, id.store == storeIdentifier,
                let ordinal = ordinals[id.entity], let index = rows[ordinal].index(forKey: row)
            else { continue }
            if isKnownUniquelyReferenced(&rows[ordinal].values[index].object) {
                rows[ordinal].remove(at: index)
                count -= 1
            }
        }
    }

    /// Removes the entries whose model only the map holds.
    private static func releaseUnused(in slots: inout [UInt64: Slot]) {
        var unused: [UInt64] = []
        var index = slots.values.startIndex
        while index != slots.values.endIndex {
            if isKnownUniquelyReferenced(&slots.values[index].object) { unused.append(slots.keys[index]) }
            slots.values.formIndex(after: &index)
        }
        // Removed in place: rebuilding each dictionary cost about as much as registering anew,
        // and most sweeps find few entries unused.
        for key in unused { slots.removeValue(forKey: key) }
    }

    /// Sweeps once the map has doubled since the last sweep.
    private mutating func sweepIfGrown() {
        guard count > 1024 && count > 2 * countAtLastSweep else { return }
        sweep()
    }
}

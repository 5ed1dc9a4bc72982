import Foundation

/// A context's identity map: at most one live instance per stored row.
///
/// Stored models are found by entity and row id (pages of slots per entity, no per-model
/// bookkeeping object). The context does not register its inserted models here: it finds them by
/// temporary identifier through its pending inserts (`ModelContext.registered(_:)`). The map can
/// still hold a model by a temporary identifier, for a caller that registers one.
///
/// The map holds its models strongly, and lets go of the ones nothing else holds in sweeps, each
/// after the map has doubled since the last: a model the app dropped lives until the next sweep,
/// and the map stays within about twice the models in use at an amortised O(1) per registration. A model with unsaved changes is also held by ``PendingChanges``. Weak
/// references did the same without sweeps, but a weak reference gives its object a side table,
/// and then every retain and release of that model takes the runtime's slow path: measured with
/// callgrind, 12 to 16 percent of the instructions of an insert and save, a graph insert, or a
/// fetch of every row.
struct IdentityMap {
    fileprivate struct Slot {
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
    private var rows: [RowSlots]
    /// Inserted models by the number of their temporary identifier.
    private var temporary: [UInt64: Slot] = [:]
    /// Entity ordinals by the number of the entity's interned name (-1 for other names), for
    /// lookups by identifier: an array read, where a dictionary hashed the name and compared it
    /// through a protocol call.
    private let ordinalsByName: [Int32]
    private let storeIdentifier: InternedName
    private var count = 0
    private var countAtLastSweep = 0
    /// How many holds are on the map's models (``hold()``): while there are any, it lets none go.
    private var holds = 0

    init(store: Store) {
        let highest = store.entities.values.map { Int($0.entityName.number) }.max() ?? -1
        var ordinalsByName = [Int32](repeating: -1, count: highest + 1)
        for tables in store.entities.values { ordinalsByName[Int(tables.entityName.number)] = Int32(tables.ordinal) }
        self.ordinalsByName = ordinalsByName
        var rows = Array(repeating: RowSlots(), count: store.entities.count)
        for tables in store.entities.values { rows[tables.ordinal].classNumber = UInt64(tables.lineage.classNumber) }
        self.rows = rows
        storeIdentifier = store.internedIdentifier
    }

    /// The live model of a row of the entity with `ordinal`.
    ///
    /// - Complexity: O(1).
    func model(entity ordinal: Int, row: UInt64) -> (any PersistentModel)? {
        rows[ordinal].model(row)
    }

    /// The ordinal of the entity with this name, or `nil` for a name of no entity of the store.
    @inline(__always)
    private func ordinal(of entity: InternedName) -> Int? {
        let number = Int(entity.number)
        guard number < ordinalsByName.count, ordinalsByName[number] >= 0 else { return nil }
        return Int(ordinalsByName[number])
    }

    /// Whether the map may hold a model of a row of the entity with `ordinal` (it holds one, or
    /// held one not swept away yet).
    func mayHoldRows(entity ordinal: Int) -> Bool { rows[ordinal].count > 0 }

    /// How many pages of row slots the map has allocated, over all entities (see `RowSlots`).
    var allocatedPages: Int { rows.reduce(0) { $0 + $1.allocatedPages } }

    /// How many models the map holds, swept or not.
    var registeredCount: Int { rows.reduce(temporary.count) { $0 + $1.count } }

    /// The live model with this identifier, stored or inserted.
    ///
    /// Inlined: called on the map where a class holds it, a call copied the whole map (three
    /// collections retained and released) around each lookup.
    @inline(__always)
    func model(for id: PersistentIdentifier) -> (any PersistentModel)? {
        switch id.kind {
        case .temporary(let number):
            return temporary[number]?.model
        case .row(let row):
            guard id.store?.number == storeIdentifier.number, let ordinal = ordinal(of: id.entity) else { return nil }
            return rows[ordinal].model(row)
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
            guard let ordinal = ordinal(of: id.entity) else { return }
            register(model, entity: ordinal, row: row)
        }
    }

    /// Registers `model` as the instance of a row of the entity with `ordinal`.
    mutating func register(_ model: any PersistentModel, entity ordinal: Int, row: UInt64) {
        rows[ordinal].register(model, row: row)
        count += 1
        sweepIfGrown()
    }

    /// Forgets the instance of `id`.
    mutating func remove(_ id: PersistentIdentifier) {
        switch id.kind {
        case .temporary(let number):
            temporary[number] = nil
        case .row(let row):
            guard let ordinal = ordinal(of: id.entity) else { return }
            rows[ordinal].remove(row)
        }
    }

    /// Every model the map holds, stored and inserted.
    var models: [any PersistentModel] {
        var result: [any PersistentModel] = []
        forEach { result.append($0) }
        return result
    }

    /// Hands every model the map holds, stored and inserted, to `body`, without retaining it.
    func forEach(_ body: (any PersistentModel) -> Void) {
        for entity in rows { entity.forEach(body) }
        for slot in temporary.values { body(slot.model) }
    }

    /// Every stored model the map holds, with its identifier.
    var storedModels: [(PersistentIdentifier, any PersistentModel)] {
        var result: [(PersistentIdentifier, any PersistentModel)] = []
        for entity in rows {
            entity.forEach { model in
                guard let id = model._$state.persistentIdentifier else { return }
                result.append((id, model))
            }
        }
        return result
    }

    /// Lets go of every model: first those that something else holds too, then the rest.
    ///
    /// A model that another one holds (a member of a loaded to-many relationship) then dies with
    /// its holder, beside the models it was loaded and allocated with, rather than in row order:
    /// the books of authors whose `books` were faulted one after another lie in memory author by
    /// author, so freeing them by row id touched a new cache line at every one (W4 without
    /// prefetching: the teardown of 110,000 models took 50 ms this way and 25 ms the other;
    /// `Docs/Benchmarks.md`). A page whose slots all empty is freed before any model dies.
    mutating func releaseAll() {
        for index in rows.indices { rows[index].releaseShared() }
        rows = []
        temporary = [:]
        count = 0
    }

    /// Keeps every model the map holds alive until ``release()``: no sweep lets one go. For the
    /// length of a change in place of a to-many relationship, whose members before the change
    /// the context knows by address only (see `MembershipSnapshots`).
    mutating func hold() { holds += 1 }

    /// Ends a ``hold()``.
    mutating func release() {
        precondition(holds > 0, "IdentityMap.release() without a hold")
        holds -= 1
    }

    /// Lets go of the models nothing but the map holds. The map's own reference is tested in
    /// place, so the test sees the other references only. Nothing is let go during a hold.
    mutating func sweep() {
        guard holds == 0 else { return }
        for ordinal in rows.indices { rows[ordinal].releaseUnused() }
        Self.releaseUnused(in: &temporary)
        count = registeredCount
        countAtLastSweep = count
    }

    /// Lets go of the models of `ids` that nothing but the map holds (a batch the app moved past).
    mutating func releaseIfUnused(_ ids: [PersistentIdentifier]) {
        guard holds == 0 else { return }
        for id in ids {
            guard case .row(let row) = id.kind, id.store?.number == storeIdentifier.number,
                let ordinal = ordinal(of: id.entity)
            else { continue }
            if rows[ordinal].releaseIfUnused(row) { count -= 1 }
        }
    }

    /// Lets go of the models of these rows of the entity with `ordinal` that nothing but the map
    /// holds.
    mutating func releaseIfUnused(entity ordinal: Int, rows: [UInt64]) {
        guard holds == 0 else { return }
        for row in rows where self.rows[ordinal].releaseIfUnused(row) { count -= 1 }
    }

    /// Removes the entries whose model only the map holds.
    fileprivate static func releaseUnused(in slots: inout [UInt64: Slot]) {
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

/// One entity's registered models by row id.
///
/// Row ids are handed out in ascending order, so the rows a context holds cluster: they are kept
/// in pages of 512 slots, found by the row id's high bits in an array, so a lookup or a
/// registration is two array reads, not hashing the row into a dictionary (and rehashing it as the
/// dictionary grows). Row ids past the paged range (a store with billions of rows, or a damaged
/// key) go to a dictionary, so a stray large id never makes a large array.
private struct RowSlots {
    /// A page's slot: empty, or a model and the reference that keeps it (see `IdentityMap.Slot`).
    struct PageSlot {
        var object: AnyObject?
        unowned(unsafe) var model: (any PersistentModel)?
    }

    private static let pageShift: UInt64 = 9
    private static let pageSize = 1 << 9
    /// Pages cover row ids below 2^25 (65,536 pages, an array of at most 512 KiB of references).
    private static let pageLimit: UInt64 = 1 << 16

    /// Each page's slots, empty (not allocated) until a row in it is registered, and freed again
    /// when its last model leaves: a context that moves through a million rows in batches holds
    /// pages only for the rows it holds now.
    private var pages: [[PageSlot]] = []
    /// How many slots of each page hold a model.
    private var occupied: [Int32] = []
    private var overflow: [UInt64: IdentityMap.Slot] = [:]
    private(set) var count = 0

    /// The class number in the top bits of the entity's row ids (`Store+Hierarchy.swift`): 0
    /// outside a hierarchy and for its root.
    var classNumber: UInt64 = 0

    /// The page and the slot in it of `row`, or `nil` for a row past the paged range or of
    /// another class (a row of a superclass's table looked up here: never one of these models).
    ///
    /// The entity's class number, the same in every row id of its own, is left out of the page:
    /// a subclass's rows are paged too.
    @inline(__always)
    private func place(of row: UInt64) -> (page: Int, slot: Int)? {
        guard row >> Store.classShift == classNumber else { return nil }
        let page = (row & (1 << Store.classShift - 1)) >> Self.pageShift
        guard page < Self.pageLimit else { return nil }
        return (Int(truncatingIfNeeded: page), Int(truncatingIfNeeded: row) & (Self.pageSize - 1))
    }

    func model(_ row: UInt64) -> (any PersistentModel)? {
        guard let (page, slot) = place(of: row) else { return overflow[row]?.model }
        guard page < pages.count, !pages[page].isEmpty else { return nil }
        return pages[page][slot].model
    }

    /// Registers `model` for `row`, replacing any other, which is then no longer its row's
    /// registered instance (``_ModelState/isRegisteredRow``).
    mutating func register(_ model: any PersistentModel, row: UInt64) {
        guard let (page, slot) = place(of: row) else {
            if let replaced = overflow.updateValue(IdentityMap.Slot(model), forKey: row) {
                Self.unregistered(replaced.model)
            } else {
                count += 1
            }
            model._$state.isRegisteredRow = true
            return
        }
        if page >= pages.count {
            pages.append(contentsOf: repeatElement([], count: page - pages.count + 1))
            occupied.append(contentsOf: repeatElement(0, count: page - occupied.count + 1))
        }
        if pages[page].isEmpty { pages[page] = Array(repeating: PageSlot(), count: Self.pageSize) }
        if let replaced = pages[page][slot].model {
            Self.unregistered(replaced)
        } else {
            count += 1
            occupied[page] += 1
        }
        pages[page][slot] = PageSlot(object: model, model: model)
        model._$state.isRegisteredRow = true
    }

    /// Notes that `model` (alive: its slot still holds it) left its slot.
    private static func unregistered(_ model: any PersistentModel) {
        model._$state.isRegisteredRow = false
    }

    mutating func remove(_ row: UInt64) {
        guard let (page, slot) = place(of: row) else {
            if let removed = overflow.removeValue(forKey: row) {
                Self.unregistered(removed.model)
                count -= 1
            }
            return
        }
        guard page < pages.count, !pages[page].isEmpty, let removed = pages[page][slot].model else { return }
        Self.unregistered(removed)
        empty(page, slot)
    }

    /// Empties a slot that holds a model, and frees its page when it was the page's last.
    private mutating func empty(_ page: Int, _ slot: Int) {
        pages[page][slot] = PageSlot()
        count -= 1
        occupied[page] -= 1
        if occupied[page] == 0 { pages[page] = [] }
    }

    /// Empties the slots whose model something else holds too, so that it does not die now, and
    /// frees each page left empty.
    mutating func releaseShared() {
        for page in pages.indices where !pages[page].isEmpty {
            // Through the page's buffer: a subscript per slot checked both arrays' uniqueness.
            var released: Int32 = 0
            pages[page].withUnsafeMutableBufferPointer { slots in
                for slot in slots.indices where slots[slot].object != nil {
                    if !isKnownUniquelyReferenced(&slots[slot].object) {
                        slots[slot] = PageSlot()
                        released += 1
                    }
                }
            }
            count -= Int(released)
            occupied[page] -= released
            if occupied[page] == 0 { pages[page] = [] }
        }
        for row in Array(overflow.keys) {
            guard let index = overflow.index(forKey: row) else { continue }
            if !isKnownUniquelyReferenced(&overflow.values[index].object) {
                overflow.remove(at: index)
                count -= 1
            }
        }
    }

    /// How many pages are allocated.
    var allocatedPages: Int { pages.count { !$0.isEmpty } }

    /// Calls `body` with every registered model.
    func forEach(_ body: (any PersistentModel) -> Void) {
        for slots in pages where !slots.isEmpty {
            for slot in slots { if let model = slot.model { body(model) } }
        }
        for slot in overflow.values { body(slot.model) }
    }

    /// Removes the entry of `row` if only the map holds its model; whether it did.
    mutating func releaseIfUnused(_ row: UInt64) -> Bool {
        guard let (page, slot) = place(of: row) else {
            guard let index = overflow.index(forKey: row), isKnownUniquelyReferenced(&overflow.values[index].object)
            else { return false }
            overflow.remove(at: index)
            count -= 1
            return true
        }
        guard page < pages.count, !pages[page].isEmpty, pages[page][slot].object != nil,
            isKnownUniquelyReferenced(&pages[page][slot].object)
        else { return false }
        empty(page, slot)
        return true
    }

    /// Removes every entry whose model only the map holds. The map's own reference is tested in
    /// place, so the test sees the other references only.
    mutating func releaseUnused() {
        for page in pages.indices where !pages[page].isEmpty {
            var left = 0
            for slot in 0..<Self.pageSize where pages[page][slot].object != nil {
                if isKnownUniquelyReferenced(&pages[page][slot].object) {
                    pages[page][slot] = PageSlot()
                    count -= 1
                } else {
                    left += 1
                }
            }
            occupied[page] = Int32(left)
            if left == 0 { pages[page] = [] }
        }
        let before = overflow.count
        IdentityMap.releaseUnused(in: &overflow)
        count -= before - overflow.count
    }
}

import Foundation

/// A key in a given unique table, for sets and maps of keys across tables.
struct KeySlot: Hashable {
    let table: UInt32
    let key: [UInt8]

    init(_ table: Table, _ key: [UInt8]) {
        self.table = table.handle
        self.key = key
    }

    /// The key's bytes in one call (see ``HashedKey``).
    func hash(into hasher: inout Hasher) {
        hasher.combine(table)
        HashedKey(key).hash(into: &hasher)
    }
}

/// Key bytes as a hash key: hashed as one block of bytes, where `[UInt8]`'s own hashing feeds the
/// hasher a byte at a time (a batch upsert of new models hashes each key twice).
struct HashedKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// What the pending changes do to the uniqueness constraints, worked out before the save's
/// transaction without changing any model.
///
/// Inserted models are named by their position in the ``InsertedModels`` planned, not by
/// reference: the plan of a large insert then holds no model (each reference would be a retain
/// and a release of a model far away in memory).
struct UniquenessPlan {
    /// The stored row each inserted model takes over because it has the same unique values
    /// (SwiftData's upsert), by position; `nil` for one that gets a new row. Empty when none does.
    var takeovers: [UInt64?] = []
    /// Positions of inserted models that a later insert with the same unique values replaces
    /// (last wins).
    var superseded: Set<Int> = []
    /// Keys to remove before any is added (old values of updated, deleted and taken-over rows),
    /// each with the row it names.
    var freed: [(table: Table, key: [UInt8], row: UInt64)] = []
    /// Keys that changed models claim, with the model whose row they name.
    var claimed: [(table: Table, key: [UInt8], model: any PersistentModel)] = []
    /// Keys that inserted models claim, by position in the ``InsertedModels``' keys, with the
    /// model's position.
    var insertClaims: [(key: Int, position: Int)] = []
    /// Keys (by position in the ``InsertedModels``' keys) that already name the row an insert (at
    /// `position`) takes over: neither freed nor claimed, only checked in the transaction
    /// (``SavePlan/KeptKey``).
    var kept: [(key: Int, position: Int, row: UInt64)] = []
    /// The commit the inserts' keys were looked up at.
    var readSnapshot: UInt64?
    /// Relationships of stored models that lose a taken-over row because the inserted model
    /// replaced the relationship.
    var released: [Release] = []

    /// A model whose relationship loses a taken-over row, with the targets it keeps.
    typealias Release = (owner: any PersistentModel, relationship: Schema.Relationship, targets: [any PersistentModel])
}

/// Applies the uniqueness constraints to the inserts, changes and deletes of a save, before its
/// write transaction and without changing any model: which inserts take over a stored row with
/// the same unique values (SwiftData's upsert), which a later insert supersedes, which keys are
/// freed and which claimed, and which changes collide with another stored row.
///
/// What it needs from the context comes in as closures: the keys a stored row has (read from its
/// record), and the relationships a taken-over row loses.
struct UniquenessPlanner {
    let store: Store
    /// A stored row, with the tables of its entity.
    typealias StoredRow = (row: UInt64, tables: Store.EntityTables)
    /// The keys stored rows have in each of their entity's uniqueness constraints, row by row,
    /// read together (one read transaction for all: one per row cost about 6,600 instructions a
    /// row, most of a batch delete's planning).
    let storedKeys: (_ rows: [StoredRow]) throws -> [[[UInt8]]]
    /// The relationships of a stored row that an inserted model taking it over replaces.
    let releasedRelationships:
        (_ model: any PersistentModel, _ takingOver: UInt64, _ tables: Store.EntityTables) throws
            -> [UniquenessPlan.Release]

    /// The plan for a save's inserted, changed and deleted (saved) models, in the order given.
    func plan(
        inserted: InsertedModels, changed: [any PersistentModel], deleted: [any PersistentModel]
    ) throws -> UniquenessPlan {
        var plan = UniquenessPlan()
        var freed = FreedKeys()
        try freeKeys(ofDeleted: deleted, plan: &plan, freed: &freed)
        try planChanged(changed, plan: &plan, freed: &freed)
        try planInserts(inserted, deletedRows: Set(deleted.map(\.persistentModelID)), freed: freed, plan: &plan)
        // A superseded insert claims nothing.
        if !plan.superseded.isEmpty {
            let superseded = plan.superseded
            plan.insertClaims.removeAll { superseded.contains($0.position) }
        }
        if !plan.takeovers.isEmpty { try resolveTakeovers(of: inserted, plan: &plan, freed: &freed) }
        try checkClaims(plan, freed: freed)
        return plan
    }

    /// The unique keys a save gives up (deleted rows' and changed rows' old keys): free for the
    /// save's other models to claim.
    struct FreedKeys {
        private(set) var slots: Set<KeySlot> = []

        mutating func free(_ table: Table, _ key: [UInt8], of row: UInt64, in plan: inout UniquenessPlan) {
            plan.freed.append((table, key, row))
            slots.insert(KeySlot(table, key))
        }

        func contains(_ table: Table, _ key: [UInt8]) -> Bool { slots.contains(KeySlot(table, key)) }
    }

    /// Deleted models give up their stored keys. An empty key (a value not equal to itself, such
    /// as a NaN) was never stored.
    private func freeKeys(
        ofDeleted deleted: [any PersistentModel], plan: inout UniquenessPlan, freed: inout FreedKeys
    ) throws {
        let keyed: [StoredRow] = deleted.compactMap { model in
            let tables = store.tables(of: model)
            return tables.keys.uniques.isEmpty ? nil : (model.persistentModelID.rowID!, tables)
        }
        guard !keyed.isEmpty else { return }
        for (stored, keys) in zip(keyed, try storedKeys(keyed)) {
            for (unique, key) in zip(stored.tables.keys.uniques, keys) where !key.isEmpty {
                freed.free(unique.table, key, of: stored.row, in: &plan)
            }
        }
    }

    /// Changed models give up the old keys of the constraints whose values they changed, and
    /// claim the new ones (checked in ``checkClaims(_:freed:)``).
    private func planChanged(
        _ changed: [any PersistentModel], plan: inout UniquenessPlan, freed: inout FreedKeys
    ) throws {
        var keyed: [(model: any PersistentModel, touched: [Store.EntityTables.UniqueConstraint])] = []
        var rows: [StoredRow] = []
        for model in changed {
            let tables = store.tables(of: model)
            guard !tables.keys.uniques.isEmpty else { continue }
            let state = model._$state
            let touched = tables.keys.uniques.filter { $0.isTouched(by: state) }
            guard !touched.isEmpty else { continue }
            keyed.append((model, touched))
            rows.append((model.persistentModelID.rowID!, tables))
        }
        guard !rows.isEmpty else { return }
        for ((model, touched), (stored, oldKeys)) in zip(keyed, zip(rows, try storedKeys(rows))) {
            let tables = stored.tables
            for unique in touched {
                let index = tables.keys.uniques.firstIndex { $0.table == unique.table }!
                let newKey = unique.key(of: model)
                guard newKey != oldKeys[index] else { continue }
                if !oldKeys[index].isEmpty {
                    freed.free(unique.table, oldKeys[index], of: model.persistentModelID.rowID!, in: &plan)
                }
                if !newKey.isEmpty { plan.claimed.append((unique.table, newKey, model)) }
            }
        }
    }

    /// Inserts, in order: a later duplicate supersedes an earlier one; a stored match is taken
    /// over. Their keys were made in the save's one pass over the models (`InsertedModels`), and
    /// are all looked up in one read transaction.
    private func planInserts(
        _ inserted: InsertedModels, deletedRows: Set<PersistentIdentifier>, freed: FreedKeys,
        plan: inout UniquenessPlan
    ) throws {
        let (keys, keyTables, insertTables) = (inserted.keys, inserted.keyTables, inserted.tables)
        let isRowDeleted = { (tables: Store.EntityTables, row: UInt64) in
            !deletedRows.isEmpty
                && deletedRows.contains(
                    PersistentIdentifier(entity: tables.entityName, store: store.internedIdentifier, rowID: row))
        }
        // One loop per insert, while its keys are fresh in the cache: look each key up, note the
        // last insert claiming it (an earlier one is superseded), claim it. Walking the keys once
        // per step cost a cache miss per key and step at 100,000 inserts.
        // Made at the first takeover (most saves of new models have none).
        var takeovers: [UInt64?] = []
        // Keys that ascend within each table are all different: nothing to hash (generated ids,
        // dates and counters come in order).
        let keysRepeat = !keys.ascendStrictly(table: { keyTables[$0].handle })
        // The insert that claims each key last (equal keys are found by hashing their bytes in
        // place, not by copying each key into a dictionary).
        var claimedByInsert = LastEqualKey(capacity: keysRepeat ? keys.count : 0)
        // What the loop reads and builds is in locals of its own, not in `plan` (an inout
        // parameter): every access to those goes through the runtime's exclusivity checks.
        var insertClaims: [(key: Int, position: Int)] = []
        insertClaims.reserveCapacity(keys.count)
        var superseded = plan.superseded
        var bounds = UniqueTableBounds()
        let readSnapshot = try store.read { txn in
            for position in 0..<inserted.count {
                var takeover: UInt64?
                // An empty key (a value not equal to itself) equals no other: no lookup, no claim.
                for k in inserted.keyRange(of: position) where !keys.isEmptyKey(k) {
                    if freed.slots.isEmpty || !freed.contains(keyTables[k], keys[k]),
                        let row = try keys.withKey(
                            k,
                            { key in
                                try bounds.mayHold(key, in: keyTables[k], txn: txn)
                                    ? try txn.uniqueRow(for: key, in: keyTables[k]) : nil
                            }),
                        !isRowDeleted(insertTables[position], row)
                    {
                        try checkTakeover(of: row, besides: takeover, by: insertTables[position])
                        takeover = row
                    }
                    if keysRepeat, let earlierKey = claimedByInsert.note(k, table: keyTables[k].handle, in: keys) {
                        let earlier = inserted.position(ofKey: earlierKey)
                        if earlier != position { superseded.insert(earlier) }
                    }
                }
                // A takeover's keys are sorted out later, against the row's stored ones.
                if let takeover {
                    if takeovers.isEmpty { takeovers = Array(repeating: nil, count: inserted.count) }
                    takeovers[position] = takeover
                } else {
                    for k in inserted.keyRange(of: position) where !keys.isEmptyKey(k) {
                        insertClaims.append((k, position))
                    }
                }
            }
            return txn.id
        }
        plan.readSnapshot = readSnapshot
        plan.superseded = superseded
        plan.insertClaims = insertClaims
        plan.takeovers = takeovers
    }

    /// Refuses a takeover of stored `row` by a new model of `tables` that already matched
    /// another row through another constraint, or whose row is of another class (a constraint a
    /// hierarchy inherits is unique across its classes; a row of another class cannot become
    /// this one).
    private func checkTakeover(of row: UInt64, besides other: UInt64?, by tables: Store.EntityTables) throws {
        if let other, other != row {
            throw SaveError(
                code: .uniquenessViolated,
                message: "A new \(tables.entity.name) matches two different stored ones through "
                    + "two uniqueness constraints, so it cannot replace either. Change its unique values.",
                models: [
                    PersistentIdentifier(entity: tables.entityName, store: store.internedIdentifier, rowID: other),
                    PersistentIdentifier(entity: tables.entityName, store: store.internedIdentifier, rowID: row),
                ])
        }
        if tables.lineage.hierarchy != nil, let stored = tables.tables(forRow: row), stored !== tables {
            throw SaveError(
                code: .uniquenessViolated,
                message: "A new \(tables.entity.name) has the unique values of a stored "
                    + "\(stored.entity.name), which it cannot replace: a model does not change its "
                    + "class. Change its unique values, or delete the \(stored.entity.name) first.",
                models: [PersistentIdentifier(entity: stored.entityName, store: store.internedIdentifier, rowID: row)])
        }
    }

    /// A stored row an insert takes over gives its old values way to the new model's: a key
    /// that stays the same stays in place (checked by the writer), any other is freed and the
    /// new one claimed. With one constraint, the row's key is the one it was found by, so the
    /// record need not be read.
    private func resolveTakeovers(
        of inserted: InsertedModels, plan: inout UniquenessPlan, freed: inout FreedKeys
    ) throws {
        let keys = inserted.keys
        let taking = (0..<inserted.count).filter { position in
            (plan.superseded.isEmpty || !plan.superseded.contains(position)) && plan.takeovers[position] != nil
        }
        // The old keys of the rows taken over under several keys, read together.
        let reread = taking.filter { inserted.keyRange(of: $0).count != 1 }
        let storedOldKeys = try storedKeys(reread.map { (plan.takeovers[$0]!, inserted.tables[$0]) })
        let oldKeysByPosition = Dictionary(uniqueKeysWithValues: zip(reread, storedOldKeys))
        for position in taking {
            let row = plan.takeovers[position]!
            let range = inserted.keyRange(of: position)
            let tables = inserted.tables[position]
            let oldKeys = oldKeysByPosition[position]
            for (offset, k) in range.enumerated() {
                // An empty key (old or new: a value not equal to itself) is neither stored nor claimed.
                if let old = oldKeys?[offset], !keys.withKey(k, { $0.elementsEqual(old) }) {
                    if !old.isEmpty { freed.free(inserted.keyTables[k], old, of: row, in: &plan) }
                    if !keys.isEmptyKey(k) { plan.insertClaims.append((k, position)) }
                } else if !keys.isEmptyKey(k) {
                    plan.kept.append((k, position, row))
                }
            }
            plan.released += try releasedRelationships(inserted.models[position], row, tables)
        }
    }

    /// A changed model may not take another stored row's unique values (unless the save frees them).
    private func checkClaims(_ plan: UniquenessPlan, freed: FreedKeys) throws {
        for (table, key, model) in plan.claimed {
            guard !freed.contains(table, key),
                let row = try store.read({ txn in try txn.uniqueRow(for: key, in: table) }),
                row != model.persistentModelID.rowID
            else { continue }
            let other = PersistentIdentifier(
                entityName: model.persistentModelID.entityName, storeIdentifier: store.identifier, rowID: row)
            throw SaveError(
                code: .uniquenessViolated,
                message: "\(model.persistentModelID) now has the same unique values as \(other) (table \(table.name)). "
                    + "Change one of them, or delete \(other) in the same save.",
                models: [model.persistentModelID, other])
        }
    }

    /// The keys a stored row has in each of its entity's uniqueness constraints, from its record
    /// read in `txn` by `rows` (empty keys when the row is gone).
    static func storedKeys(
        row: UInt64, tables: Store.EntityTables, reading rows: RowLoader, in txn: borrowing ReadTransaction
    ) throws -> [[UInt8]] {
        guard let stored = try rows.storedRecord(row: row, tables: tables, in: txn) else {
            return tables.keys.uniques.map { _ in [] }
        }
        return try tables.keys.uniques.map { (unique) throws(StorageError) in try unique.key(ofRecord: stored) }
    }
}

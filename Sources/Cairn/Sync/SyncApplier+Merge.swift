import CairnSyncProtocol

// Two replicas that insert rows with the same unique values (`.unique` attributes or `#Unique`
// keys) make one row everywhere: every replica that meets both merges them into the row with the
// smaller identifier, each field keeping its later write, so all replicas end with the same row.
// The other identifier stays as an alias of it (``EntryLayout/SyncRowState/mergedInto``), so
// changes and links that name it reach the merged row.

extension SyncApplier {
    /// A unique key of a row: its constraint's table and the key's bytes.
    struct UniqueKey: Hashable {
        let table: String
        let key: [UInt8]
    }

    /// The unique keys the incoming row `change`'s values give (none for a value not equal to
    /// itself, as a save gives none).
    func uniqueKeys(of change: RowChange, entity: SyncSchema.Entity) throws -> [(table: Table, key: UniqueKey)] {
        let uniques = entity.tables.keys.uniques.filter(\.isUnique)
        guard !uniques.isEmpty else { return [] }
        let record = try incomingRecord(change, entity: entity)
        var keys: [(Table, UniqueKey)] = []
        for constraint in uniques {
            let key = try constraint.recordKey.key(of: record)
            if !key.isEmpty { keys.append((constraint.table, UniqueKey(table: constraint.table.name, key: key))) }
        }
        return keys
    }

    /// The row, here or inserted earlier in this apply, that holds the unique values of the
    /// incoming row `change`, if one does.
    func collision(with change: RowChange, entity: SyncSchema.Entity) throws -> SyncID? {
        let keys = try uniqueKeys(of: change, entity: entity)
        if let inserted = keys.lazy.compactMap({ self.insertedKeys[$0.key] }).first { return resolved(inserted) }
        guard !keys.isEmpty else { return nil }
        let tables = tables
        return try store.read { txn -> SyncID? in
            for (table, key) in keys {
                guard let row = try txn.uniqueRow(for: key.key, in: table) else { continue }
                let rowTables = entity.tables.concrete(forRow: row)
                guard let id = try tables.identifier(of: row, in: rowTables, txn) else { continue }
                let (canonicalID, state) = try tables.canonical(id, txn)
                if let state, states[canonicalID] == nil { states[canonicalID] = state }
                return resolved(canonicalID)
            }
            return nil
        }
    }

    /// The row `id` stands for after the merges this apply made so far.
    func resolved(_ id: SyncID) -> SyncID {
        var current = id
        for _ in 0..<64 {
            guard let next = canonical[current], next != current else { break }
            current = next
        }
        return current
    }

    /// Notes the unique keys of a row this apply inserts, so a later incoming row with the
    /// same values merges with it.
    func noteInsertedKeys(of change: RowChange, id: SyncID, entity: SyncSchema.Entity) throws {
        for (_, key) in try uniqueKeys(of: change, entity: entity) { insertedKeys[key] = id }
    }

    /// Merges the incoming row `incoming` with the row `local` that holds its unique values:
    /// the smaller identifier names the row from now on, the other becomes its alias, and the
    /// incoming fields apply as to any row (each keeps the later write).
    func merge(_ change: RowChange, incoming: SyncID, into local: SyncID, entity: SyncSchema.Entity) throws {
        guard var localState = states[local], let model = model(of: local, state: localState, entity: entity) else {
            return
        }
        let (survivor, alias) = incoming < local ? (incoming, local) : (local, incoming)
        if survivor == incoming {
            renamed[local] = incoming
            if let temporary = insertedRows.first(where: { $0.value == local })?.key { insertedRows[temporary] = incoming }
            models[incoming] = model
        }
        var aliasState = EntryLayout.SyncRowState(entity: localState.entity, row: nil)
        aliasState.mergedInto = survivor
        states[alias] = aliasState
        canonical[alias] = survivor
        canonical[survivor] = survivor
        touched.formUnion([alias, survivor])
        try update(model, with: change, id: survivor, entity: entity, state: &localState)
        states[survivor] = localState
    }

    /// The incoming row's attributes as a record under this schema's tags (fields of another
    /// type left out).
    func incomingRecord(_ change: RowChange, entity: SyncSchema.Entity) throws -> RecordReader {
        var fields: [(tag: UInt32, payload: FieldPayload)] = []
        for (name, field) in change.fields {
            guard let synced = entity.attributes[name],
                case .some(.some(let payload)) = try Self.payload(field.value, for: synced)
            else { continue }
            fields.append((synced.tag, payload))
        }
        var writer = RecordWriter()
        for (tag, payload) in fields.sorted(by: { $0.tag < $1.tag }) { writer.write(payload: payload, tag: tag) }
        return try RecordReader(writer.finished())
    }
}

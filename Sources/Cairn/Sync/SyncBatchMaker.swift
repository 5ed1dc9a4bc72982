import CairnSyncProtocol
import Foundation

/// Makes the batches a replica pushes: the pending rows (``SyncOutbox``) with the values their
/// records and edges hold now, each field with the stamp of its last write. A batch, once made,
/// is kept as sent until the server has it (``inFlight(_:)``): a push that failed is sent again
/// the same, under the same identifier, so the server stores it once.
///
/// ```swift
/// let batch = try store.write(expectedBytes: 1 << 20) { txn in try maker.next(limit: 500, txn) }
/// ```
struct SyncBatchMaker {
    let store: Store
    let tables: SyncTables
    let schema: SyncSchema
    let replica: SyncID

    /// The batch in flight, or a new one of up to `limit` pending rows and about
    /// `SyncLimits.batchBytes` (the rows leave the pending table for it), or `nil` when nothing
    /// is pending that a push can carry. A row larger than `SyncLimits.maximumRowBytes` stays
    /// pending (``oversized(_:)`` names it) until a change makes it smaller.
    func next(limit: Int, _ txn: borrowing WriteTransaction) throws -> ChangeBatch? {
        if let batch = try inFlight(txn) { return batch }
        var rows: [RowChange] = []
        var taken: [SyncID] = []
        var bytes = 0
        try tables.forEachPending(txn) { id, fields in
            // A row no longer here has nothing to push: its entry goes.
            guard let row = try change(of: id, fields: fields, txn) else {
                taken.append(id)
                return true
            }
            let size = row.wireSizeBound
            guard size <= SyncLimits.maximumRowBytes else { return true }
            rows.append(row)
            taken.append(id)
            bytes += size
            return rows.count < limit && bytes < SyncLimits.batchBytes
        }
        for id in taken { try txn.delete(id.bytes, in: tables.pending) }
        guard !rows.isEmpty else { return nil }
        for row in rows { try recordOrders(of: row, entity: schema.entities[row.entity], txn) }
        let batch = ChangeBatch(id: SyncID.make(), replica: replica, rows: rows)
        try tables.setStateValue(SyncWire.encode(batch), for: StoreLayout.syncInFlightKey, txn)
        return batch
    }

    /// The pending rows too large to push, each as its entity, identifier and size in bytes.
    func oversized(_ txn: borrowing some StorageTransaction & ~Copyable) throws -> [(entity: String, id: SyncID, bytes: Int)] {
        var found: [(entity: String, id: SyncID, bytes: Int)] = []
        try tables.forEachPending(txn) { id, fields in
            if let row = try change(of: id, fields: fields, txn) {
                let size = row.wireSizeBound
                if size > SyncLimits.maximumRowBytes { found.append((row.entity, id, size)) }
            }
            return true
        }
        return found
    }

    /// The batch made and not yet acknowledged by the server.
    func inFlight(_ txn: borrowing some StorageTransaction & ~Copyable) throws -> ChangeBatch? {
        guard let bytes = try tables.stateValue(StoreLayout.syncInFlightKey, txn) else { return nil }
        do {
            return try SyncWire.decode(ChangeBatch.self, from: bytes)
        } catch {
            throw StorageError(
                code: .damagedRecord,
                message: "The sync batch waiting to be pushed cannot be read (\(error)). Run cairn verify.")
        }
    }

    /// Row `id` as it is to be pushed: its deletion, or `fields` with their values and stamps,
    /// and the fields this schema does not have, passed on; `nil` when the row is not here.
    func change(of id: SyncID, fields: Set<String>, _ txn: borrowing some StorageTransaction & ~Copyable) throws -> RowChange? {
        guard let state = try tables.rowState(id, txn), state.mergedInto == nil else { return nil }
        if let deleted = state.deleted { return RowChange(entity: state.entity, id: id, deleted: deleted) }
        guard let row = state.row, let entity = schema.entities[state.entity] else { return nil }
        let key = EntryLayout.rowKey(row)
        guard let stored = try txn.get(key, in: entity.tables.layout.records) else { return nil }
        let record = try RecordReader(stored, key: key)
        var change = RowChange(entity: state.entity, id: id, fields: state.kept)
        for name in fields {
            guard let stamp = state.stamp(of: name) else { continue }
            if let synced = entity.attributes[name] {
                let holder = try synced.storedRecord(row: row, record: record, tables: entity.tables, txn)
                change.fields[name] = FieldChange(stamp: stamp, value: holder.map { Self.value(of: synced, in: $0) } ?? .null)
            } else if let relationship = entity.relationships[name] {
                let value = try targets(of: row, relationship, entity: entity, txn)
                change.fields[name] = FieldChange(stamp: stamp, value: value)
            } else if let order = entity.orders[name] {
                change.fields[name] = try self.order(name, order.relationship, of: row, state: state, stamp: stamp, entity: entity, txn)
            }
        }
        return change
    }

    /// A list's order as pushed: the newest order written, as written, when it is the one
    /// stamped `stamp` (another replica's, or this one's pushed before); else the list as this
    /// replica holds it. `nil` for a list longer than a value may be (its members then stand in
    /// the order of their links' writes).
    private func order(
        _ name: String, _ relationship: Schema.Relationship, of row: UInt64, state: EntryLayout.SyncRowState,
        stamp: SyncStamp, entity: SyncSchema.Entity, _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> FieldChange? {
        if let written = state.orders[name], written.stamp == stamp { return written }
        let value = try targets(of: row, relationship, entity: entity, txn)
        if case .references(let members) = value, members.count > SyncLimits.maximumReferences { return nil }
        return FieldChange(stamp: stamp, value: value)
    }

    /// Records the orders `row` pushes as the newest written (``EntryLayout/SyncRowState/orders``),
    /// so that the members of a list are ordered by what was pushed, not by what the list holds later.
    private func recordOrders(of row: RowChange, entity: SyncSchema.Entity?, _ txn: borrowing WriteTransaction) throws {
        guard let entity, row.fields.keys.contains(where: { entity.orders[$0] != nil }),
            var state = try tables.rowState(row.id, txn)
        else { return }
        var changed = false
        for (name, field) in row.fields where entity.orders[name] != nil && state.orders[name] != field {
            state.orders[name] = field
            changed = true
        }
        if changed { try tables.setRowState(state, of: row.id, txn) }
    }

    /// An attribute's value on the wire: its stored type's name and a one-field record.
    static func value(of attribute: SyncSchema.Attribute, in record: RecordReader) -> FieldValue {
        guard let payload = record.payload(tag: attribute.tag) else { return .null }
        var writer = RecordWriter()
        writer.write(payload: payload, tag: 1)
        return .value(type: attribute.typeName, data: Data(writer.finished()))
    }

    /// A relationship's stored targets as global identifiers (targets that have none are not synced).
    private func targets(
        of row: UInt64, _ relationship: Schema.Relationship, entity: SyncSchema.Entity,
        _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> FieldValue {
        let edges = try txn.edges(of: row, in: entity.tables.layout.edgeTable(of: relationship, in: entity.tables.entity))
        guard let destination = store.entities[relationship.destination] else { return .null }
        var ids: [SyncID] = []
        for edge in edges {
            let tables = destination.concrete(forRow: edge.target)
            if let id = try self.tables.identifier(of: edge.target, in: tables, txn) { ids.append(id) }
        }
        if relationship.isToOneRelationship { return ids.first.map(FieldValue.reference) ?? .null }
        return .references(ids)
    }
}

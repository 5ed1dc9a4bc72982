import CairnSyncProtocol
import Foundation

/// Turns what was saved here into pending changes: each commit's history entry since the last
/// run (the change log is the only source of outgoing changes) gives the rows it inserted,
/// changed and deleted, and the fields it changed. Each commit is stamped by the replica's
/// clock at the commit's time, each row gets its global identifier when its insert is read,
/// and its changed fields are marked to push. Commits that sync itself saved (author
/// ``authorName``) are passed over: they hold what other replicas wrote.
///
/// The first time, every commit the history holds is read the same way, so each row's fields are
/// stamped with the time they were saved; rows older than the history (deleted entries) are
/// taken in whole, stamped now.
///
/// ```swift
/// try store.write(expectedBytes: 1 << 20) { txn in
///     try SyncOutbox(store: store, tables: tables, schema: schema, replica: id).collect(txn, clock: &clock)
/// }
/// ```
struct SyncOutbox {
    /// The author of the saves sync makes, which the history of those saves names.
    static let authorName = "cairn.sync"

    let store: Store
    let tables: SyncTables
    let schema: SyncSchema
    let replica: SyncID

    /// Collects the commits after the last one collected, up to `txn`'s snapshot. Writes nothing
    /// when no commit since has a history entry (sync's own bookkeeping commits have none), so
    /// collecting after every commit does not make commits of its own forever.
    ///
    /// - Throws: `StorageError` when the store cannot be read or a history entry is damaged.
    func collect(_ txn: borrowing WriteTransaction, clock: inout HybridLogicalClock) throws {
        let seen = try tables.counter(StoreLayout.syncOutboxKey, txn)
        let newest = txn.id &- 1
        guard seen < newest else { return }
        var last: UInt64?
        if let history = store.history, try ChangeLog.keepsEntries(after: seen, meta: store.meta, txn: txn) {
            let range = KeyRange(from: .exclusive(EntryLayout.historyKey(commit: seen)))
            try ChangeLog.scan(history, range, txn: txn) { stored in
                switch stored {
                case .entry(let commit, let entry):
                    last = commit
                    guard entry.author != Self.authorName else { return true }
                    let stamp = SyncStamp(clock: clock.tick(wallMilliseconds: entry.timestamp / 1000), replica: replica)
                    try collect(entry, stamp: stamp, txn)
                case .damagedEntry(let commit):
                    throw StorageError(
                        code: .damagedRecord,
                        message: "The history entry of commit \(commit) is damaged, so sync cannot tell what it changed. "
                            + "Run cairn verify, and restore the store from a backup.")
                case .damagedKey(let error): throw error
                }
                return true
            }
            // The first time, rows whose inserts the history no longer holds are taken in too.
            if seen == 0 {
                try takeInWhole(txn, clock: &clock)
                last = newest
            }
        } else {
            // The entries since the last run were deleted (a store last synced by an earlier
            // version): every row is pushed again with all its fields, stamped now.
            try takeInWhole(txn, clock: &clock)
            last = newest
        }
        guard let last else { return }
        try tables.setCounter(last, for: StoreLayout.syncOutboxKey, txn)
        try tables.setCounter(clock.last, for: StoreLayout.syncClockKey, txn)
    }

    /// One commit's rows.
    private func collect(_ entry: EntryLayout.HistoryEntry, stamp: SyncStamp, _ txn: borrowing WriteTransaction) throws {
        try ChangeLog.forEachRow(of: entry, store: store) { kind, tables, row, fields in
            guard let entity = schema.entities[tables.entity.name] else { return }
            try note(kind: kind, row: row, entity: entity, fields: fields.map(entity.wireName), stamp: stamp, txn)
        }
    }

    /// Records one row's change: its stamps, its identifier, and what to push.
    private func note(
        kind: UInt8, row: UInt64, entity: SyncSchema.Entity, fields: [String], stamp: SyncStamp,
        _ txn: borrowing WriteTransaction
    ) throws {
        switch kind {
        case ChangeLog.Kind.deleted.rawValue:
            guard let id = try tables.identifier(of: row, in: entity.tables, txn) else { return }
            var state = try tables.rowState(id, txn) ?? EntryLayout.SyncRowState(entity: entity.tables.entity.name, row: nil)
            state.row = nil
            state.deleted = state.deleted ?? stamp
            try tables.setRowState(state, of: id, txn)
            try tables.setIdentifier(nil, of: row, in: entity.tables, txn)
            try tables.addPending([], of: id, txn)
        case ChangeLog.Kind.inserted.rawValue:
            try mark(entity.fieldNames, of: row, entity: entity, at: stamp, txn)
        case ChangeLog.Kind.updated.rawValue where !fields.isEmpty:
            // Fields the app set: each is this replica's write, even one that ends where the
            // last push left it (set and set back between two syncs is still the newest write).
            try mark(fields.filter(entity.travels), of: row, entity: entity, at: stamp, txn)
        default:
            // An edge rewrite may name no field (an inverse repaired): any relationship may have
            // changed. Edges are rewritten for rows whose links stay as they were (the other
            // members of a list that changed), so a relationship counts only when its targets differ.
            let named = fields.isEmpty ? Array(entity.relationships.keys) + Array(entity.orders.keys) : fields
            try mark(named.filter { entity.link($0) != nil }, of: row, entity: entity, at: stamp, onlyChangedLinks: true, txn)
        }
    }

    /// Stamps `fields` of local row `row` and marks them to push, giving the row an identifier
    /// if it has none.
    private func mark(
        _ fields: [String], of row: UInt64, entity: SyncSchema.Entity, at stamp: SyncStamp,
        onlyChangedLinks: Bool = false, _ txn: borrowing WriteTransaction
    ) throws {
        guard !fields.isEmpty else { return }
        let existing = try tables.identifier(of: row, in: entity.tables, txn)
        var state = try existing.flatMap { try tables.rowState($0, txn) }
            ?? EntryLayout.SyncRowState(entity: entity.tables.entity.name, row: row)
        var changed: [String] = []
        for name in fields {
            if let relationship = entity.link(name) {
                let digest = try Self.linkDigest(of: row, relationship, entity: entity, txn)
                if onlyChangedLinks && state.linkDigest(of: name) == digest { continue }
                state.setLinkDigest(digest, for: name)
                // An empty list that never had an order written (a new author's books) has no
                // order to tell: nothing to push.
                if entity.orders[name] != nil, digest == Self.emptyDigest, state.stamp(of: name) == nil { continue }
            }
            changed.append(name)
        }
        guard !changed.isEmpty else { return }
        var generator = SystemRandomNumberGenerator()
        let id = existing ?? SyncID.make(milliseconds: stamp.milliseconds, using: &generator)
        state.row = row
        for name in changed { state.setStamp(stamp, for: name) }
        try tables.setRowState(state, of: id, txn)
        if existing == nil { try tables.setIdentifier(id, of: row, in: entity.tables, txn) }
        try tables.addPending(changed, of: id, txn)
    }

    /// The digest of a relationship with no targets.
    static let emptyDigest: UInt64 = 0xCBF2_9CE4_8422_2325

    /// A digest of a relationship's stored targets, in order (FNV-1a over their row ids).
    static func linkDigest(
        of row: UInt64, _ relationship: Schema.Relationship, entity: SyncSchema.Entity,
        _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> UInt64 {
        let edges = try txn.edges(of: row, in: entity.tables.layout.edgeTable(of: relationship, in: entity.tables.entity))
        var hash = emptyDigest
        for edge in edges {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ UInt64(UInt8(truncatingIfNeeded: edge.target >> UInt64(shift)))) &* 0x100_0000_01B3
            }
        }
        return hash
    }

    /// Takes in every row of the synced entities that has no identifier yet, with all its fields,
    /// stamped now.
    private func takeInWhole(_ txn: borrowing WriteTransaction, clock: inout HybridLogicalClock) throws {
        let stamp = SyncStamp(clock: clock.tick(wallMilliseconds: Self.nowMilliseconds), replica: replica)
        var visited = Set<String>()
        for entity in schema.entities.values where visited.insert(SyncTables.root(of: entity.tables)).inserted {
            var rows: [UInt64] = []
            try txn.scan(entity.tables.layout.records) { key, _ in
                if key.count == 8 { rows.append(key.loadUnaligned(as: UInt64.self).bigEndian) }
                return true
            }
            for row in rows {
                guard let tables = entity.tables.tables(forRow: row), let rowEntity = schema.entities[tables.entity.name],
                    try self.tables.identifier(of: row, in: tables, txn) == nil
                else { continue }
                try mark(rowEntity.fieldNames, of: row, entity: rowEntity, at: stamp, txn)
            }
        }
    }

    static var nowMilliseconds: UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }
}

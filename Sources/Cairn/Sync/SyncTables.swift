import CairnSyncProtocol

/// A store's sync tables (`StoreLayout.syncTables`, created the first time sync runs) and what
/// they hold: each synced row's state by global identifier, each local row's global identifier,
/// the rows changed here and not yet pushed, and the replica's state. Every value is sealed with
/// its key's checksum (``EntryLayout/syncValue(_:key:)``).
///
/// ```swift
/// let tables = try SyncTables(store: store)
/// let id = try tables.identifier(of: row, in: bookTables, txn)
/// ```
struct SyncTables {
    let rows: Table
    let identifiers: Table
    let pending: Table
    let state: Table

    /// The store's sync tables, created if it has none yet.
    ///
    /// - Throws: `StorageError` when they cannot be created (a read-only store that has none).
    init(store: Store) throws {
        var opened: [Table] = []
        for name in StoreLayout.syncTables {
            guard let table = try store.environment.openTable(name, create: !store.isReadOnly) else {
                throw StorageError(
                    code: .readOnly,
                    message: "The store has never synced and was opened read-only, so its sync tables cannot be "
                        + "made. Open it with allowsSave: true to sync.")
            }
            opened.append(table)
        }
        (rows, identifiers, pending, state) = (opened[0], opened[1], opened[2], opened[3])
    }

    // MARK: Rows

    /// What is known of row `id`, or `nil` when nothing is.
    func rowState(
        _ id: SyncID, _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> EntryLayout.SyncRowState? {
        let key = id.bytes
        return try txn.get(key, in: rows).map { try EntryLayout.syncValue($0, key: key, as: EntryLayout.SyncRowState.self) }
    }

    func setRowState(_ rowState: EntryLayout.SyncRowState, of id: SyncID, _ txn: borrowing WriteTransaction) throws {
        let key = id.bytes
        try txn.put(EntryLayout.syncValue(rowState, key: key), for: key, in: rows)
    }

    /// The row `id` stands for now: itself, or the row it was merged into (followed to the end).
    func canonical(
        _ id: SyncID, _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> (id: SyncID, state: EntryLayout.SyncRowState?) {
        var current = id
        var state = try rowState(id, txn)
        var steps = 0
        while let next = state?.mergedInto, steps < 64 {
            current = next
            state = try rowState(next, txn)
            steps += 1
        }
        return (current, state)
    }

    // MARK: Local rows' identifiers

    /// The global identifier of local row `row` of `tables`' entity, if it has one.
    func identifier(
        of row: UInt64, in tables: Store.EntityTables, _ txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> SyncID? {
        let key = EntryLayout.syncIdentifierKey(root: Self.root(of: tables), row: row)
        return try txn.get(key, in: identifiers).map { try Self.identifier($0, key: key) }
    }

    func setIdentifier(
        _ id: SyncID?, of row: UInt64, in tables: Store.EntityTables, _ txn: borrowing WriteTransaction
    ) throws {
        let key = EntryLayout.syncIdentifierKey(root: Self.root(of: tables), row: row)
        if let id {
            try txn.put(EntryLayout.metaValue(id.bytes, key: key), for: key, in: identifiers)
        } else {
            try txn.delete(key, in: identifiers)
        }
    }

    private static func identifier(_ stored: [UInt8], key: [UInt8]) throws -> SyncID {
        let payload = try EntryLayout.metaPayload(stored, key: key)
        guard let id = SyncID(bytes: payload) else {
            throw StorageError(
                code: .damagedRecord,
                message: "A sync identifier entry holds \(payload.count) bytes where it takes 16. Run cairn verify.")
        }
        return id
    }

    /// The name rows of `tables`' hierarchy are numbered under.
    static func root(of tables: Store.EntityTables) -> String {
        tables.lineage.hierarchy?.root ?? tables.entity.name
    }

    // MARK: Pending rows

    /// The fields of row `id` changed here and not pushed yet, or `nil` when none are.
    func pendingFields(_ id: SyncID, _ txn: borrowing some StorageTransaction & ~Copyable) throws -> Set<String>? {
        let key = id.bytes
        return try txn.get(key, in: pending).map { Set(try EntryLayout.syncValue($0, key: key, as: EntryLayout.SyncFieldNames.self).names) }
    }

    /// Adds `fields` of row `id` to what is to be pushed (none for a deletion alone).
    func addPending(_ fields: some Sequence<String>, of id: SyncID, _ txn: borrowing WriteTransaction) throws {
        let all = (try pendingFields(id, txn) ?? []).union(fields)
        let key = id.bytes
        try txn.put(EntryLayout.syncValue(EntryLayout.SyncFieldNames(all.sorted()), key: key), for: key, in: pending)
    }

    /// Calls `body` with the pending rows, in identifier order, with their fields, while it returns true.
    func forEachPending(
        _ txn: borrowing some StorageTransaction & ~Copyable, _ body: (SyncID, Set<String>) throws -> Bool
    ) throws {
        try scan(pending, as: EntryLayout.SyncFieldNames.self, txn) { id, fields in try body(id, Set(fields.names)) }
    }

    /// Calls `body` with every row state.
    func forEachRowState(
        _ txn: borrowing some StorageTransaction & ~Copyable, _ body: (SyncID, EntryLayout.SyncRowState) throws -> Void
    ) throws {
        try scan(rows, as: EntryLayout.SyncRowState.self, txn) { id, state in
            try body(id, state)
            return true
        }
    }

    /// Reads `table`'s entries (keyed by a row's global identifier) in key order while `body` returns true.
    private func scan<Value: SyncWireCodable>(
        _ table: Table, as type: Value.Type, _ txn: borrowing some StorageTransaction & ~Copyable,
        _ body: (SyncID, Value) throws -> Bool
    ) throws {
        try txn.scan(table) { key, value in
            let keyBytes = Array(key)
            guard let id = SyncID(bytes: keyBytes) else {
                throw StorageError(
                    code: .damagedRecord,
                    message: "A sync table entry has a key of \(key.count) bytes, not 16. Run cairn verify, and restore the store from a backup.")
            }
            return try body(id, try EntryLayout.syncValue(Array(value), key: keyBytes, as: type))
        }
    }

    // MARK: Replica state

    /// A state entry's bytes, checked.
    func stateValue(_ key: [UInt8], _ txn: borrowing some StorageTransaction & ~Copyable) throws -> [UInt8]? {
        try txn.get(key, in: state).map { try EntryLayout.metaPayload($0, key: key) }
    }

    func setStateValue(_ value: [UInt8]?, for key: [UInt8], _ txn: borrowing WriteTransaction) throws {
        if let value {
            try txn.put(EntryLayout.metaValue(value, key: key), for: key, in: state)
        } else {
            try txn.delete(key, in: state)
        }
    }

    /// A counter of the state (the clock, the outbox's commit, the feed position), 0 when unset.
    func counter(_ key: [UInt8], _ txn: borrowing some StorageTransaction & ~Copyable) throws -> UInt64 {
        try txn.get(key, in: state).map { try EntryLayout.counter($0, key: key, table: state) } ?? 0
    }

    func setCounter(_ value: UInt64, for key: [UInt8], _ txn: borrowing WriteTransaction) throws {
        try txn.put(EntryLayout.counter(value, key: key), for: key, in: state)
    }

    /// The rows whose links point at rows not here yet.
    func unresolved(_ txn: borrowing some StorageTransaction & ~Copyable) throws -> Set<SyncID> {
        guard let bytes = try stateValue(StoreLayout.syncUnresolvedKey, txn) else { return [] }
        guard bytes.count % 16 == 0 else {
            throw StorageError(
                code: .damagedRecord, message: "The sync state's list of waiting rows holds \(bytes.count) bytes.")
        }
        return Set(stride(from: 0, to: bytes.count, by: 16).compactMap { SyncID(bytes: bytes[$0..<($0 + 16)]) })
    }

    func setUnresolved(_ ids: Set<SyncID>, _ txn: borrowing WriteTransaction) throws {
        try setStateValue(ids.isEmpty ? nil : ids.sorted().flatMap(\.bytes), for: StoreLayout.syncUnresolvedKey, txn)
    }
}

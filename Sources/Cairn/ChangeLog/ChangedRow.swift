/// What happened to one row in one or more commits, as the change log records it: inserted,
/// deleted, the names of the fields changed, or a change that names none. Live queries decide
/// from these which results to read again; the public history makes its changes from them.
///
/// ```swift
/// let (through, rows) = try ChangedRow.rows(after: 41, store: store) ?? (41, [])
/// let touched = rows.filter { $0.fields.contains("title") || $0.unnamed }
/// ```
struct ChangedRow {
    /// The tables of the row's own class.
    let tables: Store.EntityTables
    let row: UInt64
    var inserted = false
    var deleted = false
    /// The names of the fields changed.
    var fields: Set<String> = []
    /// Whether a change named no field (an entry of an earlier format, or an edge of a
    /// relationship without an inverse property): a reader must assume any field changed.
    var unnamed = false
    /// Whether the row was updated without the fields being named: an entry of an earlier
    /// format, which the public history still reports as an update.
    var updatedUnnamed = false

    /// The row's identifier in the store `store` names.
    func identifier(in store: InternedName) -> PersistentIdentifier {
        PersistentIdentifier(entity: tables.entityName, store: store, rowID: row)
    }

    /// A row of an entity, as the log names it.
    struct Key: Hashable {
        let entity: InternedName
        let row: UInt64
    }

    /// The rows `entries` changed, each once, in the order the entries first name them; rows of
    /// entities the schema no longer has are left out.
    static func rows(in entries: [EntryLayout.HistoryEntry], store: Store) -> [ChangedRow] {
        var order: [Key] = []
        var rows: [Key: ChangedRow] = [:]
        for entry in entries {
            ChangeLog.forEachRow(of: entry, store: store) { kind, tables, row, fields in
                let key = Key(entity: tables.entityName, row: row)
                if rows[key] == nil {
                    order.append(key)
                    rows[key] = ChangedRow(tables: tables, row: row)
                }
                switch kind {
                case ChangeLog.Kind.inserted.rawValue: rows[key]!.inserted = true
                case ChangeLog.Kind.deleted.rawValue: rows[key]!.deleted = true
                default:
                    if fields.isEmpty {
                        rows[key]!.unnamed = true
                        if kind == ChangeLog.Kind.updated.rawValue { rows[key]!.updatedUnnamed = true }
                    }
                    rows[key]!.fields.formUnion(fields)
                }
            }
        }
        return order.map { rows[$0]! }
    }

    /// The rows the commits after `commit` changed, each once, up to the newest commit, and
    /// that commit; `nil` when the log cannot say (entries deleted, damaged, or more than
    /// ``ChangeLog/readCommitsLimit`` commits to read): the reader must start again from the
    /// models themselves.
    ///
    /// - Throws: `StorageError` when the store cannot be read.
    static func rows(after commit: UInt64, store: Store) throws -> (through: UInt64, rows: [ChangedRow])? {
        guard let table = store.history else { return nil }
        return try store.read { txn -> (through: UInt64, rows: [ChangedRow])? in
            guard
                case .entries(let entries) = try ChangeLog.read(
                    after: commit, history: table, meta: store.meta, txn: txn)
            else { return nil }
            return (txn.id, rows(in: entries, store: store))
        }
    }
}

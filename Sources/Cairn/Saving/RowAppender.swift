import Foundation

/// New rows within one write transaction: each entity's row counter is read once, each record is
/// appended under the next row id, and ``writeCounters(meta:txn:)`` stores the counters.
struct RowAppender {
    /// Each entity's next row id: a list searched in order, as a save adds rows to a handful of
    /// entities at most (hashing the key cost more than the search).
    private var next: [(tables: Store.EntityTables, row: UInt64)] = []

    /// Appends record `record` of `records`, sealed for its new row's key, as a new row of
    /// `tables`' entity and returns its row id.
    mutating func append(
        _ record: Int, of records: inout RecordList, to tables: Store.EntityTables, meta: Table,
        txn: borrowing WriteTransaction
    ) throws -> UInt64 {
        let position: Int
        if let found = next.firstIndex(where: { $0.tables === tables }) {
            position = found
        } else {
            next.append((tables, try txn.nextRow(of: tables.entity.name, meta: meta)))
            position = next.count - 1
        }
        let counter = next[position].row
        guard counter < 1 << Store.classShift else {
            throw StorageError(
                code: .unsupported,
                message: "\(tables.entity.name) has had 2^48 rows, as many as a store numbers for one model class, so "
                    + "no new one can be added. Move its models to a new store (a backup does not renumber them).")
        }
        // A subclass's row ids start at its class number (`Store+Hierarchy.swift`); its rows share
        // a table with other classes', whose ids may come after its own, so they are put, not appended.
        let row = tables.firstRow | counter
        let options: PutOptions = tables.lineage.hierarchy == nil ? .append : .noOverwrite
        // The key on the stack, so that no row costs an allocation.
        let appended = try EntryLayout.withRowKey(row) { key in
            records.seal(record, forKey: key)
            return try records.withRecord(record) { bytes in
                try txn.put(bytes, for: key, in: tables.layout.records, options: options)
            }
        }
        guard appended else {
            throw StorageError(
                code: .damaged,
                message: "The row counter of \(tables.entity.name) is behind its rows, so a new row would overwrite "
                    + "one. Restore the store from a backup.")
        }
        next[position].row = counter + 1
        return row
    }

    /// Stores the counters of the entities that got new rows.
    func writeCounters(meta: Table, txn: borrowing WriteTransaction) throws {
        for (tables, row) in next {
            let key = StoreLayout.rowCounterKey(tables.entity.name)
            try txn.put(EntryLayout.counter(row, key: key), for: key, in: meta)
        }
    }
}

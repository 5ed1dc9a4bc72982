import CairnStorage
import Foundation

/// Fills the unique and index tables a schema adds to entities that already have rows
/// (``Store/EntityTables/KeyTables/unfilled``), as a container opens: the key of every stored
/// row goes in, in one write transaction. The keys come from the stored records
/// (``RecordKey``), as a save computes the keys of stored rows, with no model made. A uniqueness
/// constraint that the stored rows break (two with the same values) refuses the open with a
/// ``SchemaError`` naming them, and its table stays empty, to be filled at the next open: remove
/// the duplicates first, in a custom migration stage's `willMigrate`.
///
/// ```swift
/// try KeyTableFiller(store: store).fill()
/// ```
struct KeyTableFiller {
    let store: Store

    func fill() throws {
        for tables in store.entities.values where !tables.keys.unfilled.isEmpty {
            try fill(tables)
            tables.keys.unfilled = []
        }
    }

    /// Fills `tables`' unfilled key tables from every stored row of the entity (and of the
    /// entities that inherit from it).
    private func fill(_ tables: Store.EntityTables) throws {
        let unfilled = tables.keys.unfilled
        var entries: [(table: Table, key: [UInt8], row: UInt64)] = []
        var claimed = [[[UInt8]: UInt64]](repeating: [:], count: unfilled.count)
        try store.read { txn in
            try txn.scan(tables.layout.records) { key, value in
                guard let row = try? EntryLayout.row(key: key, table: tables.layout.records), tables.includes(row: row),
                    let record = try? RecordReader(copying: value, key: key),
                    // A record whose keyed values cannot be read has no key: it is left out
                    // (verify() reports it), rather than keep the store from opening.
                    let keys = try? unfilled.map({ (constraint) throws(StorageError) in
                        try constraint.key(ofRecord: record)
                    })
                else { return true }
                for (position, key) in keys.enumerated() {
                    // A unique value not equal to itself (a NaN) has no key.
                    if unfilled[position].isUnique && key.isEmpty { continue }
                    if unfilled[position].isUnique, let earlier = claimed[position].updateValue(row, forKey: key) {
                        throw duplicate(unfilled[position], of: tables, rows: earlier, row)
                    }
                    entries.append((unfilled[position].table, key, row))
                }
                return true
            }
        }
        try store.write(expectedBytes: entries.reduce(0) { $0 + $1.key.count + 40 }) { txn in
            for entry in entries {
                try txn.put(EntryLayout.keyedValue(row: entry.row, key: entry.key), for: entry.key, in: entry.table)
            }
        }
    }

    /// The error for two stored rows with the same values of a new uniqueness constraint.
    private func duplicate(
        _ constraint: Store.EntityTables.UniqueConstraint, of tables: Store.EntityTables, rows first: UInt64,
        _ second: UInt64
    ) -> SchemaError {
        let (earlier, later) = (identifier(first, of: tables), identifier(second, of: tables))
        return SchemaError(
            code: .incompatibleStore, entity: tables.entityName.text, property: constraint.names.joined(separator: ","),
            message:
                "The schema makes \(tables.entityName.text).\(constraint.names.joined(separator: ", ")) "
                + "unique, but the store holds two models with the same values (\(earlier) and \(later)). Remove "
                + "or merge the duplicates before the constraint applies: in a custom migration stage's "
                + "willMigrate, with the previous version's models.")
    }

    private func identifier(_ row: UInt64, of tables: Store.EntityTables) -> PersistentIdentifier {
        PersistentIdentifier(
            entityName: tables.concrete(forRow: row).entityName.text, storeIdentifier: store.identifier,
            rowID: row)
    }
}

import CairnStorage

/// The largest key of each unique table as one read transaction sees it, read once per table: a
/// key above it is not in the table, so it needs no lookup.
///
/// A save of new models looks each new unique key up, to find a stored row it takes over
/// (SwiftData's upsert); a B-tree descent per key, about a thirteenth of a 110,000-object graph
/// insert. New keys usually ascend past every stored one (generated ids, dates, counters), and
/// then one comparison with the table's last key settles it. The last entry is verified as a
/// lookup's neighbour check would verify it.
///
/// ```swift
/// var bounds = UniqueTableBounds()
/// let row = try bounds.mayHold(key, in: table, txn: txn) ? try txn.uniqueRow(for: key, in: table) : nil
/// ```
struct UniqueTableBounds {
    /// Each table met so far (by handle) with its last key; `nil` for an empty table.
    private var last: [(table: UInt32, key: [UInt8]?)] = []

    /// Whether `table` may hold `key`: `false` when the key sorts after every key the table has
    /// in `txn`'s snapshot.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the table's last entry is damaged.
    mutating func mayHold(_ key: UnsafeRawBufferPointer, in table: Table, txn: borrowing ReadTransaction) throws -> Bool
    {
        let bound: [UInt8]?
        if let known = last.first(where: { $0.table == table.handle }) {
            bound = known.key
        } else {
            bound = try txn.withCursor(on: table) { cursor -> [UInt8]? in
                guard try cursor.last() else { return nil }
                let (key, value) = cursor.current
                _ = try EntryLayout.row(keyedValue: value, key: key, table: table)
                return Array(key)
            }
            last.append((table.handle, bound))
        }
        guard let bound else { return false }
        return bound.withUnsafeBytes { txn.compare(key, $0, in: table) <= 0 }
    }
}

import Foundation

/// Reads the stored targets of one relationship for some owners in one read transaction: each
/// owner's edges in stored order, and the records of the targets the caller asks for. Both a
/// to-many fault (one owner) and `relationshipKeyPathsForPrefetching` (every fetched owner) read
/// this way, so walking `author.books` costs one read per author and prefetching one read in all.
struct RelationshipReader {
    let store: Store
    let relationship: Schema.Relationship
    /// The owners' entity.
    let tables: Store.EntityTables

    /// The relationship's destination entity.
    var destination: Store.EntityTables { store.entitiesByName[relationship.internedDestination]! }

    /// What one read found: each owner's targets in stored order, and the records read.
    struct Targets {
        /// Each owner's targets: the row, and the position among ``records`` of its record when
        /// it was read (no record is copied per target: the records share one buffer).
        let owners: [[(row: UInt64, record: Int?)]]
        let records: [RecordReader]

        /// The record read for `target`, if any.
        func record(of target: (row: UInt64, record: Int?)) -> RecordReader? { target.record.map { records[$0] } }
    }

    /// Reads the targets of `owners`, each owner's in stored order, with the records of those
    /// `wantsRecord` accepts (each record once, at the target's first appearance).
    ///
    /// The edges are read first, in one cursor pass over the owners; then the records, in
    /// ascending row order, whatever order the edges named them in: consecutive rows are a step
    /// of the cursor each, where records looked up in edge order each searched the tree from its
    /// root (about 1,700 instructions a record, and a cache miss per level in a large store).
    ///
    /// A target whose row is gone is left out when the relationship can dangle (its inverse does
    /// not keep it in step); a target whose record was read exists by that read.
    /// The records are read into `batch` (emptied first), which the targets' readers share.
    func read(
        owners: [UInt64], wantsRecord: (UInt64) -> Bool, txn: borrowing ReadTransaction,
        into batch: inout RecordBatch
    ) throws -> Targets {
        let checkRows = store.canDangle(relationship)
        var (found, wanted) = try edges(of: owners, wantsRecord: wantsRecord, checkRows: checkRows, txn: txn)
        // The wanted rows ascending, each once (a row two owners name, in a damaged store, too).
        wanted.sort()
        var rows: [UInt64] = []
        rows.reserveCapacity(wanted.count)
        for row in wanted where rows.last != row { rows.append(row) }
        let positions = try records(of: rows, txn: txn, into: &batch)
        // Each wanted target gets its record's position, in place; one whose row is gone is
        // left out or kept without a record, as above.
        for owner in found.indices {
            var dropsAny = false
            for target in found[owner].indices where found[owner][target].record == Self.pending {
                let position = positions[Self.position(of: found[owner][target].row, in: rows)]
                found[owner][target].record = position ?? (checkRows ? Self.gone : nil)
                dropsAny = dropsAny || (position == nil && checkRows)
            }
            if dropsAny { found[owner].removeAll { $0.record == Self.gone } }
        }
        return Targets(owners: found, records: batch.readers())
    }

    /// The record position of a target whose record is still to be read.
    private static let pending = -1
    /// The record position of a wanted target whose row is gone, to be left out.
    private static let gone = -2

    /// Each owner's targets in stored order, in one cursor pass: a target whose record is wanted
    /// (the first time it appears) marked ``pending``, with the rows to read; the others without
    /// a record, checked to exist when the relationship can dangle.
    private func edges(
        of owners: [UInt64], wantsRecord: (UInt64) -> Bool, checkRows: Bool, txn: borrowing ReadTransaction
    ) throws -> (targets: [[(row: UInt64, record: Int?)]], wanted: [UInt64]) {
        let table = tables.edgeTable(of: relationship)
        let recordTable = destination.layout.records
        // Owners share targets unless the inverse is a to-one: then each target has one owner.
        var seen: Set<UInt64>? = targetsHaveOneOwner ? nil : []
        var found: [[(row: UInt64, record: Int?)]] = []
        found.reserveCapacity(owners.count)
        var wanted: [UInt64] = []
        try txn.withCursor(on: table) { cursor in
            for owner in owners {
                let edges = try ReadTransaction.edges(of: owner, cursor: cursor, table: table)
                var targets: [(row: UInt64, record: Int?)] = []
                targets.reserveCapacity(edges.count)
                for edge in edges {
                    let row = edge.target
                    let isFirst = seen?.insert(row).inserted ?? true
                    if isFirst && wantsRecord(row) {
                        wanted.append(row)
                        targets.append((row, Self.pending))
                    } else if try !checkRows || txn.contains(EntryLayout.rowKey(row), in: recordTable) {
                        targets.append((row, nil))
                    }
                }
                found.append(targets)
            }
        }
        return (found, wanted)
    }

    /// Reads the records of `rows` (ascending) into `batch`, emptied first: each one's position
    /// in the batch, `nil` for a row that is gone.
    private func records(
        of rows: [UInt64], txn: borrowing ReadTransaction, into batch: inout RecordBatch
    ) throws -> [Int?] {
        let recordTable = destination.layout.records
        _ = batch.empty(keepingUpTo: .max)
        batch.reserveCapacity(records: rows.count)
        var positions: [Int?] = []
        positions.reserveCapacity(rows.count)
        for row in rows {
            let position = batch.count
            // The key on the stack, so that no record costs an allocation.
            let isStored = try EntryLayout.withRowKey(row) { key in
                try txn.withValue(for: key, in: recordTable) { try batch.append(copying: $0, key: key, row: row) } != nil
            }
            positions.append(isStored ? position : nil)
        }
        return positions
    }

    /// The position of `row` among `rows`, which ascend and hold it.
    private static func position(of row: UInt64, in rows: [UInt64]) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let middle = (low + high) / 2
            if rows[middle] < row { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether each target belongs to one owner: the inverse is a to-one relationship.
    private var targetsHaveOneOwner: Bool {
        guard let inverseName = relationship.inverseName else { return false }
        return destination.entity.relationshipsByName[inverseName]?.isToOneRelationship ?? false
    }
}

extension Store {
    /// Whether a relationship's stored targets may include deleted rows: deleting a target
    /// updates the relationship only through an inverse whose delete rule is not `.noAction`.
    func canDangle(_ relationship: Schema.Relationship) -> Bool {
        guard let inverseName = relationship.inverseName,
            let inverse = entities[relationship.destination]?.entity.relationshipsByName[inverseName]
        else { return true }
        return inverse.deleteRule == .noAction
    }
}

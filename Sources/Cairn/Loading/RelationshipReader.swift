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
    /// A target whose row is gone is left out when the relationship can dangle (its inverse does
    /// not keep it in step); a target whose record was read exists by that read.
    /// The records are read into `batch` (emptied first), which the targets' readers share.
    func read(
        owners: [UInt64], wantsRecord: (UInt64) -> Bool, txn: borrowing ReadTransaction,
        into batch: inout RecordBatch
    ) throws -> Targets {
        let table = tables.edgeTable(of: relationship)
        let destination = destination
        let checkRows = store.canDangle(relationship)
        // Owners share targets unless the inverse is a to-one: then each target has one owner.
        var seen: Set<UInt64>? = targetsHaveOneOwner ? nil : []
        // Each owner's targets as (row, position of its record in `batch`), made into readers at
        // the end: the records read share one buffer.
        var found: [[(row: UInt64, record: Int?)]] = []
        found.reserveCapacity(owners.count)
        _ = batch.empty(keepingUpTo: .max)
        try txn.withCursor(on: table) { cursor in
            for owner in owners {
                let edges = try ReadTransaction.edges(of: owner, cursor: cursor, table: table)
                var targets: [(row: UInt64, record: Int?)] = []
                targets.reserveCapacity(edges.count)
                batch.reserveCapacity(records: edges.count)
                for edge in edges {
                    let row = edge.target
                    let isFirst = seen?.insert(row).inserted ?? true
                    if isFirst && wantsRecord(row) {
                        let position = batch.count
                        // The key on the stack, so that no record costs an allocation.
                        let isStored = try EntryLayout.withRowKey(row) { key in
                            try txn.withValue(for: key, in: destination.layout.records) {
                                try batch.append(copying: $0, key: key, row: row)
                            } != nil
                        }
                        if isStored {
                            targets.append((row, position))
                        } else if !checkRows {
                            targets.append((row, nil))
                        }
                    } else if try !checkRows || txn.contains(EntryLayout.rowKey(row), in: destination.layout.records) {
                        targets.append((row, nil))
                    }
                }
                found.append(targets)
            }
        }
        return Targets(owners: found, records: batch.readers())
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

import Foundation

extension StoreWriter {
    /// A relationship list as it was before and after this save (`new` is empty for a deleted owner).
    /// For an owner appended by this save, `new` holds only its stored targets: a pair of appended
    /// rows needs no repair (``StoreWriter/write(_:)``).
    struct RewrittenList {
        let relationship: Schema.Relationship
        /// The owner's entity's tables.
        let ownerTables: Store.EntityTables
        let table: Table
        let owner: UInt64
        let old: [UInt64]
        let new: [UInt64]

        init(
            _ relationship: Schema.Relationship, of ownerTables: Store.EntityTables, _ table: Table, _ owner: UInt64,
            _ old: [UInt64], _ new: [UInt64]
        ) {
            (self.relationship, self.ownerTables, self.table, self.owner, self.old, self.new) =
                (relationship, ownerTables, table, owner, old, new)
        }
    }

    /// A row's stored edges in one relationship table, verified: each duplicate's bytes (to delete
    /// it by), rank and target row.
    static func storedEdges(
        of owner: UInt64, in table: Table, txn: borrowing WriteTransaction
    ) throws -> [(value: [UInt8], rank: UInt64, target: UInt64)] {
        try txn.edges(of: owner, in: table).map { edge in
            (EntryLayout.edgeValue(owner: owner, rank: edge.rank, target: edge.target), edge.rank, edge.target)
        }
    }

    /// An edge list by its table and owner row.
    struct ListKey: Hashable {
        let table: UInt32
        let owner: UInt64
    }

    /// The targets an edge list was written with, hashed when there are many.
    struct WrittenList {
        let rows: [UInt64]
        let set: Set<UInt64>?
        init(_ rows: [UInt64]) {
            self.rows = rows
            set = rows.count > 16 ? Set(rows) : nil
        }
        func contains(_ row: UInt64) -> Bool { set?.contains(row) ?? rows.contains(row) }
    }

    /// Makes the stored inverse edges agree with every relationship list this save rewrote.
    ///
    /// A context rewrites a relationship from what it has in memory, which may predate another
    /// context's save: the old target of a to-one that another context set, or a target another
    /// context deleted, is not among the models this context changed. So, inside the write
    /// transaction, the stored state is made symmetric again, the rewritten lists winning: an owner
    /// is removed from the inverse of every target it no longer has, and added to the inverse of
    /// every target it has (a to-one inverse that pointed elsewhere is moved, and the row it
    /// pointed at loses its edge to the target). A target whose row is gone, or deleted in this
    /// save, is dropped from the list.
    func repairInverses(
        of rewritten: [RewrittenList],
        deleted: Set<PersistentIdentifier>, history: inout ChangeLog, repaired: inout [PersistentIdentifier],
        txn: borrowing WriteTransaction
    ) throws {
        // The edge lists this transaction wrote, as written: a target whose inverse list was
        // written with the owner in it needs no read (inserted graphs are consistent in memory,
        // and reading every target's edges back cost more than writing them). Any list the
        // repair below changes is dropped from here, so it is read from the store again.
        var written: [ListKey: WrittenList] = [:]
        written.reserveCapacity(rewritten.count)
        for entry in rewritten { written[ListKey(table: entry.table.handle, owner: entry.owner)] = WrittenList(entry.new) }
        func removeEdge(_ table: Table, owner: UInt64, target: UInt64, entity: InternedName, field: Int) throws {
            written[ListKey(table: table.handle, owner: owner)] = nil
            for edge in try Self.storedEdges(of: owner, in: table, txn: txn) where edge.target == target {
                _ = try txn.delete(EntryLayout.rowKey(owner), value: edge.value, in: table)
                history.record(.edges, entity, owner, field: field)
                // The row id names the class of a row of a hierarchy (`Store+Hierarchy.swift`).
                let concrete = store.entitiesByName[entity]?.tables(forRow: owner)?.entityName ?? entity
                repaired.append(
                    PersistentIdentifier(entity: concrete, store: store.internedIdentifier, rowID: owner))
            }
        }
        for list in rewritten {
            let (relationship, table, owner, old, new) = (list.relationship, list.table, list.owner, list.old, list.new)
            guard let side = list.ownerTables.inverses[relationship.index] else { continue }
            let (destination, inverse, inverseTable) = (side.destination, side.inverse, side.table)
            if !old.isEmpty {
                let kept = Set(new)
                for target in old where !kept.contains(target) {
                    try removeEdge(
                        inverseTable, owner: target, target: owner, entity: relationship.internedDestination,
                        field: inverse.index)
                }
            }
            for target in new {
                let targetID = PersistentIdentifier(
                    entity: destination.concrete(forRow: target).entityName,
                    store: store.internedIdentifier, rowID: target)
                let isDeleted = !deleted.isEmpty && deleted.contains(targetID)
                if !isDeleted, written[ListKey(table: inverseTable.handle, owner: target)]?.contains(owner) == true {
                    continue
                }
                guard !isDeleted, try txn.contains(EntryLayout.rowKey(target), in: destination.layout.records)
                else {
                    try removeEdge(
                        table, owner: owner, target: target, entity: inverse.internedDestination,
                        field: relationship.index)
                    continue
                }
                let edges = try Self.storedEdges(of: target, in: inverseTable, txn: txn)
                if edges.contains(where: { $0.target == owner }) { continue }
                written[ListKey(table: inverseTable.handle, owner: target)] = nil
                if inverse.isToOneRelationship {
                    // The target's to-one pointed at another row: that row no longer has the target.
                    for edge in edges {
                        _ = try txn.delete(EntryLayout.rowKey(target), value: edge.value, in: inverseTable)
                        try removeEdge(
                            table, owner: edge.target, target: target, entity: inverse.internedDestination,
                            field: relationship.index)
                    }
                    try txn.put(
                        EntryLayout.edgeValue(owner: target, rank: 0, target: owner), for: EntryLayout.rowKey(target),
                        in: inverseTable, options: .appendDuplicate)
                    repaired.append(targetID)
                } else {
                    let rank = edges.last.map { $0.rank + 1 } ?? 0
                    try txn.put(
                        EntryLayout.edgeValue(owner: target, rank: rank, target: owner),
                        for: EntryLayout.rowKey(target),
                        in: inverseTable, options: .appendDuplicate)
                    repaired.append(targetID)
                }
            }
        }
    }
}

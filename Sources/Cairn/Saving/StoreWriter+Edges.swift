extension StoreWriter {
    /// Relationship lists: each list the save changed is written whole (the owner's old edges
    /// read, noted for the inverse repair, and removed first), and the history names the rows
    /// whose relationships other contexts may hold stale.
    func writeEdgeLists(
        _ plan: borrowing SavePlan, _ rows: RowResolver, history: inout ChangeLog, rewritten: inout [RewrittenList],
        _ txn: borrowing WriteTransaction
    ) throws {
        // Made once: an option-set literal is built by generic code each time it is spelt.
        let appendingKey = PutOptions.append.union(.appendDuplicate)
        let edgeTargets = plan.edgeTargets
        // Each kind's plain values, read once, so that no list retains and releases the kind's
        // references. The fields the history names: the relationship on its owner, its inverse
        // on the targets.
        let kinds = plan.edgeKinds.map {
            (
                table: $0.table, destination: $0.relationship.internedDestination, owner: $0.ownerTables.entityName,
                field: $0.relationship.index,
                inverseField: $0.ownerTables.inverses[$0.relationship.index]?.inverse.index ?? -1
            )
        }
        for list in plan.edgeLists {
            let kind = kinds[list.kind]
            let owner = try rows.row(list.owner)
            let ownerIsAppended = rows.isAppended(list.owner)
            // A row appended by this transaction has no edges yet: nothing to read or remove.
            var old: [UInt64] = []
            if !ownerIsAppended {
                old = try txn.edges(of: owner, in: kind.table).map(\.target)
                try txn.delete(EntryLayout.rowKey(owner), in: kind.table)
            }
            // The targets the repair looks at. Between two rows appended by this transaction there
            // is nothing to repair: no other context has seen either, and the context wrote both
            // sides from its own graph, which it keeps in step. So an appended owner's list names
            // only its stored targets there (none, in a graph saved for the first time, which then
            // costs the repair nothing).
            var new: [UInt64] = []
            if !ownerIsAppended { new.reserveCapacity(list.targets.count) }
            // A row appended by this transaction is new to every other context, so its edges are
            // news to none (its insertion is recorded).
            let destination = kind.destination
            // The key on the stack, so that no owner costs an allocation.
            try EntryLayout.withRowKey(owner) { key in
                for (rank, reference) in edgeTargets[list.targets].enumerated() {
                    let target = try rows.row(reference)
                    _ = try EntryLayout.withEdgeValue(owner: owner, rank: UInt64(rank), target: target) { edge in
                        // An appended owner's key is past every key of the table (appended rows
                        // ascend): its first edge is appended without a search, unless the table
                        // says otherwise.
                        if rank == 0 && ownerIsAppended, try txn.put(edge, for: key, in: kind.table, options: appendingKey) {
                            return true
                        }
                        return try txn.put(edge, for: key, in: kind.table, options: .appendDuplicate)
                    }
                    let targetIsAppended = rows.isAppended(reference)
                    if !ownerIsAppended || !targetIsAppended { new.append(target) }
                    if !targetIsAppended { history.record(.edges, destination, target, field: kind.inverseField) }
                }
            }
            if !ownerIsAppended || !new.isEmpty {
                let full = plan.edgeKinds[list.kind]
                rewritten.append(RewrittenList(full.relationship, of: full.ownerTables, kind.table, owner, old, new))
            }
            if !ownerIsAppended { history.record(.edges, kind.owner, owner, field: kind.field) }
            for target in old { history.record(.edges, destination, target, field: kind.inverseField) }
        }
    }
}

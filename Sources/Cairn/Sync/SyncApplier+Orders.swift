import CairnSyncProtocol

extension SyncApplier {
    /// Puts each list whose order or members this apply changed in the one order every replica
    /// gives it (`Docs/Sync.md`, "Lists"): first the members the newest order written names, as
    /// it names them; then the others by the stamps of their links' writes, then by identifier.
    /// A list whose newest order is this replica's, collected and not pushed yet, stays as the
    /// app left it: that order is pushed as the newest, and the others follow it.
    func reorderLists() throws {
        let wanted = reorders
        reorders = [:]
        for (owner, names) in wanted {
            guard let state = states[owner], state.deleted == nil, let entity = schema.entities[state.entity],
                let model = models[owner] ?? model(of: owner, state: state, entity: entity)
            else { continue }
            for name in names {
                // The newest write of the order is this replica's own, not pushed yet: left as it is.
                let ownPending = state.stamp(of: name).map { state.orders[name]?.stamp != $0 } ?? false
                guard let (relationship, inverse) = entity.orders[name], !ownPending else { continue }
                if try reorder(model, relationship, inverse: inverse, by: state.orders[name]?.value) {
                    linked.append((owner, relationship))
                }
            }
        }
    }

    /// Sets `relationship` of `model` to its members in the agreed order; `false` when they
    /// stand in it already.
    private func reorder(
        _ model: any PersistentModel, _ relationship: Schema.Relationship, inverse: String, by order: FieldValue?
    ) throws -> Bool {
        let members = context.rows.loadedTargets(relationship, of: model)
        guard members.count > 1 else { return false }
        var rank: [SyncID: Int] = [:]
        if case .references(let named)? = order {
            for (position, id) in named.enumerated() where rank[resolved(id)] == nil { rank[resolved(id)] = position }
        }
        let keys = try sortKeys(of: members, inverse: inverse)
        let sorted = members.indices.sorted { left, right in
            let (a, b) = (keys[left], keys[right])
            let (rankA, rankB) = (a.id.flatMap { rank[$0] } ?? Int.max, b.id.flatMap { rank[$0] } ?? Int.max)
            if rankA != rankB { return rankA < rankB }
            if a.stamp != b.stamp { return Self.precedes(a.stamp, b.stamp) }
            if a.id != b.id { return Self.precedes(a.id, b.id) }
            return left < right
        }
        guard sorted != Array(members.indices) else { return false }
        relationship.access.set(model, sorted.map { members[$0] })
        return true
    }

    /// Each member's global identifier and the stamp of its link's last write (`nil` for a
    /// member that has none yet, which stands after the others).
    private func sortKeys(of members: [any PersistentModel], inverse: String) throws -> [(id: SyncID?, stamp: SyncStamp?)] {
        let (store, tables) = (store, self.tables)
        return try store.read { txn in
            try members.map { member -> (id: SyncID?, stamp: SyncStamp?) in
                let persistentID = member.persistentModelID
                var id = insertedRows[persistentID]
                if id == nil, let row = persistentID.rowID, let entity = store.entitiesByName[persistentID.entity] {
                    id = try tables.identifier(of: row, in: entity.concrete(forRow: row), txn)
                }
                guard let id else { return (nil, nil) }
                let state = try states[id] ?? tables.rowState(id, txn)
                return (id, state?.stamp(of: inverse))
            }
        }
    }

    /// `nil` last.
    private static func precedes<Value: Comparable>(_ a: Value?, _ b: Value?) -> Bool {
        switch (a, b) {
        case (let a?, let b?): a < b
        case (.some, nil): true
        default: false
        }
    }
}

import Foundation

extension SavePlanner {
    /// Applies the uniqueness constraints to the inserts, changes and deletes of a save (see
    /// ``UniquenessPlanner``), reading stored rows through the loader.
    func planUniqueness(
        inserted: InsertedModels, changed: [any PersistentModel], deletes: SavePlanner.DeletePlan
    ) throws -> UniquenessPlan {
        let planner = UniquenessPlanner(
            store: store,
            storedKeys: { [store, rows] wanted in
                guard !wanted.isEmpty else { return [] }
                return try store.read { txn in
                    try wanted.map { try UniquenessPlanner.storedKeys(row: $0.row, tables: $0.tables, reading: rows, in: txn) }
                }
            },
            releasedRelationships: { model, row, tables in
                try self.releasedRelationships(of: model, takingOver: row, tables: tables)
            })
        return try planner.plan(inserted: inserted, changed: changed, deleted: deletes.deletedSaved)
    }

    /// A relationship that the inserted model sets replaces the stored row's; the models the row
    /// pointed at through it drop the row from their inverse.
    private func releasedRelationships(
        of model: any PersistentModel, takingOver row: UInt64, tables: Store.EntityTables
    ) throws -> [UniquenessPlan.Release] {
        var released: [UniquenessPlan.Release] = []
        let relating = tables.entity.relationships.filter { !$0.access.targets(model).isEmpty }
        guard !relating.isEmpty else { return [] }
        let rowModel = rows.modelOrFault(
            PersistentIdentifier(
                entityName: tables.entity.name, storeIdentifier: store.identifier, rowID: row))
        for relationship in relating {
            guard let inverseName = relationship.inverseName,
                let inverse = store.entity(named: relationship.destination).relationshipsByName[inverseName]
            else { continue }
            let oldTargets: [any PersistentModel]
            if rowModel === model {
                oldTargets = []
            } else {
                oldTargets = rows.loadedTargets(relationship, of: rowModel)
            }
            let kept = Set(relationship.access.targets(model).map { ObjectIdentifier($0) })
            for target in oldTargets where !kept.contains(ObjectIdentifier(target)) {
                released.append(
                    (target, inverse, rows.loadedTargets(inverse, of: target).filter { $0 !== rowModel }))
            }
        }
        return released
    }
}

import Foundation

extension ModelContext {
    /// Applies the uniqueness constraints to the inserts, changes and deletes of a save (see
    /// ``UniquenessPlanner``), reading stored rows through this context.
    func planUniqueness(
        inserted: InsertedModels, changed: [any PersistentModel], deletes: SavePlanner.DeletePlan
    ) throws -> UniquenessPlan {
        let planner = UniquenessPlanner(
            store: container.store,
            storedKeys: { row, tables in try self.storedKeys(row: row, tables: tables) },
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
        let rowModel = registeredOrFault(
            PersistentIdentifier(
                entityName: tables.entity.name, storeIdentifier: container.store.identifier, rowID: row))
        for relationship in relating {
            guard let inverseName = relationship.inverseName,
                let inverse = entity(named: relationship.destination).relationshipsByName[inverseName]
            else { continue }
            let oldTargets: [any PersistentModel]
            if rowModel === model {
                oldTargets = []
            } else {
                oldTargets = loadedTargets(relationship, of: rowModel)
            }
            let kept = Set(relationship.access.targets(model).map { ObjectIdentifier($0) })
            for target in oldTargets where !kept.contains(ObjectIdentifier(target)) {
                released.append((target, inverse, loadedTargets(inverse, of: target).filter { $0 !== rowModel }))
            }
        }
        return released
    }

    /// The keys a stored row has in each of its entity's uniqueness constraints, from its record.
    func storedKeys(row: UInt64, tables: Store.EntityTables) throws -> [[UInt8]] {
        try container.store.environment.read { txn in try storedKeys(row: row, tables: tables, in: txn) }
    }

    /// The same, reading in an open transaction.
    func storedKeys(row: UInt64, tables: Store.EntityTables, in txn: borrowing ReadTransaction) throws -> [[UInt8]] {
        guard let stored = try rows.storedModel(row: row, tables: tables, in: txn) else {
            return tables.uniques.map { _ in [] }
        }
        return tables.uniques.map { $0.key(of: stored) }
    }
}

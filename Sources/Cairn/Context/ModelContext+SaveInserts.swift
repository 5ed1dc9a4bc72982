import Foundation

extension ModelContext {
    /// Saves a context whose only changes are new plain models in one pass, and returns `true`;
    /// returns `false`, having changed nothing, when the general ``save()`` is needed.
    ///
    /// Plain means: no relationship targets (so no edges, inverses or counts to check), no
    /// external storage, and no unique value already stored or repeated among the new models (so
    /// no row is taken over and none superseded). Most imports look like that, and the general
    /// save's planning passes (deletes, uniqueness, indexes, edges, counts) cost tens of
    /// thousands of instructions per model with nothing to do. The outcome is the general save's:
    /// the same rows, keys, history, notifications and identifiers; a test compares the two.
    func saveInsertsInOnePass() throws -> Bool {
        guard allowsOnePassSave, changedModelsArray.isEmpty, deletedModelsArray.isEmpty else { return false }
        let inserted = insertedModelsArray
        guard !inserted.isEmpty else { return false }
        let store = container.store
        var prepared:
            [(tables: Store.EntityTables, record: EncodedRecord, uniqueKeys: [[UInt8]], indexKeys: [[UInt8]])] = []
        prepared.reserveCapacity(inserted.count)
        var claimed: Set<KeySlot> = []
        for model in inserted {
            let tables = store.tables(of: model)
            guard tables.externalAttributes.isEmpty,
                tables.entity.relationships.allSatisfy({ relationship in
                    (relationship.isToOneRelationship || relationship.minimumModelCount == nil)
                        && !relationship.access.hasTargets(model)
                })
            else { return false }
            let uniqueKeys = tables.uniques.map { $0.key(of: model) }
            for (unique, key) in zip(tables.uniques, uniqueKeys) {
                // Two new models with the same unique values: the later supersedes the earlier.
                guard claimed.insert(KeySlot(unique.table, key)).inserted else { return false }
            }
            prepared.append((tables, try record(of: model), uniqueKeys, tables.indexes.map { $0.key(of: model) }))
        }
        // A stored model with the same unique values is taken over: the general save does that.
        if !claimed.isEmpty {
            let taken = try store.environment.read { txn in
                try prepared.contains { item in
                    try zip(item.tables.uniques, item.uniqueKeys).contains { unique, key in
                        try txn.uniqueRow(for: key, in: unique.table) != nil
                    }
                }
            }
            if taken { return false }
        }
        onePassSaves += 1
        post(Self.willSave, inserted: inserted, updated: [], deleted: [])

        var plan = SavePlan()
        for (position, item) in prepared.enumerated() {
            plan.newRows.append(SavePlan.NewRow(tables: item.tables, record: item.record, takesOver: nil))
            let model = inserted[position]
            for (unique, key) in zip(item.tables.uniques, item.uniqueKeys) {
                plan.uniqueClaims.append(
                    SavePlan.UniqueClaim(
                        table: unique.table, key: key, row: .new(position), identifier: model.persistentModelID))
            }
            for (index, key) in zip(item.tables.indexes, item.indexKeys) {
                plan.indexAdditions.append(SavePlan.KeyEntry(table: index.table, key: key, row: .new(position)))
            }
        }
        let outcome = try StoreWriter(store: store).write(plan)
        let (rowIDs, commit) = (outcome.newRows, outcome.commit)
        didSave(inserted: inserted, rowIDs: rowIDs, changed: [], plan: DeletePlan(), uniqueness: UniquenessPlan())
        noteOwnCommit(commit)
        for (model, item) in zip(inserted, prepared) {
            model._$modelState.recordChecksum = item.record.contentChecksum
        }
        post(Self.didSave, inserted: inserted, updated: [], deleted: [])
        checkInvariantsAfterSave()
        return true
    }
}

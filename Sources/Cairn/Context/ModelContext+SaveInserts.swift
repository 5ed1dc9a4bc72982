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
        // The plan is built as the models are checked; it is dropped if one is not plain.
        var plan = SavePlan()
        plan.newRows.reserveCapacity(inserted.count)
        var claimed: Set<KeySlot> = []
        for (position, model) in inserted.enumerated() {
            let tables = store.tables(of: model)
            guard tables.externalAttributes.isEmpty,
                tables.entity.relationships.allSatisfy({ relationship in
                    (relationship.isToOneRelationship || relationship.minimumModelCount == nil)
                        && !relationship.access.hasTargets(model)
                })
            else { return false }
            for unique in tables.uniques {
                let key = unique.key(of: model)
                // Two new models with the same unique values: the later supersedes the earlier.
                guard claimed.insert(KeySlot(unique.table, key)).inserted else { return false }
                plan.uniqueClaims.append(
                    SavePlan.UniqueClaim(
                        table: unique.table, key: key, row: .new(position), identifier: model.persistentModelID))
            }
            for index in tables.indexes {
                plan.indexAdditions.append(
                    SavePlan.KeyEntry(table: index.table, key: index.key(of: model), row: .new(position)))
            }
            plan.newRows.append(SavePlan.NewRow(tables: tables, record: try record(of: model), takesOver: nil))
        }
        // A stored model with the same unique values is taken over: the general save does that.
        if !plan.uniqueClaims.isEmpty {
            let taken = try store.environment.read { txn in
                try plan.uniqueClaims.contains { claim in try txn.uniqueRow(for: claim.key, in: claim.table) != nil }
            }
            if taken { return false }
        }
        onePassSaves += 1
        post(Self.willSave, inserted: inserted, updated: [], deleted: [])
        let outcome = try StoreWriter(store: store).write(plan)
        let (rowIDs, commit) = (outcome.newRows, outcome.commit)
        didSave(inserted: inserted, rowIDs: rowIDs, changed: [], plan: DeletePlan(), uniqueness: UniquenessPlan())
        noteOwnCommit(commit)
        for (model, new) in zip(inserted, plan.newRows) {
            model._$modelState.recordChecksum = new.record.contentChecksum
        }
        post(Self.didSave, inserted: inserted, updated: [], deleted: [])
        checkInvariantsAfterSave()
        return true
    }
}

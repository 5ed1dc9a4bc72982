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

        var expectedBytes = 0
        for item in prepared {
            expectedBytes &+= item.record.count &+ 60
            for key in item.uniqueKeys + item.indexKeys { expectedBytes &+= key.count &+ 40 }
        }
        let (rowIDs, commit) = try store.environment.write(expectedBytes: expectedBytes) {
            txn -> ([UInt64], UInt64) in
            // This closure may run again after the map grows, so it only reads its inputs.
            var appender = RowAppender()
            var rows: [UInt64] = []
            rows.reserveCapacity(prepared.count)
            var history = History()
            for (position, model) in inserted.enumerated() {
                let tables = prepared[position].tables
                let entity = tables.entity.name
                let row = try appender.append(&prepared[position].record, to: tables, meta: store.meta, txn: txn)
                let item = prepared[position]
                for (unique, uniqueKey) in zip(tables.uniques, item.uniqueKeys) {
                    let value = EntryLayout.keyedValue(row: row, key: uniqueKey)
                    guard try txn.put(value, for: uniqueKey, in: unique.table, options: .noOverwrite) else {
                        // Another process stored the same unique values since the read above.
                        throw SaveError(
                            code: .uniquenessViolated,
                            message: "Another writer stored a \(entity) with the same unique values "
                                + "while this save was prepared. Save again to update that model instead.",
                            models: [model.persistentModelID])
                    }
                }
                for (index, indexKey) in zip(tables.indexes, item.indexKeys) {
                    try txn.put(EntryLayout.keyedValue(row: row, key: indexKey), for: indexKey, in: index.table)
                }
                history.record(.inserted, entity, row)
                rows.append(row)
            }
            try appender.writeCounters(meta: store.meta, txn: txn)
            if let table = store.history {
                try history.write(commit: txn.id, history: table, meta: store.meta, txn: txn)
            }
            return (rows, txn.id)
        }
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

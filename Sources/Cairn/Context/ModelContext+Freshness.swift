import Foundation

// Pull-based freshness (ARCHITECTURE §5): every save writes which rows it touched to the `h`
// table under its commit id. Before a fetch or a fault, a context compares the store's last
// commit id with the newest it has taken into account and, when other contexts or processes have
// committed since, reads their entries and makes the models it holds without unsaved changes
// stale: updated rows unload their attributes, rows whose edges changed unload their
// relationships, and deleted rows become deleted models. The next read of a stale property loads
// it from the store. Models with unsaved changes keep them: the last save wins.

extension ModelContext {
    /// Records a commit this context made, so its own changes are not taken for another's.
    func noteOwnCommit(_ commit: UInt64) {
        if commit == lastSeenCommit + 1 {
            lastSeenCommit = commit
        } else {
            ownCommits.insert(commit)
        }
    }

    /// Takes into account what other contexts and processes committed since this context last
    /// looked; cheap when nothing was committed (one read of the lock file's counter).
    func refreshIfNeeded() {
        let current = UInt64(store.environment.info.lastTransactionID)
        guard current > lastSeenCommit else { return }
        let seen = lastSeenCommit
        lastSeenCommit = current
        defer { ownCommits = ownCommits.filter { $0 > current } }
        guard let table = store.history else { return refreshEverything() }
        let found = try? store.environment.read { txn -> [History.Entry]? in
            let floor = try txn.get(History.floorKey, in: store.meta).map(Self.number) ?? 0
            guard seen + 1 >= floor else { return nil }  // entries were dropped: refresh all
            var entries: [History.Entry] = []
            var damaged = false
            try txn.scan(table, KeyRange(from: .exclusive(Self.rowKey(seen)), to: .inclusive(Self.rowKey(current)))) {
                key, value in
                let commit = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                guard !ownCommits.contains(commit) else { return true }
                guard let decoded = History.decode(value) else {
                    damaged = true
                    return false
                }
                entries += decoded
                return true
            }
            return damaged ? nil : entries
        }
        guard let entries = found ?? nil else { return refreshEverything() }
        for entry in entries {
            let id = PersistentIdentifier(entityName: entry.entity, storeIdentifier: store.identifier, rowID: entry.row)
            guard let model = registrations[id]?.live, !model.hasChanges,
                let tables = store.entities[entry.entity]
            else { continue }
            switch entry.kind {
            case .inserted: continue
            case .updated: makeAttributesStale(model, tables: tables)
            case .edges: makeRelationshipsStale(model, tables: tables)
            case .deleted: markDeletedElsewhere(model, tables: tables)
            }
        }
    }

    /// Makes every registered model without unsaved changes stale, when the history cannot say
    /// which changed. Deleted rows are found when a stale model next loads.
    private func refreshEverything() {
        for model in registrations.values.compactMap(\.live) where !model.hasChanges {
            guard let tables = store.entities[model.persistentModelID.entityName] else { continue }
            makeAttributesStale(model, tables: tables)
            makeRelationshipsStale(model, tables: tables)
        }
    }

    private func makeAttributesStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        for (_, access) in tables.encodingOrder { access.unload(model) }
        for (_, (_, access)) in tables.externalAttributes { access.unload(model) }
        model._$modelState.recordChecksum = nil
    }

    private func makeRelationshipsStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        for relationship in tables.entity.relationships where relationship.access.isLoaded(model) {
            relationship.access.unload(model)
        }
    }

    /// A model whose row another context deleted: it leaves the identity map and its context,
    /// reports `isDeleted`, keeps the values it has loaded, and reads every other attribute as its
    /// placeholder (see ``AttributeAccess/fillPlaceholder``) and every relationship as empty.
    func markDeletedElsewhere(_ model: any PersistentModel, tables: Store.EntityTables) {
        let id = model.persistentModelID
        for (_, access) in tables.encodingOrder where !access.fillPlaceholder(model) {
            preconditionFailure(
                "\(id) was deleted by another context before all its attributes were read, and "
                    + "\(tables.entity.name) has an attribute without a default value whose type has no empty value. "
                    + "Give that attribute a default value.")
        }
        for (_, (_, access)) in tables.externalAttributes { _ = access.fillPlaceholder(model) }
        for relationship in tables.entity.relationships where !relationship.access.isLoaded(model) {
            relationship.access.load(model, [])
        }
        guard !model.hasChanges else { return }  // saving it writes it back: the last save wins
        registrations[id] = nil
        model._$modelState.isDeleted = true
        model._$modelState.loader = nil
    }
}

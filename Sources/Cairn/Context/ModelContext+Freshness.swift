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
    func noteOwnCommit(_ commit: UInt64) { commits.noteOwn(commit) }

    /// Takes into account what other contexts and processes committed since this context last
    /// looked; cheap when nothing was committed (one read of the lock file's counter).
    func refreshIfNeeded() {
        // The id comes from the data file's meta page as LMDB's size_t: a damaged page can make
        // it negative as an Int, which must not trap here (any change makes the context look).
        let lastCommit = UInt64(truncatingIfNeeded: store.environment.info.lastTransactionID)
        guard commits.hasUnseen(upTo: lastCommit) else { return }
        let seen = commits.lastSeen
        let tracker = commits
        guard let table = store.history else {
            if let current = try? store.environment.read({ txn in txn.id }) { commits.advance(to: current) }
            return refreshEverything()
        }
        // The read's own snapshot bounds what is taken into account: a commit the lock file
        // already counts but this snapshot does not include is left for the next refresh.
        var floorDamage: StorageError?
        let found = try? store.environment.read { txn -> (current: UInt64, entries: [History.Entry]?) in
            let changes = try History.changes(
                after: seen, skipping: tracker.isOwn, history: table, meta: store.meta, txn: txn)
            switch changes {
            case .entries(let entries): return (txn.id, entries)
            case .unknown: return (txn.id, nil)
            case .damagedFloor(let error):
                // Refresh everything once; the next refresh starts after this snapshot.
                floorDamage = error
                return (txn.id, nil)
            }
        }
        if let floorDamage { recordStoreDamage(floorDamage, what: "The store's history floor") }
        guard let found else { return }  // the store cannot be read now: try again next time
        commits.advance(to: found.current)
        guard let entries = found.entries else { return refreshEverything() }
        let deleted = Set(
            entries.filter { $0.kind == .deleted }.map {
                PersistentIdentifier(entity: $0.entity, store: store.internedIdentifier, rowID: $0.row)
            })
        for entry in entries {
            let id = PersistentIdentifier(entity: entry.entity, store: store.internedIdentifier, rowID: entry.row)
            guard let model = identity.model(for: id), let tables = store.entitiesByName[entry.entity] else { continue }
            if deleted.contains(id) {
                if entry.kind == .deleted { markDeletedElsewhere(model, tables: tables) }
                continue
            }
            switch entry.kind {
            case .inserted, .deleted: continue
            case .updated: makeAttributesStale(model, tables: tables)
            case .edges: makeRelationshipsStale(model, tables: tables)
            }
        }
    }

    /// Makes every saved model the context holds stale, when the history cannot say which
    /// changed. Deleted rows are found when a stale model next loads. Inserted models are not
    /// stored yet and keep everything.
    private func refreshEverything() {
        for model in identity.models where !model.persistentModelID.isTemporary {
            guard let tables = store.entitiesByName[model.persistentModelID.entity] else { continue }
            makeAttributesStale(model, tables: tables)
            makeRelationshipsStale(model, tables: tables)
        }
    }

    /// Unloads the attributes this context has not changed, so they load the stored values when
    /// next read. Changed attributes keep their unsaved values.
    func makeAttributesStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        let state = model._$modelState
        for attribute in tables.entity.attributes where !attribute.isTransient {
            guard let index = attribute.index, !state.isChanged(index), let access = attribute.access else { continue }
            access.unload(model)
        }
        model._$modelState.recordChecksum = nil
    }

    /// Unloads the relationships this context has not changed, so they load the stored edges.
    func makeRelationshipsStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        let state = model._$modelState
        for relationship in tables.entity.relationships
        where relationship.access.isLoaded(model) && !state.isChanged(relationship.index) {
            relationship.access.unload(model)
        }
    }

    /// A model whose row another context deleted leaves the identity map, reports `isDeleted`
    /// and keeps the values it has loaded; what it never loaded reads as a placeholder when first
    /// read (see `fulfill`). A model with unsaved changes stays: its save reports the conflict.
    func markDeletedElsewhere(_ model: any PersistentModel, tables: Store.EntityTables) {
        guard !model.hasChanges, !model.persistentModelID.isTemporary else { return }
        identity.remove(model.persistentModelID)
        model._$modelState.isDeleted = true
    }

    /// Loads the placeholder of property `index` of a model deleted elsewhere: an attribute's
    /// default or empty value, an empty relationship.
    func fillPlaceholder(_ model: any PersistentModel, _ index: Int, tables: Store.EntityTables) {
        if let relationship = tables.relationshipsByIndex[index] {
            relationship.access.load(model, [])
            return
        }
        guard let attribute = tables.entity.attributes.first(where: { $0.index == index }),
            let access = attribute.access,
            access.fillPlaceholder(model)
        else {
            preconditionFailure(
                "\(model.persistentModelID) was deleted by another context before its property #\(index) was read, and "
                    + "that property has no default value and its type no empty value. Give it a default value.")
        }
    }
}

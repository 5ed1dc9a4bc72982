import Foundation

/// Makes the models a context holds take other contexts' and processes' commits into account
/// (pull-based freshness, ARCHITECTURE §5): every save writes which rows it touched to the `h`
/// table under its commit id. When the store has commits the context's ``CommitTracker`` has not
/// seen, the refresher reads their entries and makes the models without unsaved changes stale:
/// updated rows unload their attributes, rows whose edges changed unload their relationships,
/// and deleted rows become deleted models. The next read of a stale property loads it from the
/// store. Models with unsaved changes keep them: the last save wins.
///
/// ```swift
/// var commits = CommitTracker(lastSeen: 4)
/// let damage = Refresher(store: context.store, rows: context.rows).catchUp(&commits)
/// commits.lastSeen   // the commit of the snapshot the entries were read in
/// ```
struct Refresher {
    let store: Store
    /// The context's row loader, whose identity map holds the models to refresh.
    let rows: RowLoader

    /// Takes into account what other contexts and processes committed after `commits.lastSeen`,
    /// and moves `commits` on to the snapshot it read.
    ///
    /// - Returns: The damage found in the store's history floor, for the context to report once;
    ///   every model was refreshed instead, which is correct, only slower.
    func catchUp(_ commits: inout CommitTracker) -> StorageError? {
        var invalidated: [PersistentIdentifier]?
        return catchUp(&commits, invalidated: &invalidated)
    }

    /// ``catchUp(_:)``, also saying, in `invalidated`, the identifiers of every saved model the
    /// context held when the history could not say what changed (the store was erased, or its
    /// history floor is damaged): all of them were refreshed, and those whose rows are gone are
    /// deleted models now. Left `nil` when the history said what changed.
    func catchUp(_ commits: inout CommitTracker, invalidated: inout [PersistentIdentifier]?) -> StorageError? {
        let seen = commits.lastSeen
        let tracker = commits
        guard let table = store.history else {
            if let current = try? store.read({ txn in txn.id }) { commits.advance(to: current) }
            invalidated = refreshEverything()
            return nil
        }
        // The read's own snapshot bounds what is taken into account: a commit the lock file
        // already counts but this snapshot does not include is left for the next refresh.
        var floorDamage: StorageError?
        let found = try? store.read { txn -> (current: UInt64, entries: [ChangeLog.Entry]?) in
            let changes = try ChangeLog.changes(
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
        guard let found else { return floorDamage }  // the store cannot be read now: try again next time
        commits.advance(to: found.current)
        guard let entries = found.entries else {
            invalidated = refreshEverything()
            return floorDamage
        }
        // An entry names a row by an entity of its hierarchy (an edge by the relationship's
        // destination); the row id names the class (`Store+Hierarchy.swift`).
        let resolved = entries.map { entry in
            (entry, store.entitiesByName[entry.entity]?.tables(forRow: entry.row))
        }
        let deleted = Set(
            resolved.filter { $0.0.kind == .deleted }.compactMap { entry, tables in
                tables.map {
                    PersistentIdentifier(entity: $0.entityName, store: store.internedIdentifier, rowID: entry.row)
                }
            })
        for (entry, tables) in resolved {
            guard let tables else { continue }
            let id = PersistentIdentifier(entity: tables.entityName, store: store.internedIdentifier, rowID: entry.row)
            guard let model = rows.identity.model(for: id) else { continue }
            if deleted.contains(id) {
                if entry.kind == .deleted { Self.markDeletedElsewhere(model, identity: &rows.identity) }
                continue
            }
            switch entry.kind {
            case .inserted, .deleted: continue
            case .updated: Self.makeAttributesStale(model, tables: tables)
            case .edges: Self.makeRelationshipsStale(model, tables: tables)
            }
        }
        return floorDamage
    }

    /// Makes every saved model the context holds stale, when the history cannot say which
    /// changed, and returns their identifiers. A model whose row is gone (an erased store) is a
    /// deleted model now; one whose row cannot be looked up is found when it next loads.
    /// Inserted models are not stored yet and keep everything.
    func refreshEverything() -> [PersistentIdentifier] {
        var refreshed: [(model: any PersistentModel, tables: Store.EntityTables)] = []
        for model in rows.identity.models where !model.persistentModelID.isTemporary {
            guard let tables = store.entitiesByName[model.persistentModelID.entity] else { continue }
            refreshed.append((model, tables))
            Self.makeAttributesStale(model, tables: tables)
            Self.makeRelationshipsStale(model, tables: tables)
        }
        // Which rows are gone, looked up in one read transaction (not one per model).
        let gone =
            (try? store.read { txn in
                try refreshed.indices.filter { position in
                    let (model, tables) = refreshed[position]
                    guard let row = model.persistentModelID.rowID else { return false }
                    return try !txn.contains(EntryLayout.rowKey(row), in: tables.layout.records)
                }
            }) ?? []
        for position in gone { Self.markDeletedElsewhere(refreshed[position].model, identity: &rows.identity) }
        return refreshed.map { $0.model.persistentModelID }
    }

    /// Unloads the attributes the context has not changed, so they load the stored values when
    /// next read. Changed attributes keep their unsaved values.
    static func makeAttributesStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        let state = model._$state
        // An ephemeral value has nothing stored to take: the context's value stays; a `let` never changes.
        for attribute in tables.entity.attributes
        where !attribute.isTransient && !attribute.isEphemeral && attribute.constant == nil {
            guard let index = attribute.index, !state.isChanged(index), let access = attribute.access else { continue }
            model._$changeObserved(attribute.keyPath, index) { access.unload(model) }
        }
        state.recordChecksum = nil
    }

    /// Unloads the relationships the context has not changed, so they load the stored edges.
    static func makeRelationshipsStale(_ model: any PersistentModel, tables: Store.EntityTables) {
        let state = model._$state
        for relationship in tables.entity.relationships
        where relationship.access.isLoaded(model) && !state.isChanged(relationship.index) {
            model._$changeObserved(relationship.keyPath, relationship.index) { relationship.access.unload(model) }
        }
    }

    /// Unloads every stored property of a model the context changed and forgets its changes, so
    /// it reads its stored values again when next read (a rollback).
    static func discardChanges(_ model: any PersistentModel, entity: Schema.Entity) {
        for property in entity.storedProperties {
            if let attribute = property as? Schema.Attribute, let index = attribute.index,
                let access = attribute.access,
                attribute.constant == nil
            {
                model._$changeObserved(attribute.keyPath, index) { access.unload(model) }
            } else if let relationship = property as? Schema.Relationship {
                model._$changeObserved(relationship.keyPath, relationship.index) { relationship.access.unload(model) }
            }
        }
        model._$state.clearChanges()
    }

    /// A model whose row another context deleted leaves the identity map, reports `isDeleted`
    /// and keeps the values it has loaded; what it never loaded reads as a placeholder when first
    /// read (``LoadFailures/fillPlaceholder(_:_:tables:)``). A model with unsaved changes stays:
    /// its save reports the conflict.
    static func markDeletedElsewhere(_ model: any PersistentModel, identity: inout IdentityMap) {
        guard !model.hasChanges, !model.persistentModelID.isTemporary else { return }
        identity.remove(model.persistentModelID)
        model._$state.isDeleted = true
    }
}

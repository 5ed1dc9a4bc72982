import Foundation

/// Makes a committed save visible in the context, the last stage of the save pipeline (planner →
/// writer → applier, `Docs/Saving.md`): new models get permanent identifiers, deleted ones (those
/// cascaded to included) leave the context, nullified inverses and other loaded relationships
/// drop the deleted models, every model loses its pending changes and notes the checksum of the
/// record it was saved as. It runs only after the transaction committed, so a failed save leaves
/// every model and the pending changes as they were.
///
/// ```swift
/// var planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
/// let outcome = try StoreWriter(store: context.store).write(&planned.plan)
/// let applied = SaveApplier(store: context.store, rows: context.rows)
///     .apply(planned, outcome, pending: &context.pending)
/// applied.inserted   // the permanent identifiers of the new rows, as didSave lists them
/// ```
struct SaveApplier {
    let store: Store
    /// The context's row loader, whose identity map the saved models join and the deleted leave.
    let rows: RowLoader

    /// What a save did with the inserted models, in the order they were saved (superseded ones
    /// left out): each one's row, and whether it got a new row, took a stored one over, or took
    /// over a row that already held its values (``SavePlan/NewRow/isLeftAloneWhenSame``).
    struct SavedInserts {
        enum Outcome { case inserted, tookOver, leftAlone }

        var models: [any PersistentModel] = []
        var rows: [UInt64] = []
        var outcomes: [Outcome] = []
    }

    /// What applying a save found: the identifiers `didSave` lists, and the inserts' outcomes.
    struct Applied {
        /// The inserted models that got new rows.
        var inserted: [PersistentIdentifier]
        /// The changed models, then the inserts that took over stored rows.
        var updated: [PersistentIdentifier]
        var saved: SavedInserts
    }

    /// Applies the committed save of `planned`, whose writer reported `outcome`, to its models
    /// and the identity map, and empties `pending`. The identifiers are gathered here, in the one
    /// pass over the models, which are far apart in memory.
    func apply(
        _ planned: SavePlanner.PlannedSave, _ outcome: SaveOutcome, pending: inout PendingChanges
    ) -> Applied {
        let (insertedIDs, takenOverIDs) = applyInserts(planned, outcome)
        for model in planned.superseded {
            rows.identity.remove(model.persistentModelID)
            Self.detach(model)
        }
        for (owner, relationship, targets) in planned.uniqueness.released { relationship.access.load(owner, targets) }
        for (model, update) in zip(planned.changed, planned.plan.updates) {
            let state = model._$state
            state.clearChanges()
            state.recordChecksum = planned.plan.updateRecords.contentChecksum(update.record)
        }
        applyDeletes(planned.deletes)
        pending.removeAll()
        // Rows whose edges the repair changed without this context having written them: their
        // loaded relationships load the stored edges again when next read.
        for id in outcome.repaired {
            if let model = rows.identity.model(for: id), let tables = store.entitiesByName[id.entity] {
                Refresher.makeRelationshipsStale(model, tables: tables)
            }
        }
        var outcomes = planned.plan.newRows.map { $0.takesOver == nil ? SavedInserts.Outcome.inserted : .tookOver }
        for position in outcome.leftAlone { outcomes[position] = .leftAlone }
        // Updated: the changed models, then the inserts that took over stored rows.
        return Applied(
            inserted: insertedIDs,
            updated: takenOverIDs.isEmpty ? planned.changedIdentifiers : planned.changedIdentifiers + takenOverIDs,
            saved: SavedInserts(models: planned.inserted, rows: outcome.newRows, outcomes: outcomes))
    }

    /// The inserted models get their rows' permanent identifiers, join the identity map, and hold
    /// what their rows hold.
    ///
    /// - Returns: The identifiers of the inserts that got new rows, and of those that took stored
    ///   rows over with other values (an update).
    private func applyInserts(
        _ planned: SavePlanner.PlannedSave, _ outcome: SaveOutcome
    ) -> (inserted: [PersistentIdentifier], tookOver: [PersistentIdentifier]) {
        let (inserted, insertedTables, written) = (planned.inserted, planned.insertedTables, planned.plan)
        let (rowIDs, leftAlone) = (outcome.newRows, outcome.leftAlone)
        var insertedIDs: [PersistentIdentifier] = []
        var takenOverIDs: [PersistentIdentifier] = []
        insertedIDs.reserveCapacity(inserted.count)
        var nextLeftAlone = 0
        for position in inserted.indices {
            let (model, tables, rowID) = (inserted[position], insertedTables[position], rowIDs[position])
            let state = model._$state
            let temporary = state.persistentIdentifier ?? model.persistentModelID
            let id = PersistentIdentifier(entity: temporary.entity, store: store.internedIdentifier, rowID: rowID)
            state.persistentIdentifier = id
            state.clearChanges()
            // The model now holds what its row holds.
            state.recordChecksum = written.newRecords.contentChecksum(position)
            if written.newRows[position].takesOver == nil {
                insertedIDs.append(id)
            } else if nextLeftAlone < leftAlone.count && leftAlone[nextLeftAlone] == position {
                nextLeftAlone += 1  // its row already held these values: not an update
            } else {
                takenOverIDs.append(id)
            }
            // A model that took over a stored row represents it from now on; an instance the
            // context had for that row is left out of the identity map.
            rows.identity.register(model, entity: tables.ordinal, row: rowID)
            if written.newRows[position].takesOver != nil {
                // Relationships it left empty kept the row's stored ones: load those when read.
                for relationship in store.entitiesByName[id.entity]!.entity.relationships
                where relationship.access.targets(model).isEmpty {
                    relationship.access.unload(model)
                }
            }
        }
        return (insertedIDs, takenOverIDs)
    }

    /// Nullified inverses and other loaded relationships drop the deleted models, which leave the
    /// context: a saved one reads as deleted, an insert as if it had never joined.
    private func applyDeletes(_ plan: SavePlanner.DeletePlan) {
        for (owner, relationship, targets) in plan.nullified where !plan.isDeleted(owner) {
            relationship.access.load(owner, targets)
        }
        if !plan.deleted.isEmpty {
            for model in rows.identity.models where !plan.isDeleted(model) {
                for relationship in store.entitiesByName[model.persistentModelID.entity]!.entity.relationships
                where relationship.access.isLoaded(model) {
                    let targets = relationship.access.targets(model)
                    if targets.contains(where: { plan.isDeleted($0) }) {
                        relationship.access.load(model, targets.filter { !plan.isDeleted($0) })
                    }
                }
            }
        }
        for model in plan.deleted {
            let id = model.persistentModelID
            rows.identity.remove(id)
            if id.isTemporary {
                Self.detach(model)
            } else {
                // A deleted model's relationships read as empty, as in SwiftData (a required to-one
                // keeps its target: it has no empty value).
                for relationship in store.entitiesByName[id.entity]!.entity.relationships
                where relationship.isOptional || !relationship.isToOneRelationship {
                    relationship.access.load(model, [])
                }
                let state = model._$state
                state.isDeleted = true
                state.clearChanges()
                state.detach()
            }
        }
    }

    /// Makes a model leave its context as if it had never joined: an insert that is rolled back,
    /// superseded, or deleted before it was saved.
    static func detach(_ model: any PersistentModel) {
        let state = model._$state
        state.detach()
        state.persistentIdentifier = nil
        state.clearChanges()
    }
}

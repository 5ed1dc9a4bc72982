import Foundation

extension ModelContext {
    /// Writes every inserted, changed and deleted model to the store in one transaction: all of it
    /// lands or none of it.
    ///
    /// Deletes follow the delete rules first: `.cascade` deletes the related models too,
    /// `.nullify` removes the deleted model from their inverse, `.deny` refuses the save while
    /// related models remain, `.noAction` leaves them as they are. Relationship counts are checked.
    /// Every record and edge is prepared before the transaction begins; new models get their row
    /// ids, and so their permanent identifiers, inside it. If the save fails, nothing is written
    /// and the context keeps all its changes, so you can fix the problem and save again.
    ///
    /// ```swift
    /// context.insert(book)
    /// author.name = "Thoreau"
    /// context.delete(oldEdition)
    /// try context.save()
    /// ```
    /// - Throws: ``SaveError`` when a delete is denied or a relationship count is out of range;
    ///   ``StorageError`` (`.readOnly`, `.diskFull`, `.maximumSizeReached`, `.unsupportedValue`, …);
    ///   ``FetchError`` (``FetchError/Code/loadFailed``) when a property could not be loaded since
    ///   the last save or fetch (see ``pendingLoadErrors``): nothing is written, and the errors are
    ///   cleared, so saving again writes the changes as they are.
    public func save() throws {
        _ = try saveChanges()
    }

    /// What a save did with the inserted models, in the order they were saved (superseded ones
    /// left out): each one's row, and whether it got a new row, took a stored one over, or took
    /// over a row that already held its values (``SavePlan/NewRow/isLeftAloneWhenSame``).
    struct SavedInserts {
        enum Outcome { case inserted, tookOver, leftAlone }

        var models: [any PersistentModel] = []
        var rows: [UInt64] = []
        var outcomes: [Outcome] = []
    }

    /// ``save()``, saying what became of the inserted models.
    func saveChanges() throws -> SavedInserts {
        checkOwner()
        try throwPendingLoadErrors()
        guard hasChanges else { return SavedInserts() }
        let store = container.store
        guard !store.isReadOnly else {
            throw StorageError(
                code: .readOnly,
                message: "The container was opened with allowsSave: false. Open it with allowsSave: true to save.")
        }
        let planned = try SavePlanner(context: self).plan()
        let (inserted, changed, plan, uniqueness) = (
            planned.inserted, planned.changed, planned.deletes, planned.uniqueness
        )
        post(
            Self.willSave, inserted: planned.newModels, updated: planned.updatedModels,
            deleted: plan.deleted.map(\.persistentModelID))
        let outcome = try StoreWriter(store: store).write(planned.plan)
        let (rowIDs, commit, repaired) = (outcome.newRows, outcome.commit, outcome.repaired)
        let deletedIDs = plan.deleted.map(\.persistentModelID)
        let saved = didSave(
            inserted: inserted, tables: planned.insertedTables, rowIDs: rowIDs, changed: changed,
            written: planned.plan, leftAlone: outcome.leftAlone, plan: plan, uniqueness: uniqueness)
        noteOwnCommit(commit)
        // Rows whose edges the repair changed without this context having written them: their
        // loaded relationships load the stored edges again when next read.
        for id in repaired {
            if let model = identity.model(for: id), let tables = store.entitiesByName[id.entity] {
                makeRelationshipsStale(model, tables: tables)
            }
        }
        post(Self.didSave, insertedIDs: saved.inserted, updatedIDs: saved.updated, deleted: deletedIDs)
        checkInvariantsAfterSave()
        var outcomes = planned.plan.newRows.map { $0.takesOver == nil ? SavedInserts.Outcome.inserted : .tookOver }
        for position in outcome.leftAlone { outcomes[position] = .leftAlone }
        return SavedInserts(models: inserted, rows: rowIDs, outcomes: outcomes)
    }
}

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
    ///   `StorageError` (`.readOnly`, `.diskFull`, `.maximumSizeReached`, `.unsupportedValue`, …);
    ///   ``FetchError`` (``FetchError/Code/loadFailed``) when a property could not be loaded since
    ///   the last save or fetch (see ``pendingLoadErrors``): nothing is written, and the errors are
    ///   cleared, so saving again writes the changes as they are. `StorageError.Code.notFlushed`
    ///   alone is thrown after the save was made: only flushing it to the drive failed.
    public func save() throws {
        _ = try saveChanges()
    }

    /// ``save()``, with writes that ride along in its transaction (sync's); with no changes to
    /// save, the attachment is written in a transaction of its own. Not for apps.
    ///
    /// ```swift
    /// try context.save(attaching: SaveAttachment { txn, saved in try recordPosition(txn) })
    /// ```
    package func save(attaching attachment: SaveAttachment) throws {
        _ = try saveChanges(attaching: attachment)
    }

    /// What a save did, for the context's own callers: what became of the inserted models, and
    /// the identifiers of every model it deleted (cascades included).
    struct SavedChanges {
        var inserts = SaveApplier.SavedInserts()
        var deleted: [PersistentIdentifier] = []
    }

    /// ``save()``, saying what became of the inserted models and what was deleted: the planner
    /// makes the plan, the writer carries it out in one transaction, the applier makes it
    /// visible in the context.
    func saveChanges(attaching attachment: SaveAttachment? = nil) throws -> SavedChanges {
        checkOwner()
        try rows.failures.throwPending()
        guard hasChanges else {
            if let attachment {
                try store.write(expectedBytes: 4_096) { txn in
                    try attachment.write(txn, SavedRows(inserted: [], deleted: []))
                }
            }
            return SavedChanges()
        }
        guard isChangingNoListInPlace else { throw SaveError.changeInProgress }
        let store = container.store
        guard !store.isReadOnly else {
            throw StorageError(
                code: .readOnly,
                message: "The container was opened with allowsSave: false. Open it with allowsSave: true to save.")
        }
        var planned = try SavePlanner(changes: changeSet, rows: rows).plan()
        planned.plan.attachment = attachment
        let deleted = planned.deletes.deleted.map(\.persistentModelID)
        SaveNotifier.post(
            Self.willSave, for: self, insertedIDs: planned.newIdentifiers, updatedIDs: planned.updatedIdentifiers,
            deleted: deleted)
        let outcome = try StoreWriter(store: store).write(&planned.plan)
        let applied = SaveApplier(store: store, rows: rows).apply(planned, outcome, pending: &pending)
        if let commit = outcome.commit { commits.noteOwn(commit) }
        SaveNotifier.post(
            Self.didSave, for: self, insertedIDs: applied.inserted, updatedIDs: applied.updated, deleted: deleted,
            generation: outcome.commit.map { DefaultHistoryToken(storeIdentifier: store.identifier, transaction: $0) })
        checkInvariantsAfterSave()
        // The save stands (every context sees it) though the drive may not hold it: say so.
        if let flushFailure = outcome.flushFailure { throw flushFailure }
        return SavedChanges(inserts: applied.saved, deleted: deleted)
    }
}

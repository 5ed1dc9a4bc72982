import Foundation

/// Carries out a ``SavePlan`` in one write transaction: the one place a save opens one.
///
/// The order inside the transaction is fixed: new rows (appended under the entity's next row ids,
/// or written over the rows they take over, unless such a row already holds the same bytes), and
/// the row counters; rewritten rows; deleted rows with their edges and external values; index
/// entries (old ones removed first); full-text postings; vector indexes; external values; unique
/// entries (kept ones checked, old ones freed, new ones claimed with no-overwrite, so a value
/// another writer claimed since the plan fails the save); relationship lists; the repair of
/// inverse edges; the history entry. The body only reads the plan and the store, so it can run again after the
/// map grows.
struct StoreWriter {
    let store: Store

    /// Writes `plan` and commits. The plan is `inout` because its new rows' records are sealed
    /// for their row keys in place: a copy of the plan shared each record with the caller's,
    /// and sealing then copied every record.
    ///
    /// - Throws: ``SaveError`` when a rewritten row is gone or a unique value was claimed meanwhile;
    ///   `StorageError` when the store cannot be written, or a relationship points at a model
    ///   that has no row. Nothing is written then.
    /// - Returns: The outcome, with ``SaveOutcome/flushFailure`` set when the commit stands but
    ///   could not be flushed.
    func write(_ plan: inout SavePlan) throws -> SaveOutcome {
        // The outcome of the transaction that committed (the body runs again after the map grows).
        var committed: SaveOutcome?
        do {
            return try transact(&plan) { committed = $0 }
        } catch let error as StorageError where error.code == .notFlushed {
            guard var outcome = committed else { throw error }
            outcome.flushFailure = error
            return outcome
        }
    }

    /// The transaction: each table family written by a method of its own, in the order the type's
    /// comment gives.
    private func transact(_ plan: inout SavePlan, noting: (SaveOutcome) -> Void) throws -> SaveOutcome {
        try store.write(expectedBytes: plan.expectedBytes) { txn in
            let (assigned, leftAlone) = try writeNewRows(&plan, txn)
            // The rows as constants from here: a variable read inside the methods below would go
            // through the runtime's exclusivity checks for every row named.
            let rows = RowResolver(assigned: assigned, newRows: plan.newRows)
            var history = ChangeLog(author: plan.author)
            try rewriteUpdates(plan, txn)
            // A deleted row's stored edges may include targets the plan never saw (another context
            // added them since): their inverse edges are removed by the repair below.
            var rewritten: [RewrittenList] = []
            try deleteRows(plan, history: &history, rewritten: &rewritten, txn)
            try writeIndexEntries(plan, rows, txn)
            try writeTextIndexes(plan, rows, txn)
            try writeVectorIndexes(plan, rows, txn)
            try writeExternalValues(&plan, rows, txn)
            try writeUniqueEntries(plan, rows, txn)
            try writeEdgeLists(plan, rows, history: &history, rewritten: &rewritten, txn)
            recordRows(
                plan, rows, leftAlone: leftAlone, unchangedLinks: Self.unchangedLinks(in: rewritten), in: &history)
            let deleted = Set(
                plan.deletes.map {
                    PersistentIdentifier(entity: $0.tables.entityName, store: store.internedIdentifier, rowID: $0.row)
                })
            var repaired: [PersistentIdentifier] = []
            try repairInverses(of: rewritten, deleted: deleted, history: &history, repaired: &repaired, txn: txn)
            if let attachment = plan.attachment {
                try attachment.write(txn, savedRows(plan, assigned: assigned, deleted: deleted))
            }
            try writeHistory(history, txn)
            // Every row written is in the history: with none (rows left alone, an insert deleted
            // before it was saved) and no attachment, the transaction wrote nothing, and LMDB
            // commits nothing.
            let wrote = !history.isEmpty || plan.attachment != nil
            let outcome = SaveOutcome(
                newRows: assigned, leftAlone: leftAlone, commit: wrote ? txn.id : nil, repaired: repaired)
            noting(outcome)
            return outcome
        }
    }

    /// What an attachment is told of the rows written.
    private func savedRows(_ plan: borrowing SavePlan, assigned: [UInt64], deleted: Set<PersistentIdentifier>) -> SavedRows {
        let inserted = zip(plan.newRowIdentifiers, zip(plan.newRows, assigned)).map { temporary, new in
            (temporary, PersistentIdentifier(entity: new.0.tables.entityName, store: store.internedIdentifier, rowID: new.1))
        }
        return SavedRows(inserted: inserted, deleted: Array(deleted))
    }

    /// The row ids of a plan's row references, once its new rows have theirs. A class: the
    /// writer's methods and their closures share one reference, where each copy of a struct of
    /// these arrays retained both.
    final class RowResolver {
        /// Each new row's id, by its position in ``SavePlan/newRows``.
        let assigned: [UInt64]
        let newRows: [SavePlan.NewRow]

        init(assigned: [UInt64], newRows: [SavePlan.NewRow]) {
            self.assigned = assigned
            self.newRows = newRows
        }

        func row(_ reference: SavePlan.RowReference) throws -> UInt64 {
            switch reference {
            case .stored(let row): return row
            case .new(let position): return assigned[position]
            case .missing(let type):
                throw StorageError(
                    code: .unsupportedValue,
                    message: "A relationship points at a \(type) that is not saved and was not inserted (it was "
                        + "deleted before it was ever saved). Remove it from the relationship, or insert it again.")
            }
        }

        /// Whether the reference is a row this transaction appends (not one an insert takes over).
        func isAppended(_ reference: SavePlan.RowReference) -> Bool {
            guard case .new(let position) = reference else { return false }
            return newRows[position].takesOver == nil
        }
    }

    /// Records: new rows appended under their entity's next ids, or written over the rows they
    /// take over (left alone when the stored bytes are the same), and the row counters.
    ///
    /// - Returns: Each new row's id by position, and the positions of rows left alone.
    private func writeNewRows(
        _ plan: inout SavePlan, _ txn: borrowing WriteTransaction
    ) throws -> (assigned: [UInt64], leftAlone: [Int]) {
        var rows = RowAppender()
        var assigned: [UInt64] = []
        var leftAlone: [Int] = []
        assigned.reserveCapacity(plan.newRows.count)
        for position in plan.newRows.indices {
            // A new row's record is at the row's own position in `newRecords`.
            let tables = plan.newRows[position].tables
            if let takenOver = plan.newRows[position].takesOver {
                // Equal bytes under the same key: the stored record is intact and holds these
                // values. A row gone meanwhile is written anew. The key on the stack.
                let rewrite = try EntryLayout.withRowKey(takenOver) { key in
                    plan.newRecords.seal(position, forKey: key)
                    if !tables.codec.foreignTags.isEmpty,
                        let rewrite = try rewriteKeepingForeignFields(
                            of: tables, record: position, in: plan.newRecords, key: key, txn)
                    {
                        return rewrite
                    }
                    return try plan.newRecords.withRecord(position) { bytes in
                        let rewrite = try txn.rewrite(bytes, for: key, in: tables.layout.records)
                        if rewrite == .missing { _ = try txn.put(bytes, for: key, in: tables.layout.records) }
                        return rewrite
                    }
                }
                if rewrite == .unchanged && plan.newRows[position].isLeftAloneWhenSame {
                    leftAlone.append(position)
                }
                assigned.append(takenOver)
            } else {
                assigned.append(try rows.append(position, of: &plan.newRecords, to: tables, meta: store.meta, txn: txn))
            }
        }
        try rows.writeCounters(meta: store.meta, txn: txn)
        return (assigned, leftAlone)
    }

    /// Records of changed rows. A record with the same bytes under the same key holds the same
    /// values (the checksum covers the key): the row is left as it is, one search for both.
    ///
    /// - Throws: ``SaveError`` `.modelDeletedElsewhere` naming every changed row that is gone.
    private func rewriteUpdates(_ plan: borrowing SavePlan, _ txn: borrowing WriteTransaction) throws {
        var gone: [PersistentIdentifier] = []
        for update in plan.updates {
            // The key on the stack, so that no changed model costs an allocation.
            let rewrite = try EntryLayout.withRowKey(update.row) { key in
                if !update.tables.codec.foreignTags.isEmpty,
                    let rewrite = try rewriteKeepingForeignFields(
                        of: update.tables, record: update.record, in: plan.updateRecords, key: key, txn)
                {
                    return rewrite
                }
                // A changed model's record: not read back to tell whether it is the same (in an
                // encrypted store that read is a decryption).
                return try plan.updateRecords.withRecord(update.record) { bytes in
                    try txn.rewrite(bytes, for: key, in: update.tables.layout.records, detectingUnchanged: false)
                }
            }
            if rewrite == .missing {
                gone.append(
                    PersistentIdentifier(entity: update.tables.entityName, store: store.internedIdentifier, rowID: update.row))
            }
        }
        if !gone.isEmpty { throw SaveError.deletedElsewhere(gone) }
    }

    /// Deleted rows: their records (a tombstone of the preserved fields kept for the history),
    /// their edge lists (noted for the inverse repair) and their external values.
    private func deleteRows(
        _ plan: borrowing SavePlan, history: inout ChangeLog, rewritten: inout [RewrittenList],
        _ txn: borrowing WriteTransaction
    ) throws {
        for (tables, deleted) in plan.deletes {
            let key = EntryLayout.rowKey(deleted)
            if !tables.codec.preservedTags.isEmpty, let tombstone = try Self.tombstone(of: tables, key: key, txn) {
                history.recordTombstone(tables.entityName, deleted, record: tombstone)
            }
            try txn.delete(key, in: tables.layout.records)
            for (name, table) in tables.layout.edges {
                if let relationship = tables.entity.relationshipsByName[name] {
                    let old = try txn.edges(of: deleted, in: table).map(\.target)
                    if !old.isEmpty {
                        rewritten.append(RewrittenList(relationship, of: tables, table, deleted, old, []))
                    }
                }
                try txn.delete(key, in: table)
            }
            for (tag, _) in tables.codec.externalAttributes.values {
                try txn.delete(EntryLayout.externalKey(row: deleted, tag: tag), in: tables.layout.externals!)
            }
        }
    }

    /// Index entries: old ones removed, then new ones added.
    private func writeIndexEntries(
        _ plan: borrowing SavePlan, _ rows: RowResolver, _ txn: borrowing WriteTransaction
    ) throws {
        for removal in plan.indexRemovals {
            try txn.delete(
                removal.key, value: EntryLayout.keyedValue(row: removal.row, key: removal.key), in: removal.table)
        }
        for entry in plan.indexAdditions {
            let value = EntryLayout.keyedValue(row: try rows.row(entry.row), key: entry.key)
            try txn.put(value, for: entry.key, in: entry.table)
        }
    }

    /// Full-text postings: each index's changes merged into its blocks, their rows resolved.
    private func writeTextIndexes(
        _ plan: borrowing SavePlan, _ rows: RowResolver, _ txn: borrowing WriteTransaction
    ) throws {
        for text in plan.texts {
            try text.changes.write(
                to: text.index.table, storedTerm: text.index.storedTerm, resolve: { try rows.row(text.documents[Int($0)]) },
                in: txn)
        }
    }

    /// Vector indexes: each index's removed nodes unlinked, then its new vectors linked in.
    private func writeVectorIndexes(
        _ plan: borrowing SavePlan, _ rows: RowResolver, _ txn: borrowing WriteTransaction
    ) throws {
        for changes in plan.vectors {
            var editor = try VectorGraphEditor(table: changes.index.table, distance: changes.index.distance, in: txn)
            for row in changes.removals { try editor.remove(row: try rows.row(row), in: txn) }
            for (row, vector) in changes.additions {
                try editor.insert(row: try rows.row(row), vector: vector, in: txn)
            }
            try editor.write(in: txn)
        }
    }

    /// External values (`.externalStorage` attributes), each under its row and tag (sealed for
    /// its key in place, hence the `inout` plan).
    private func writeExternalValues(
        _ plan: inout SavePlan, _ rows: RowResolver, _ txn: borrowing WriteTransaction
    ) throws {
        for position in plan.externals.indices {
            let external = plan.externals[position]
            let key = EntryLayout.externalKey(row: try rows.row(external.owner), tag: external.tag)
            try txn.put(plan.externals[position].value.sealed(forKey: key), for: key, in: external.table)
        }
    }

    /// Unique entries: kept ones checked (unless nothing was committed since the plan read them),
    /// freed ones removed while they still name the row that freed them, new ones claimed with
    /// no-overwrite.
    ///
    /// - Throws: ``SaveError`` `.uniquenessViolated` when another writer claimed a value since
    ///   the save was planned.
    private func writeUniqueEntries(
        _ plan: borrowing SavePlan, _ rows: RowResolver, _ txn: borrowing WriteTransaction
    ) throws {
        if !plan.keptKeys.isEmpty && plan.readSnapshot.map({ txn.id != $0 &+ 1 }) ?? true {
            for kept in plan.keptKeys
            where try plan.uniqueKeys.withKey(kept.key, { try txn.uniqueRow(for: $0, in: kept.table) }) != kept.row {
                throw SaveError.claimedMeanwhile(kept.identifier)
            }
        }
        for freed in plan.uniqueFreed { try txn.removeUniqueEntry(for: freed.key, naming: freed.row, in: freed.table) }
        // Keys claimed in ascending order (new rows' ids, say) are appended at the end of their
        // table without a search, as long as each is past the table's last key; the first that
        // is not is put the usual way, and so is every later one in that table.
        var searchesIn: Set<UInt32> = []
        for claim in plan.uniqueClaims {
            let claimRow = try rows.row(claim.row)
            let claimed = try plan.uniqueKeys.withKey(claim.key) { key in
                try EntryLayout.withKeyedValue(row: claimRow, key: key) { value in
                    let table = claim.table
                    if !searchesIn.contains(table.handle) {
                        if try txn.put(value, for: key, in: table, options: .append) { return true }
                        searchesIn.insert(table.handle)
                    }
                    return try txn.put(value, for: key, in: table, options: .noOverwrite)
                }
            }
            guard claimed else {
                throw SaveError.claimedMeanwhile(plan.identifier(of: claim, store: store.internedIdentifier))
            }
        }
    }

    /// The relationships, by owner row, whose edges the save rewrote exactly as they were: a
    /// member's inverse taken away and given back within one save (a list changed in place,
    /// `books.insert(books.removeLast(), at: 0)`), which is no change of that member's link.
    private static func unchangedLinks(in rewritten: [RewrittenList]) -> [UInt64: [Int]] {
        var unchanged: [UInt64: [Int]] = [:]
        for list in rewritten where list.old == list.new {
            unchanged[list.owner, default: []].append(list.relationship.index)
        }
        return unchanged
    }

    /// The history of the rows written: inserted, taken over (every attribute may have changed),
    /// updated with their changed fields (less the links ``unchangedLinks(in:)`` found as they
    /// were, so that sync does not take them for the app's writes), deleted.
    private func recordRows(
        _ plan: borrowing SavePlan, _ rows: RowResolver, leftAlone: [Int], unchangedLinks: [UInt64: [Int]],
        in history: inout ChangeLog
    ) {
        var nextLeftAlone = 0
        for (position, new) in plan.newRows.enumerated() {
            if nextLeftAlone < leftAlone.count && leftAlone[nextLeftAlone] == position {
                nextLeftAlone += 1
                continue
            }
            if new.takesOver == nil {
                history.record(.inserted, new.tables.entityName, rows.assigned[position])
            } else {
                history.record(.updated, new.tables.entityName, rows.assigned[position], fields: new.tables.layout.attributeBits)
            }
        }
        for update in plan.updates {
            var fields = update.changed
            for index in unchangedLinks[update.row] ?? [] { fields.remove(index) }
            history.record(.updated, update.tables.entityName, update.row, fields: fields)
        }
        for (tables, deleted) in plan.deletes { history.record(.deleted, tables.entityName, deleted) }
    }

    /// The commit's history entry, when it changed anything.
    private func writeHistory(_ history: borrowing ChangeLog, _ txn: borrowing WriteTransaction) throws {
        guard let table = store.history, !history.isEmpty else { return }
        let store = store
        try history.write(commit: txn.id, history: table, meta: store.meta, txn: txn) { entity, index in
            store.entitiesByName[entity].flatMap { index < $0.layout.propertyNames.count ? $0.layout.propertyNames[index] : nil }
        }
    }
}

extension StoreWriter {
    /// The history tombstone of the row under `key` about to be deleted: a record of its
    /// `.preserveValueOnDeletion` fields, or `nil` when the row is gone or cannot be read (a
    /// damaged record has no values to keep; the deletion goes ahead).
    @inline(never)
    static func tombstone(
        of tables: Store.EntityTables, key: [UInt8], _ txn: borrowing WriteTransaction
    ) throws -> [UInt8]? {
        guard let stored = try txn.get(key, in: tables.layout.records),
            let reader = try? RecordReader(stored, key: key)
        else { return nil }
        var writer = RecordWriter()
        for tag in tables.codec.preservedTags {
            if let payload = reader.payload(tag: tag) { writer.write(payload: payload, tag: tag) }
        }
        return writer.finished()
    }

    /// Record `record` of `records` (a row of `tables`, sealed for `key`) with the fields of the
    /// stored one that the schema has no attribute for (``Store/EntityTables/foreignTags``:
    /// written by another version of the app), or `nil` when the stored record carries none (or
    /// is gone, or cannot be read: a damaged record has nothing to keep), so the record is
    /// written as it is.
    /// Rewrites the row under `key` with record `record` of `records` and the stored record's
    /// fields the schema does not know (``keepingForeignFields(of:record:in:key:_:)``); `nil`, having
    /// written nothing, when there are none to keep. Out of line: the writer's transaction closure
    /// stays as small as it was, and the compiler inlines in it what it did before.
    @inline(never)
    fileprivate func rewriteKeepingForeignFields(
        of tables: Store.EntityTables, record: Int, in records: RecordList, key: UnsafeRawBufferPointer,
        _ txn: borrowing WriteTransaction
    ) throws -> WriteTransaction.Rewrite? {
        guard var merged = try keepingForeignFields(of: tables, record: record, in: records, key: key, txn) else {
            return nil
        }
        merged.seal(forKey: key)
        return try merged.bytes.withUnsafeBytes { try txn.rewrite($0, for: key, in: tables.layout.records) }
    }

    private func keepingForeignFields(
        of tables: Store.EntityTables, record: Int, in records: RecordList, key: UnsafeRawBufferPointer,
        _ txn: borrowing WriteTransaction
    ) throws -> EncodedRecord? {
        guard
            let stored = try? txn.withValue(for: key, in: tables.layout.records, { try RecordReader(copying: $0, key: key) })
        else { return nil }
        let new = try records.withRecord(record) { try RecordReader(copying: $0, key: key) }
        return new.merging(kept: tables.codec.foreignTags, from: stored)
    }
}

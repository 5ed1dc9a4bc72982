import Foundation

/// Carries out a ``SavePlan`` in one write transaction: the one place a save opens one.
///
/// The order inside the transaction is fixed: new rows (appended under the entity's next row ids,
/// or written over the rows they take over), upserts, and the row counters; rewritten rows; deleted rows with
/// their edges and external values; index entries (old ones removed first); external values;
/// unique entries (old ones freed first, new ones claimed with no-overwrite, so a value another
/// writer claimed since the plan fails the save); relationship lists; the repair of inverse edges;
/// the history entry. The body only reads the plan and the store, so it can run again after the
/// map grows.
struct StoreWriter {
    let store: Store

    /// Writes `plan` and commits.
    ///
    /// - Throws: ``SaveError`` when a rewritten row is gone or a unique value was claimed meanwhile;
    ///   ``StorageError`` when the store cannot be written, or a relationship points at a model
    ///   that has no row. Nothing is written then.
    func write(_ plan: SavePlan) throws -> SaveOutcome {
        var plan = plan
        return try store.environment.write(expectedBytes: plan.expectedBytes) { txn in
            var rows = RowAppender()
            var assigned: [UInt64] = []
            assigned.reserveCapacity(plan.newRows.count)
            for position in plan.newRows.indices {
                let tables = plan.newRows[position].tables
                if let takenOver = plan.newRows[position].takesOver {
                    try txn.put(
                        plan.newRows[position].record.sealed(forRow: takenOver), for: EntryLayout.rowKey(takenOver),
                        in: tables.records)
                    assigned.append(takenOver)
                } else {
                    assigned.append(
                        try rows.append(&plan.newRows[position].record, to: tables, meta: store.meta, txn: txn))
                }
            }
            var history = History()
            // Nothing was committed since the upserts' rows were read: they are as read.
            let asRead = plan.readSnapshot.map { txn.id == $0 &+ 1 } ?? false
            var upserted: [SaveOutcome.Upserted] = []
            if let target = plan.upsertTarget {
                upserted.reserveCapacity(plan.upserts.count)
                for position in plan.upserts.indices {
                    upserted.append(
                        try upsert(
                            &plan.upserts[position], of: target, asRead: asRead, rows: &rows, history: &history,
                            txn: txn))
                }
            }
            try rows.writeCounters(meta: store.meta, txn: txn)
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
            func isAppended(_ reference: SavePlan.RowReference) -> Bool {
                guard case .new(let position) = reference else { return false }
                return plan.newRows[position].takesOver == nil
            }
            var gone: [PersistentIdentifier] = []
            for update in plan.updates {
                let key = EntryLayout.rowKey(update.row)
                // A record with the same bytes under the same key holds the same values (the
                // checksum covers the key): the row is left as it is.
                let unchanged = try txn.withValue(for: key, in: update.tables.records) { stored in
                    update.record.bytes.withUnsafeBytes { bytes in
                        bytes.count == stored.count
                            && (bytes.isEmpty || memcmp(bytes.baseAddress!, stored.baseAddress!, bytes.count) == 0)
                    }
                }
                guard let unchanged else {
                    gone.append(update.identifier)
                    continue
                }
                if !unchanged { try txn.put(update.record.bytes, for: key, in: update.tables.records) }
            }
            if !gone.isEmpty { throw SaveError.deletedElsewhere(gone) }
            // A deleted row's stored edges may include targets the plan never saw (another context
            // added them since): their inverse edges are removed by the repair below.
            var rewritten: [RewrittenList] = []
            for (tables, deleted) in plan.deletes {
                let key = EntryLayout.rowKey(deleted)
                try txn.delete(key, in: tables.records)
                for (name, table) in tables.edges {
                    if let relationship = tables.entity.relationshipsByName[name] {
                        let old = try txn.edges(of: deleted, in: table).map(\.target)
                        if !old.isEmpty {
                            rewritten.append(RewrittenList(relationship, of: tables, table, deleted, old, []))
                        }
                    }
                    try txn.delete(key, in: table)
                }
                for (tag, _) in tables.externalAttributes.values {
                    try txn.delete(EntryLayout.externalKey(row: deleted, tag: tag), in: tables.externals!)
                }
            }
            for removal in plan.indexRemovals {
                try txn.delete(
                    removal.key, value: EntryLayout.keyedValue(row: removal.row, key: removal.key), in: removal.table)
            }
            for entry in plan.indexAdditions {
                let value = EntryLayout.keyedValue(row: try row(entry.row), key: entry.key)
                try txn.put(value, for: entry.key, in: entry.table)
            }
            for position in plan.externals.indices {
                let external = plan.externals[position]
                let key = EntryLayout.externalKey(row: try row(external.owner), tag: external.tag)
                try txn.put(plan.externals[position].value.sealed(forKey: key), for: key, in: external.table)
            }
            for (table, key) in plan.uniqueFreed { try txn.delete(key, in: table) }
            for claim in plan.uniqueClaims {
                let claimed = try EntryLayout.withKeyedValue(row: try row(claim.row), key: claim.key) { value in
                    try claim.key.withUnsafeBytes { key in
                        try txn.put(value, for: key, in: claim.table, options: .noOverwrite)
                    }
                }
                guard claimed else {
                    // Another process stored the same unique values since the save was planned.
                    throw SaveError(
                        code: .uniquenessViolated,
                        message: "Another writer stored a \(claim.identifier.entityName) with the same unique values "
                            + "while this save was prepared. Save again to update that model instead.",
                        models: [claim.identifier])
                }
            }
            for (position, new) in plan.newRows.enumerated() {
                history.record(new.takesOver == nil ? .inserted : .updated, new.tables.entityName, assigned[position])
            }
            for update in plan.updates { history.record(.updated, update.tables.entityName, update.row) }
            for (tables, deleted) in plan.deletes { history.record(.deleted, tables.entityName, deleted) }
            for list in plan.edgeLists {
                let owner = try row(list.owner)
                let ownerKey = EntryLayout.rowKey(owner)
                // A row appended by this transaction has no edges yet: nothing to read or remove.
                var old: [UInt64] = []
                if !isAppended(list.owner) {
                    old = try txn.edges(of: owner, in: list.table).map(\.target)
                    try txn.delete(ownerKey, in: list.table)
                }
                var new: [UInt64] = []
                new.reserveCapacity(list.targets.count)
                try ownerKey.withUnsafeBytes { key in
                    for (rank, reference) in list.targets.enumerated() {
                        let target = try row(reference)
                        _ = try EntryLayout.withEdgeValue(owner: owner, rank: UInt64(rank), target: target) { edge in
                            try txn.put(edge, for: key, in: list.table, options: .appendDuplicate)
                        }
                        new.append(target)
                    }
                }
                rewritten.append(RewrittenList(list.relationship, of: list.ownerTables, list.table, owner, old, new))
                history.record(.edges, list.ownerTables.entityName, owner)
                for target in old { history.record(.edges, list.relationship.internedDestination, target) }
                for target in new { history.record(.edges, list.relationship.internedDestination, target) }
            }
            let deleted = Set(
                plan.deletes.map {
                    PersistentIdentifier(entity: $0.tables.entityName, store: store.internedIdentifier, rowID: $0.row)
                })
            var repaired: [PersistentIdentifier] = []
            try repairInverses(of: rewritten, deleted: deleted, history: &history, repaired: &repaired, txn: txn)
            if let table = store.history, !history.isEmpty {
                try history.write(commit: txn.id, history: table, meta: store.meta, txn: txn)
            }
            return SaveOutcome(newRows: assigned, upserts: upserted, commit: txn.id, repaired: repaired)
        }
    }

    /// Matches an upsert's key to a row as the transaction sees it, and writes what differs.
    private func upsert(
        _ upsert: inout SavePlan.Upsert, of group: SavePlan.UpsertTarget, asRead: Bool, rows: inout RowAppender,
        history: inout History, txn: borrowing WriteTransaction
    ) throws -> SaveOutcome.Upserted {
        let tables = group.tables
        let found = asRead ? upsert.found?.row : try txn.uniqueRow(for: upsert.key, in: group.unique.table)
        guard let row = found else {
            let row = try rows.append(&upsert.record, to: tables, meta: store.meta, txn: txn)
            try txn.put(EntryLayout.keyedValue(row: row, key: upsert.key), for: upsert.key, in: group.unique.table)
            for (index, key) in zip(tables.indexes, upsert.indexKeys) {
                try txn.put(EntryLayout.keyedValue(row: row, key: key), for: key, in: index.table)
            }
            history.record(.inserted, tables.entityName, row)
            return .inserted(row)
        }
        let key = EntryLayout.rowKey(row)
        let old = asRead ? upsert.found?.record : try txn.get(key, in: tables.records)
        let record = upsert.record.sealed(forRow: row)
        // Equal bytes under the same key: the stored record is intact and holds these values.
        if old == record { return .unchanged(row) }
        try txn.put(record, for: key, in: tables.records)
        if !tables.indexes.isEmpty {
            let oldKeys = try old.map { try group.storedIndexKeys(RecordReader($0, key: key)) }
            for (position, index) in tables.indexes.enumerated() {
                let newKey = upsert.indexKeys[position]
                if let oldKey = oldKeys?[position] {
                    if oldKey == newKey { continue }
                    _ = try txn.delete(oldKey, value: EntryLayout.keyedValue(row: row, key: oldKey), in: index.table)
                }
                try txn.put(EntryLayout.keyedValue(row: row, key: newKey), for: newKey, in: index.table)
            }
        }
        history.record(.updated, tables.entityName, row)
        return .updated(row)
    }
}

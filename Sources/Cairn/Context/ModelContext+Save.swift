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
        checkOwner()
        try throwPendingLoadErrors()
        guard hasChanges else { return }
        let store = container.store
        guard !store.isReadOnly else {
            throw StorageError(
                code: .readOnly,
                message: "The container was opened with allowsSave: false. Open it with allowsSave: true to save.")
        }
        if try saveInsertsInOnePass() { return }
        // Everything is prepared before the transaction: no encoding, and no reads of the store
        // through faults, may happen inside it. Nothing in memory changes until it commits.
        // Partly loaded changed models (propertiesToFetch, faults) are completed first: their
        // unique keys and records need every attribute.
        let deleting = Set(deletedModelsArray.map(\.persistentModelID))
        var deletedElsewhere: [PersistentIdentifier] = []
        for model in changedModelsArray where !deleting.contains(model.persistentModelID) {
            let id = model.persistentModelID
            guard let rowID = id.rowID, let tables = store.entities[id.entityName] else { continue }
            if tables.encodingOrder.contains(where: { !$0.access.isLoaded(model) }) {
                do {
                    try load(model, rowID: rowID, tables: tables)
                } catch let error as StorageError where error.code == .notFound {
                    deletedElsewhere.append(id)
                }
            }
        }
        if !deletedElsewhere.isEmpty { throw SaveError.deletedElsewhere(deletedElsewhere) }
        let plan = try planDeletes()
        let candidates = insertedModelsArray.filter { !plan.isDeleted($0) }
        let uniqueness = try planUniqueness(
            inserted: candidates, changed: changedModelsArray.filter { !plan.isDeleted($0) }, deletes: plan)
        let inserted = candidates.filter { !uniqueness.superseded.contains(ObjectIdentifier($0)) }
        // A stored model whose row an insert takes over gives way to it.
        let takenOver = Set(
            inserted.compactMap { model in
                uniqueness.takeovers[ObjectIdentifier(model)].map {
                    PersistentIdentifier(
                        entityName: model.persistentModelID.entityName, storeIdentifier: store.identifier, rowID: $0)
                }
            })
        let changed = changedModelsArray.filter { !plan.isDeleted($0) && !takenOver.contains($0.persistentModelID) }

        // Records are sealed for their row keys in the transaction, where new rows get their ids.
        var insertRecords: [(tables: Store.EntityTables, record: EncodedRecord)] = []
        insertRecords.reserveCapacity(inserted.count)
        for model in inserted {
            insertRecords.append((store.tables(of: model), try record(of: model)))
        }
        var updateRecords: [(table: Table, key: [UInt8], record: EncodedRecord)] = []
        for model in changed {
            let id = model.persistentModelID
            let tables = store.entities[id.entityName]!
            // A partly loaded model is completed first, so its record is written whole.
            if tables.encodingOrder.contains(where: { !$0.access.isLoaded(model) }) {
                try load(model, rowID: id.rowID!, tables: tables)
            }
            var record = try record(of: model)
            let key = EntryLayout.rowKey(id.rowID!)
            record.seal(forKey: key)
            updateRecords.append((tables.records, key, record))
        }
        // The relationships to write: every one of an inserted model, the changed ones of a
        // changed model, and the inverses the deletes nullify. Each is rewritten whole, in its
        // order, without the deleted models.
        var edgeWrites:
            [(
                table: Table, owner: any PersistentModel, targets: [any PersistentModel],
                relationship: Schema.Relationship
            )] =
                []
        var finalTargets:
            [(owner: any PersistentModel, relationship: Schema.Relationship, targets: [any PersistentModel])] = []
        for model in inserted + changed {
            let tables = store.tables(of: model)
            let isNew = model.persistentModelID.isTemporary
            for relationship in tables.entity.relationships
            where isNew || model._$modelState.isChanged(relationship.index) {
                if isNew && !relationship.access.hasTargets(model) {
                    finalTargets.append((model, relationship, []))
                    continue
                }
                let targets = relationship.access.targets(model).filter { !plan.isDeleted($0) }
                finalTargets.append((model, relationship, targets))
                guard !(isNew && targets.isEmpty) else { continue }
                edgeWrites.append((tables.edges[relationship.name]!, model, targets, relationship))
            }
        }
        for (owner, relationship, targets) in plan.nullified + uniqueness.released where !plan.isDeleted(owner) {
            let table = store.tables(of: owner).edges[relationship.name]!
            edgeWrites.append((table, owner, targets, relationship))
            finalTargets.append((owner, relationship, targets))
        }
        try checkCounts(finalTargets)
        // Planning read relationships through getters: one that failed to load read as empty, so
        // the plan (cascades, inverses) may be wrong. Nothing is written then.
        try throwPendingLoadErrors()
        let (indexRemovals, indexAdditions) = try planIndexes(
            inserted: inserted, changed: changed, deleted: plan.deletedSaved, takeovers: uniqueness.takeovers)
        // External-storage values: all of an inserted model, the changed ones of a changed model.
        var externalWrites: [(table: Table, owner: any PersistentModel, tag: UInt32, value: EncodedRecord)] = []
        for model in inserted + changed {
            let tables = store.tables(of: model)
            let isNew = model.persistentModelID.isTemporary
            for (index, (tag, access)) in tables.externalAttributes.sorted(by: { $0.key < $1.key })
            where isNew || model._$modelState.isChanged(index) {
                var writer = RecordWriter()
                try access.encode(model, tag, &writer)
                externalWrites.append((tables.externals!, model, tag, writer.encoded()))
            }
        }
        // An insert that takes over a stored row updates that row.
        let isTakeover = { (model: any PersistentModel) in uniqueness.takeovers[ObjectIdentifier(model)] != nil }
        let newModels = uniqueness.takeovers.isEmpty ? inserted : inserted.filter { !isTakeover($0) }
        let updatedModels = uniqueness.takeovers.isEmpty ? changed : changed + inserted.filter(isTakeover)
        post(Self.willSave, inserted: newModels, updated: updatedModels, deleted: plan.deleted.map(\.persistentModelID))

        // About what the transaction puts (records, keys, edges, history), so the map grows once
        // ahead of a large save instead of filling up and starting over at each doubling.
        var expectedBytes = 0
        for written in insertRecords { expectedBytes &+= written.record.count &+ 40 }
        for written in updateRecords { expectedBytes &+= written.record.count &+ 40 }
        for (_, key, _) in indexAdditions { expectedBytes &+= key.count &+ 40 }
        for claim in uniqueness.claimed { expectedBytes &+= claim.key.count &+ 40 }
        for write in edgeWrites { expectedBytes &+= 40 &* (write.targets.count &+ 1) }
        for write in externalWrites { expectedBytes &+= write.value.count &+ 40 }
        let (rowIDs, commit, repaired): ([UInt64], UInt64, [PersistentIdentifier]) = try store.environment.write(
            expectedBytes: expectedBytes
        ) { txn in
            // This closure may run again after the map grows, so it only reads its inputs.
            var rows = RowAppender()
            var assigned: [UInt64] = []
            var assignedByModel: [ObjectIdentifier: UInt64] = [:]
            assigned.reserveCapacity(insertRecords.count)
            assignedByModel.reserveCapacity(insertRecords.count)
            for (position, model) in inserted.enumerated() {
                let tables = insertRecords[position].tables
                let row: UInt64
                if let takenOver = uniqueness.takeovers[ObjectIdentifier(model)] {
                    try txn.put(
                        insertRecords[position].record.sealed(forRow: takenOver), for: EntryLayout.rowKey(takenOver),
                        in: tables.records)
                    row = takenOver
                } else {
                    row = try rows.append(&insertRecords[position].record, to: tables, meta: store.meta, txn: txn)
                }
                assigned.append(row)
                assignedByModel[ObjectIdentifier(model)] = row
            }
            try rows.writeCounters(meta: store.meta, txn: txn)
            var gone: [PersistentIdentifier] = []
            for ((table, key, record), model) in zip(updateRecords, changed) {
                guard try txn.contains(key, in: table) else {
                    gone.append(model.persistentModelID)
                    continue
                }
                try txn.put(record.bytes, for: key, in: table)
            }
            if !gone.isEmpty { throw SaveError.deletedElsewhere(gone) }
            // A deleted row's stored edges may include targets this context never saw (another
            // context added them since): their inverse edges are removed by the repair below.
            var deletedEdges: [(relationship: Schema.Relationship, table: Table, owner: UInt64, old: [UInt64])] = []
            for model in plan.deletedSaved {
                let tables = store.tables(of: model)
                let row = model.persistentModelID.rowID!
                let key = EntryLayout.rowKey(row)
                try txn.delete(key, in: tables.records)
                for (name, table) in tables.edges {
                    if let relationship = tables.entity.relationshipsByName[name] {
                        let old = try txn.edges(of: row, in: table).map(\.target)
                        if !old.isEmpty { deletedEdges.append((relationship, table, row, old)) }
                    }
                    try txn.delete(key, in: table)
                }
                for (tag, _) in tables.externalAttributes.values {
                    try txn.delete(
                        EntryLayout.externalKey(row: model.persistentModelID.rowID!, tag: tag),
                        in: tables.externals!)
                }
            }
            func rowID(of model: any PersistentModel) throws -> UInt64 {
                if let rowID = model._$modelState.persistentIdentifier?.rowID
                    ?? assignedByModel[ObjectIdentifier(model)]
                {
                    return rowID
                }
                throw StorageError(
                    code: .unsupportedValue,
                    message: "A relationship points at a \(type(of: model)) that is not saved and was not inserted "
                        + "(it was deleted before it was ever saved). Remove it from the relationship, or insert it again."
                )
            }
            for (table, key, row) in indexRemovals {
                try txn.delete(key, value: EntryLayout.keyedValue(row: row, key: key), in: table)
            }
            for (table, key, model) in indexAdditions {
                try txn.put(EntryLayout.keyedValue(row: try rowID(of: model), key: key), for: key, in: table)
            }
            for position in externalWrites.indices {
                let (table, owner, tag, _) = externalWrites[position]
                let key = EntryLayout.externalKey(row: try rowID(of: owner), tag: tag)
                try txn.put(externalWrites[position].value.sealed(forKey: key), for: key, in: table)
            }
            for (table, key) in uniqueness.freed { try txn.delete(key, in: table) }
            for (table, key, model) in uniqueness.claimed {
                guard
                    try txn.put(
                        EntryLayout.keyedValue(row: try rowID(of: model), key: key), for: key, in: table,
                        options: .noOverwrite)
                else {
                    // Another process stored the same unique values since the save was planned.
                    throw SaveError(
                        code: .uniquenessViolated,
                        message:
                            "Another writer stored a \(model.persistentModelID.entityName) with the same unique values "
                            + "while this save was prepared. Save again to update that model instead.",
                        models: [model.persistentModelID])
                }
            }
            var rewritten:
                [(relationship: Schema.Relationship, table: Table, owner: UInt64, old: [UInt64], new: [UInt64])] =
                    deletedEdges.map { ($0.relationship, $0.table, $0.owner, $0.old, []) }
            var history = History()
            for (model, row) in zip(inserted, assigned) {
                let taken = uniqueness.takeovers[ObjectIdentifier(model)] != nil
                history.record(taken ? .updated : .inserted, model.persistentModelID.entityName, row)
            }
            for model in changed {
                history.record(.updated, model.persistentModelID.entityName, model.persistentModelID.rowID!)
            }
            for model in plan.deletedSaved {
                history.record(.deleted, model.persistentModelID.entityName, model.persistentModelID.rowID!)
            }
            for (table, owner, targets, relationship) in edgeWrites {
                let ownerRow = try rowID(of: owner)
                let ownerKey = EntryLayout.rowKey(ownerRow)
                let old = try txn.edges(of: ownerRow, in: table).map(\.target)
                try txn.delete(ownerKey, in: table)
                var new: [UInt64] = []
                for (rank, target) in targets.enumerated() {
                    let targetRow = try rowID(of: target)
                    let edge = EntryLayout.edgeValue(owner: ownerRow, rank: UInt64(rank), target: targetRow)
                    try txn.put(edge, for: ownerKey, in: table, options: .appendDuplicate)
                    new.append(targetRow)
                }
                rewritten.append((relationship, table, ownerRow, old, new))
                history.record(.edges, owner.persistentModelID.entityName, ownerRow)
                for target in old + new { history.record(.edges, relationship.destination, target) }
            }
            var repaired: [PersistentIdentifier] = []
            try repairInverses(
                of: rewritten, deleted: Set(plan.deletedSaved.map(\.persistentModelID)), history: &history,
                repaired: &repaired, txn: txn)
            if let table = store.history {
                try history.write(commit: txn.id, history: table, meta: store.meta, txn: txn)
            }
            return (assigned, txn.id, repaired)
        }
        let deletedIDs = plan.deleted.map(\.persistentModelID)
        didSave(inserted: inserted, rowIDs: rowIDs, changed: changed, plan: plan, uniqueness: uniqueness)
        noteOwnCommit(commit)
        // Rows whose edges the repair changed without this context having written them: their
        // loaded relationships load the stored edges again when next read.
        for id in repaired {
            if let model = identity.model(for: id), let tables = store.entities[id.entityName] {
                makeRelationshipsStale(model, tables: tables)
            }
        }
        // The models now hold what their rows hold.
        for (model, written) in zip(inserted, insertRecords) {
            model._$modelState.recordChecksum = written.record.contentChecksum
        }
        for (model, written) in zip(changed, updateRecords) {
            model._$modelState.recordChecksum = written.record.contentChecksum
        }
        post(Self.didSave, inserted: newModels, updated: updatedModels, deleted: deletedIDs)
        checkInvariantsAfterSave()
    }

    /// What the pending deletes amount to once the delete rules are applied.
    struct DeletePlan {
        /// Every model to delete: the ones deleted and those cascaded to.
        var deleted: [any PersistentModel] = []
        var deletedObjects: Set<ObjectIdentifier> = []
        /// Inverse relationships that lose deleted models, with the targets that remain.
        var nullified:
            [(owner: any PersistentModel, relationship: Schema.Relationship, targets: [any PersistentModel])] = []

        func isDeleted(_ model: any PersistentModel) -> Bool { deletedObjects.contains(ObjectIdentifier(model)) }

        /// The deleted models that have rows in the store.
        var deletedSaved: [any PersistentModel] { deleted.filter { !$0.persistentModelID.isTemporary } }
    }

    /// Expands the pending deletes through cascade rules, checks deny rules, and works out the
    /// nullified inverses, without changing any model.
    func planDeletes() throws -> DeletePlan {
        var plan = DeletePlan()
        var queue = deletedModelsArray
        func add(_ model: any PersistentModel) {
            if plan.deletedObjects.insert(ObjectIdentifier(model)).inserted {
                plan.deleted.append(model)
                queue.append(model)
            }
        }
        deletedModelsArray.forEach { plan.deletedObjects.insert(ObjectIdentifier($0)) }
        plan.deleted = deletedModelsArray
        var denials:
            [(model: any PersistentModel, relationship: Schema.Relationship, blockers: [any PersistentModel])] = []
        while let model = queue.popLast() {
            let entity = entity(of: model.persistentModelID)
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index }) {
                let targets = loadedTargets(relationship, of: model)
                switch relationship.deleteRule {
                case .cascade: targets.forEach(add)
                case .deny: if !targets.isEmpty { denials.append((model, relationship, targets)) }
                case .nullify, .noAction: break
                }
            }
        }
        // A deny blocks only while a related model survives the save.
        for (model, relationship, blockers) in denials {
            let remaining = blockers.filter { !plan.isDeleted($0) }
            guard !remaining.isEmpty else { continue }
            throw SaveError(
                code: .deleteDenied,
                message: "\(model.persistentModelID) cannot be deleted: its relationship \(relationship.name) has the "
                    + "deny rule and still holds \(remaining.map { "\($0.persistentModelID)" }.joined(separator: ", ")). "
                    + "Delete or detach those first.",
                models: remaining.map(\.persistentModelID))
        }
        // Nullify: each surviving target of a deleted model drops it from the inverse.
        for model in plan.deleted {
            let entity = entity(of: model.persistentModelID)
            for relationship in entity.relationships where relationship.deleteRule == .nullify {
                guard let inverseName = relationship.inverseName,
                    let inverse = self.entity(named: relationship.destination).relationshipsByName[inverseName]
                else { continue }
                for target in loadedTargets(relationship, of: model) where !plan.isDeleted(target) {
                    if let index = plan.nullified.firstIndex(where: {
                        $0.owner === target && $0.relationship === inverse
                    }) {
                        plan.nullified[index].targets.removeAll { $0 === model }
                    } else {
                        let remaining = loadedTargets(inverse, of: target).filter { $0 !== model }
                        plan.nullified.append((target, inverse, remaining))
                    }
                }
            }
        }
        return plan
    }

    /// The index entries a save removes (old values, read from the stored records of deleted,
    /// changed and taken-over rows) and adds (the models' values).
    private func planIndexes(
        inserted: [any PersistentModel], changed: [any PersistentModel], deleted: [any PersistentModel],
        takeovers: [ObjectIdentifier: UInt64]
    ) throws -> (removals: [(Table, [UInt8], UInt64)], additions: [(Table, [UInt8], any PersistentModel)]) {
        var removals: [(Table, [UInt8], UInt64)] = []
        var additions: [(Table, [UInt8], any PersistentModel)] = []
        let store = container.store
        try store.environment.read { txn in
            for model in deleted {
                let tables = store.tables(of: model)
                let row = model.persistentModelID.rowID!
                guard !tables.indexes.isEmpty, let stored = try storedModel(row: row, tables: tables, in: txn) else {
                    continue
                }
                for index in tables.indexes { removals.append((index.table, index.key(of: stored), row)) }
            }
            for model in changed {
                let tables = store.tables(of: model)
                let touched = tables.indexes.filter { index in
                    index.names.contains { model._$modelState.isChanged(tables.entity.attributesByName[$0]!.index!) }
                }
                guard !touched.isEmpty, let row = model.persistentModelID.rowID,
                    let stored = try storedModel(row: row, tables: tables, in: txn)
                else { continue }
                for index in touched {
                    let (old, new) = (index.key(of: stored), index.key(of: model))
                    guard old != new else { continue }
                    removals.append((index.table, old, row))
                    additions.append((index.table, new, model))
                }
            }
            for model in inserted {
                let tables = store.tables(of: model)
                guard !tables.indexes.isEmpty else { continue }
                if let row = takeovers[ObjectIdentifier(model)],
                    let stored = try storedModel(row: row, tables: tables, in: txn)
                {
                    for index in tables.indexes { removals.append((index.table, index.key(of: stored), row)) }
                }
                for index in tables.indexes { additions.append((index.table, index.key(of: model), model)) }
            }
        }
        return (removals, additions)
    }

    /// Checks `minimumModelCount` and `maximumModelCount` of the relationships about to be written.
    private func checkCounts(
        _ relationships: [(
            owner: any PersistentModel, relationship: Schema.Relationship, targets: [any PersistentModel]
        )]
    ) throws {
        for (owner, relationship, targets) in relationships where !relationship.isToOneRelationship {
            let count = targets.count
            let tooFew = relationship.minimumModelCount.map { count < $0 } ?? false
            let tooMany = relationship.maximumModelCount.map { count > $0 } ?? false
            guard tooFew || tooMany else { continue }
            throw SaveError(
                code: .modelCountOutOfRange,
                message: "\(owner.persistentModelID).\(relationship.name) holds \(count) models, but allows "
                    + "\(relationship.minimumModelCount.map(String.init) ?? "0") to "
                    + "\(relationship.maximumModelCount.map(String.init) ?? "any number"). Add or remove models, then save again.",
                models: [owner.persistentModelID])
        }
    }

    /// The record of a model's attributes, fields in ascending tag order, to be sealed for the
    /// key it is stored under.
    func record(of model: any PersistentModel) throws -> EncodedRecord {
        let tables = container.store.tables(of: model)
        var writer = RecordWriter()
        for (tag, access) in tables.encodingOrder {
            try access.encode(model, tag, &writer)
        }
        return writer.encoded()
    }

    func entity(named name: String) -> Schema.Entity { container.store.entities[name]!.entity }

    static func rowCounterKey(_ entity: String) -> [UInt8] { Array("rowid:\(entity)".utf8) }

    /// An entity's next row id as `meta` stores it (1 when it has none yet).
    static func nextRow(
        of entity: String, meta: Table, txn: borrowing some StorageTransaction & ~Copyable
    ) throws
        -> UInt64
    {
        let key = rowCounterKey(entity)
        return try txn.get(key, in: meta).map { try EntryLayout.counter($0, key: key, table: meta) } ?? 1
    }
}

/// New rows within one write transaction: each entity's row counter is read once, each record is
/// appended under the next row id, and ``writeCounters(meta:txn:)`` stores the counters.
struct RowAppender {
    private var next: [ObjectIdentifier: (tables: Store.EntityTables, row: UInt64)] = [:]

    /// Appends `record`, sealed for its new row's key, as a new row of `tables`' entity and
    /// returns its row id.
    mutating func append(
        _ record: inout EncodedRecord, to tables: Store.EntityTables, meta: Table, txn: borrowing WriteTransaction
    ) throws -> UInt64 {
        let entity = tables.entity.name
        let row =
            try next[ObjectIdentifier(tables)]?.row
            ?? ModelContext.nextRow(of: entity, meta: meta, txn: txn)
        guard
            try txn.put(record.sealed(forRow: row), for: EntryLayout.rowKey(row), in: tables.records, options: .append)
        else {
            throw StorageError(
                code: .damaged,
                message: "The row counter of \(entity) is behind its rows, so a new row would overwrite one. "
                    + "Restore the store from a backup.")
        }
        next[ObjectIdentifier(tables)] = (tables, row + 1)
        return row
    }

    /// Stores the counters of the entities that got new rows.
    func writeCounters(meta: Table, txn: borrowing WriteTransaction) throws {
        for (tables, row) in next.values {
            let key = ModelContext.rowCounterKey(tables.entity.name)
            try txn.put(EntryLayout.counter(row, key: key), for: key, in: meta)
        }
    }
}

extension ModelContext {
    /// A row's stored edges in one relationship table, verified: each duplicate's bytes (to delete
    /// it by), rank and target row.
    static func storedEdges(
        of owner: UInt64, in table: Table, txn: borrowing WriteTransaction
    ) throws -> [(value: [UInt8], rank: UInt64, target: UInt64)] {
        try txn.edges(of: owner, in: table).map { edge in
            (EntryLayout.edgeValue(owner: owner, rank: edge.rank, target: edge.target), edge.rank, edge.target)
        }
    }

    /// Makes the stored inverse edges agree with every relationship list this save rewrote.
    ///
    /// A context rewrites a relationship from what it has in memory, which may predate another
    /// context's save: the old target of a to-one that another context set, or a target another
    /// context deleted, is not among the models this context changed. So, inside the write
    /// transaction, the stored state is made symmetric again, the rewritten lists winning: an owner
    /// is removed from the inverse of every target it no longer has, and added to the inverse of
    /// every target it has (a to-one inverse that pointed elsewhere is moved, and the row it
    /// pointed at loses its edge to the target). A target whose row is gone, or deleted in this
    /// save, is dropped from the list.
    fileprivate func repairInverses(
        of rewritten: [(relationship: Schema.Relationship, table: Table, owner: UInt64, old: [UInt64], new: [UInt64])],
        deleted: Set<PersistentIdentifier>, history: inout History, repaired: inout [PersistentIdentifier],
        txn: borrowing WriteTransaction
    ) throws {
        let store = container.store
        // The edge lists this transaction wrote, as written: a target whose inverse list was
        // written with the owner in it needs no read (inserted graphs are consistent in memory,
        // and reading every target's edges back cost more than writing them). Any list the
        // repair below changes is dropped from here, so it is read from the store again.
        struct ListKey: Hashable {
            let table: UInt32
            let owner: UInt64
        }
        struct Written {
            let rows: [UInt64]
            let set: Set<UInt64>?
            init(_ rows: [UInt64]) {
                self.rows = rows
                set = rows.count > 16 ? Set(rows) : nil
            }
            func contains(_ row: UInt64) -> Bool { set?.contains(row) ?? rows.contains(row) }
        }
        var written: [ListKey: Written] = [:]
        written.reserveCapacity(rewritten.count)
        for entry in rewritten { written[ListKey(table: entry.table.handle, owner: entry.owner)] = Written(entry.new) }
        func removeEdge(_ table: Table, owner: UInt64, target: UInt64, entity: String) throws {
            written[ListKey(table: table.handle, owner: owner)] = nil
            for edge in try Self.storedEdges(of: owner, in: table, txn: txn) where edge.target == target {
                _ = try txn.delete(EntryLayout.rowKey(owner), value: edge.value, in: table)
                history.record(.edges, entity, owner)
                repaired.append(
                    PersistentIdentifier(entityName: entity, storeIdentifier: store.identifier, rowID: owner))
            }
        }
        for (relationship, table, owner, old, new) in rewritten {
            guard let inverseName = relationship.inverseName,
                let destination = store.entities[relationship.destination],
                let inverse = destination.entity.relationshipsByName[inverseName],
                let inverseTable = destination.edges[inverseName]
            else { continue }
            let kept = Set(new)
            for target in old where !kept.contains(target) {
                try removeEdge(inverseTable, owner: target, target: owner, entity: relationship.destination)
            }
            for target in new {
                let targetID = PersistentIdentifier(
                    entityName: destination.entity.name, storeIdentifier: store.identifier, rowID: target)
                if !deleted.contains(targetID),
                    written[ListKey(table: inverseTable.handle, owner: target)]?.contains(owner) == true
                {
                    continue
                }
                guard !deleted.contains(targetID), try txn.contains(EntryLayout.rowKey(target), in: destination.records)
                else {
                    try removeEdge(table, owner: owner, target: target, entity: inverse.destination)
                    continue
                }
                let edges = try Self.storedEdges(of: target, in: inverseTable, txn: txn)
                if edges.contains(where: { $0.target == owner }) { continue }
                written[ListKey(table: inverseTable.handle, owner: target)] = nil
                if inverse.isToOneRelationship {
                    // The target's to-one pointed at another row: that row no longer has the target.
                    for edge in edges {
                        _ = try txn.delete(EntryLayout.rowKey(target), value: edge.value, in: inverseTable)
                        try removeEdge(table, owner: edge.target, target: target, entity: inverse.destination)
                    }
                    try txn.put(
                        EntryLayout.edgeValue(owner: target, rank: 0, target: owner), for: EntryLayout.rowKey(target),
                        in: inverseTable, options: .appendDuplicate)
                    repaired.append(targetID)
                } else {
                    let rank = edges.last.map { $0.rank + 1 } ?? 0
                    try txn.put(
                        EntryLayout.edgeValue(owner: target, rank: rank, target: owner),
                        for: EntryLayout.rowKey(target),
                        in: inverseTable, options: .appendDuplicate)
                    repaired.append(targetID)
                }
            }
        }
    }
}

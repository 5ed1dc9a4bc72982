import Foundation

/// Turns a context's pending changes into a ``SavePlan``: the delete rules, the uniqueness
/// constraints (takeovers, superseded inserts, refused changes), the records, the relationship
/// lists with their counts checked, the index entries and the external values. Everything a save
/// decides is decided here, before its write transaction; the planner reads the store and loads
/// through its context, and changes nothing the save would have to undo.
///
/// ```swift
/// var planned = try SavePlanner(context: context).plan()
/// let outcome = try StoreWriter(store: context.store).write(&planned.plan)
/// ```
struct SavePlanner {
    /// The context whose pending changes are planned; it owns the planner for one save.
    unowned let context: ModelContext

    var store: Store { context.store }

    /// A plan, with what the context needs once it is written: the models it was made from and
    /// what `willSave` and `didSave` report.
    struct PlannedSave {
        var plan: SavePlan
        /// The inserts that get rows (or take rows over), in the order of ``SavePlan/newRows``.
        let inserted: [any PersistentModel]
        let insertedTables: [Store.EntityTables]
        /// The changed models rewritten, in the order of ``SavePlan/updates``.
        let changed: [any PersistentModel]
        let deletes: DeletePlan
        let uniqueness: UniquenessPlan
        /// The inserted models a later insert with the same unique values replaced: they get no row.
        let superseded: [any PersistentModel]
        /// The models the save inserts and updates, as the notifications list them (read while
        /// the models were planned: listing them afterwards walked every model again).
        let newIdentifiers: [PersistentIdentifier]
        /// The identifiers of ``changed``, in the order of ``SavePlan/updates``.
        let changedIdentifiers: [PersistentIdentifier]
        /// The temporary identifiers of the inserts that take over stored rows.
        let takeoverIdentifiers: [PersistentIdentifier]

        /// The models the save updates, as `willSave` lists them: the changed ones, then the
        /// inserts that take over stored rows.
        var updatedIdentifiers: [PersistentIdentifier] {
            takeoverIdentifiers.isEmpty ? changedIdentifiers : changedIdentifiers + takeoverIdentifiers
        }
    }

    /// The plan for the context's pending changes.
    ///
    /// - Throws: ``SaveError`` when a delete is denied, a relationship count is out of range, a
    ///   uniqueness constraint refuses a change, or a changed model's row is gone; what loading a
    ///   partly loaded model throws.
    func plan() throws -> PlannedSave {
        let store = store
        // Everything is prepared before the transaction: no encoding, and no reads of the store
        // through faults, may happen inside it. Nothing in memory changes until it commits.
        // Partly loaded changed models (propertiesToFetch, faults) are completed first: their
        // unique keys and records need every attribute.
        // Each list once: every read of one makes a new array of the models.
        let changedModels = context.changedModelsArray
        let deleting = Set(context.deletedModelsArray.map(\.persistentModelID))
        var deletedElsewhere: [PersistentIdentifier] = []
        // Each changed model's row rewrite, its record encoded in the same pass, and its
        // identifier, by position in `updates`, which is noted in the model's state
        // (`planPosition`; -1 for one that is deleted: changed models are never among the
        // inserted ones that use it). A model not wholly loaded (propertiesToFetch, faults) is
        // completed first: its unique keys and record need every attribute. Built here, a
        // hundred thousand updates are one array of each; gathered in a later pass, they were
        // three more, each freshly mapped memory touched per model.
        var updates: [SavePlan.Update] = []
        var changedIdentifiers: [PersistentIdentifier] = []
        var updateRecords = RecordList(reservingCapacity: changedModels.count, bytesPerRecord: 64)
        updates.reserveCapacity(changedModels.count)
        changedIdentifiers.reserveCapacity(changedModels.count)
        // The changed models whose change reaches more than their record (a relationship, an
        // index or unique key, an external value), noted in the same pass: the later steps walk
        // only these, not every changed model again (each walk over a hundred thousand models
        // is a cache miss per model).
        var reaching = ChangeReach()
        for model in changedModels {
            let state = model._$state
            state.planPosition = -1
            let tables = store.tables(of: model)
            reaching.note(model, state: state, tables: tables)
            guard let id = state.persistentIdentifier, let rowID = id.rowID,
                deleting.isEmpty || !deleting.contains(id)
            else { continue }
            let record: Int
            if let complete = try Self.appendCompleteRecord(of: model, tables: tables, to: &updateRecords) {
                record = complete
            } else {
                do {
                    try context.rows.load(model, rowID: rowID, tables: tables)
                } catch let error as StorageError where error.code == .notFound {
                    deletedElsewhere.append(id)
                    continue
                }
                record = try Self.appendRecord(of: model, tables: tables, to: &updateRecords)
            }
            EntryLayout.withRowKey(rowID) { updateRecords.seal(record, forKey: $0) }
            state.planPosition = updates.count
            updates.append(SavePlan.Update(tables: tables, row: rowID, record: record, changed: state.changed))
            changedIdentifiers.append(id)
        }
        if !deletedElsewhere.isEmpty { throw SaveError.deletedElsewhere(deletedElsewhere) }
        let plan = try planDeletes()
        let candidates = try InsertedModels(
            plan.deletedObjects.isEmpty
                ? context.insertedModelsArray : context.insertedModelsArray.filter { !plan.isDeleted($0) },
            store: store)
        let liveChanged = plan.deletedObjects.isEmpty ? changedModels : changedModels.filter { !plan.isDeleted($0) }
        let isLive = { (model: any PersistentModel) in plan.deletedObjects.isEmpty || !plan.isDeleted(model) }
        let uniqueness = try planUniqueness(
            inserted: candidates, changed: reaching.keys.filter(isLive), deletes: plan)
        // The inserts that get rows: a later insert with the same unique values supersedes an
        // earlier one. Their tables, records (sealed for their row keys in the transaction, where
        // new rows get their ids) and positions among the new rows were all read in one pass.
        let (insertedModels, newPositions) = candidates.removing(uniqueness.superseded)
        /// An insert's position among those kept, from its position among the candidates.
        func keptPosition(_ candidate: Int) -> Int? { newPositions.map { $0[candidate] } ?? candidate }
        let inserted = insertedModels.models
        let insertedTables = insertedModels.tables
        // The row each kept insert takes over, by position (empty when none does).
        let takeovers =
            newPositions == nil || uniqueness.takeovers.isEmpty
            ? uniqueness.takeovers
            : uniqueness.takeovers.indices.filter { keptPosition($0) != nil }.map { uniqueness.takeovers[$0] }
        // A stored model whose row an insert takes over gives way to it (only changed ones need
        // finding: without any, no set of every takeover is made).
        let takenOver =
            takeovers.isEmpty || liveChanged.isEmpty
            ? []
            : Set(
                zip(insertedModels.identifiers, takeovers).compactMap { identifier, row in
                    row.map {
                        PersistentIdentifier(entity: identifier.entity, store: store.internedIdentifier, rowID: $0)
                    }
                })
        let isKept = { (model: any PersistentModel) in
            isLive(model) && (takenOver.isEmpty || !takenOver.contains(model.persistentModelID))
        }
        let changed = takenOver.isEmpty ? liveChanged : liveChanged.filter { !takenOver.contains($0.persistentModelID) }
        // Without deletes or takeovers every changed model is rewritten, in the first pass's
        // order, and no model is touched again (a pass over a hundred thousand models is a cache
        // miss per model and state); otherwise the kept ones' updates are picked out.
        if changed.count != updates.count {
            let positions = changed.map { $0._$state.planPosition }
            updates = positions.map { updates[$0] }
            changedIdentifiers = positions.map { changedIdentifiers[$0] }
            for (position, model) in changed.enumerated() { model._$state.planPosition = position }
        }
        // The plan names rows, not models: a new model by its position among the new rows,
        // noted in its state (`InsertedModels`), so no map has every model hashed into it.
        func reference(_ model: any PersistentModel) -> SavePlan.RowReference {
            let state = model._$state
            if let row = state.persistentIdentifier?.rowID { return .stored(row) }
            if let position = insertedModels.position(of: model, state: state) { return .new(position) }
            return .missing(Schema.internedEntityName(of: type(of: model)))
        }
        var savePlan = SavePlan()
        savePlan.author = context.author
        // Room for about one list and one target per model written, reserved once: grown by
        // doubling, the lists of a large save were copied into fresh memory at each step (about a
        // tenth of a graph insert's planning under `perf`, page faults and copies).
        let listsExpected = inserted.count + reaching.relationships.count
        savePlan.edgeLists.reserveCapacity(listsExpected)
        savePlan.edgeTargets.reserveCapacity(listsExpected)
        // The relationships to write: every one of an inserted model, the changed ones of a
        // changed model, and the inverses the deletes nullify. Each is rewritten whole, in its
        // order, without the deleted models; its targets are named as rows as they are read
        // (lists of the target models cost an array and a retain of each model per list).
        var counted: [CountedList] = []
        // The plan and the counts come in as `inout` parameters, not captured: a local variable
        // captured by the closures below was checked for exclusive access at run time, five
        // checks per list written.
        func writeList(
            _ owner: any PersistentModel, _ relationship: Schema.Relationship, ownerTables: Store.EntityTables,
            isNew: Bool, into savePlan: inout SavePlan, counting counted: inout [CountedList],
            _ forEachTarget: ((any PersistentModel) -> Void) -> Void
        ) {
            let start = savePlan.edgeTargets.count
            forEachTarget { target in
                if plan.deletedObjects.isEmpty || !plan.isDeleted(target) {
                    savePlan.edgeTargets.append(reference(target))
                }
            }
            let targets = start..<savePlan.edgeTargets.count
            if relationship.hasCountBounds { counted.append((owner, relationship, targets.count)) }
            guard !(isNew && targets.isEmpty) else { return }
            let kind = savePlan.edgeKind(relationship, of: ownerTables)
            savePlan.edgeLists.append(SavePlan.EdgeList(kind: kind, owner: reference(owner), targets: targets))
        }
        // The inserted models, then those of `changedOnes`, each with its tables and whether it
        // is new (walked in place: joining the two lists copied every model).
        func forEachWritten(
            _ changedOnes: [any PersistentModel], _ body: (any PersistentModel, Store.EntityTables, Bool) throws -> Void
        ) rethrows {
            for (model, tables) in zip(inserted, insertedTables) { try body(model, tables, true) }
            for model in changedOnes where isKept(model) {
                try body(model, updates[model._$state.planPosition].tables, false)
            }
        }
        forEachWritten(reaching.relationships) { model, tables, isNew in
            guard !tables.entity.relationships.isEmpty else { return }
            let state = model._$state
            for relationship in tables.entity.relationships where isNew || state.isChanged(relationship.index) {
                if isNew && !relationship.access.hasTargets(model) {
                    // An empty new list matters only to a lower bound on its count.
                    if relationship.minimumModelCount != nil { counted.append((model, relationship, 0)) }
                    continue
                }
                writeList(
                    model, relationship, ownerTables: tables, isNew: isNew, into: &savePlan, counting: &counted
                ) { relationship.access.forEachTarget(model, $0) }
            }
        }
        for (owner, relationship, targets) in plan.nullified + uniqueness.released where !plan.isDeleted(owner) {
            writeList(
                owner, relationship, ownerTables: store.tables(of: owner), isNew: false, into: &savePlan,
                counting: &counted
            ) { targets.forEach($0) }
        }
        try checkCounts(counted)
        // Planning read relationships through getters: one that failed to load read as empty, so
        // the plan (cascades, inverses) may be wrong. Nothing is written then.
        try context.loadFailures.throwPending()
        let (indexRemovals, indexAdditions) = try planIndexes(
            inserted: insertedModels, changed: reaching.keys.filter(isKept), deleted: plan.deletedSaved,
            takeovers: takeovers)
        // External-storage values: all of an inserted model, the changed ones of a changed model.
        var externalWrites: [(table: Table, owner: any PersistentModel, tag: UInt32, value: EncodedRecord)] = []
        try forEachWritten(reaching.externals) { model, tables, isNew in
            guard !tables.externalAttributes.isEmpty else { return }
            for (index, (tag, access)) in tables.externalAttributes.sorted(by: { $0.key < $1.key })
            where isNew || model._$state.isChanged(index) {
                var writer = RecordWriter()
                try access.encode(model, tag, &writer)
                externalWrites.append((tables.externals!, model, tag, writer.encoded()))
            }
        }
        // An insert that takes over a stored row updates that row.
        // (By the new rows' own note, below: looking each insert up again cost two hashes apiece.)
        var newIdentifiers = insertedModels.identifiers
        var takeoverIdentifiers: [PersistentIdentifier] = []

        savePlan.newRows.reserveCapacity(inserted.count)
        for position in 0..<insertedModels.count {
            let tables = insertedTables[position]
            var row = SavePlan.NewRow(tables: tables, takesOver: takeovers.isEmpty ? nil : takeovers[position])
            if row.takesOver != nil {
                let model = inserted[position]
                row.isLeftAloneWhenSame =
                    tables.externalAttributes.isEmpty
                    && !tables.entity.relationships.contains { $0.access.hasTargets(model) }
                takeoverIdentifiers.append(insertedModels.identifiers[position])
            }
            savePlan.newRows.append(row)
        }
        if !takeovers.isEmpty {
            newIdentifiers = zip(insertedModels.identifiers, savePlan.newRows).compactMap {
                $0.1.takesOver == nil ? $0.0 : nil
            }
        }
        // The records, each list taken over whole (a new row's record is at its position).
        savePlan.newRecords = insertedModels.records
        savePlan.newRowIdentifiers = insertedModels.identifiers
        savePlan.updateRecords = updateRecords
        savePlan.readSnapshot = uniqueness.readSnapshot
        // Inserted models are named by position (their identifiers were read in the one pass),
        // their keys by position in the candidates' list of keys, which the plan takes over.
        savePlan.uniqueKeys = candidates.keys
        savePlan.keptKeys = uniqueness.kept.compactMap { kept in
            keptPosition(kept.position).map {
                SavePlan.KeptKey(
                    table: candidates.keyTables[kept.key], key: kept.key, row: kept.row,
                    identifier: insertedModels.identifiers[$0])
            }
        }
        savePlan.updates = updates
        savePlan.deletes = plan.deletedSaved.map { (store.tables(of: $0), $0.persistentModelID.rowID!) }
        savePlan.indexRemovals = indexRemovals.map { ($0.0, $0.1, $0.2) }
        savePlan.indexAdditions = indexAdditions.map {
            SavePlan.KeyEntry(table: $0.0, key: $0.1, row: reference($0.2))
        }
        savePlan.externals = externalWrites.map {
            SavePlan.External(table: $0.table, owner: reference($0.owner), tag: $0.tag, value: $0.value)
        }
        savePlan.uniqueFreed = uniqueness.freed
        savePlan.uniqueClaims.reserveCapacity(uniqueness.claimed.count + uniqueness.insertClaims.count)
        for (table, key, model) in uniqueness.claimed {
            savePlan.uniqueKeys.append(key)
            savePlan.uniqueClaims.append(
                SavePlan.UniqueClaim(
                    table: table, key: savePlan.uniqueKeys.count - 1, row: reference(model),
                    entity: model.persistentModelID.entity))
        }
        for claim in uniqueness.insertClaims {
            guard let position = keptPosition(claim.position) else { continue }
            savePlan.uniqueClaims.append(
                SavePlan.UniqueClaim(
                    table: candidates.keyTables[claim.key], key: claim.key, row: .new(position),
                    entity: insertedTables[position].entityName))
        }
        return PlannedSave(
            plan: savePlan, inserted: inserted, insertedTables: insertedTables, changed: changed, deletes: plan,
            uniqueness: uniqueness, superseded: uniqueness.superseded.map { candidates.models[$0] },
            newIdentifiers: newIdentifiers,
            changedIdentifiers: changedIdentifiers, takeoverIdentifiers: takeoverIdentifiers)
    }

    /// A relationship list about to be written whose count has a bound, with its number of targets.
    typealias CountedList = (owner: any PersistentModel, relationship: Schema.Relationship, count: Int)

    /// What the pending deletes amount to once the delete rules are applied.
    struct DeletePlan {
        /// Every model to delete: the ones deleted and those cascaded to.
        var deleted: [any PersistentModel] = []
        var deletedObjects: Set<ObjectIdentifier> = []
        /// Inverse relationships that lose deleted models, with the targets that remain.
        var nullified:
            [(owner: any PersistentModel, relationship: Schema.Relationship, targets: [any PersistentModel])] = []

        func isDeleted(_ model: any PersistentModel) -> Bool {
            !deletedObjects.isEmpty && deletedObjects.contains(ObjectIdentifier(model))
        }

        /// The deleted models that have rows in the store.
        var deletedSaved: [any PersistentModel] { deleted.filter { !$0.persistentModelID.isTemporary } }
    }

    /// Expands the pending deletes through cascade rules, checks deny rules, and works out the
    /// nullified inverses, without changing any model.
    func planDeletes() throws -> DeletePlan {
        let cascaded = CascadedDeletes(of: context)
        var plan = DeletePlan()
        plan.deleted = cascaded.models
        plan.deletedObjects = cascaded.identities
        var denials:
            [(model: any PersistentModel, relationship: Schema.Relationship, blockers: [any PersistentModel])] = []
        for model in plan.deleted {
            let entity = store.entity(of: model.persistentModelID)
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index })
            where relationship.deleteRule == .deny {
                let targets = context.loadedTargets(relationship, of: model)
                if !targets.isEmpty { denials.append((model, relationship, targets)) }
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
            let entity = store.entity(of: model.persistentModelID)
            for relationship in entity.relationships where relationship.deleteRule == .nullify {
                guard let inverseName = relationship.inverseName,
                    let inverse = store.entity(named: relationship.destination).relationshipsByName[inverseName]
                else { continue }
                for target in context.loadedTargets(relationship, of: model) where !plan.isDeleted(target) {
                    if let index = plan.nullified.firstIndex(where: {
                        $0.owner === target && $0.relationship === inverse
                    }) {
                        plan.nullified[index].targets.removeAll { $0 === model }
                    } else {
                        let remaining = context.loadedTargets(inverse, of: target).filter { $0 !== model }
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
        inserted: InsertedModels, changed: [any PersistentModel], deleted: [any PersistentModel],
        takeovers: [UInt64?]
    ) throws -> (removals: [(Table, [UInt8], UInt64)], additions: [(Table, [UInt8], any PersistentModel)]) {
        var removals: [(Table, [UInt8], UInt64)] = []
        var additions: [(Table, [UInt8], any PersistentModel)] = []
        try store.read { txn in
            for model in deleted {
                let tables = store.tables(of: model)
                let row = model.persistentModelID.rowID!
                guard !tables.indexes.isEmpty,
                    let stored = try context.rows.storedModel(row: row, tables: tables, in: txn)
                else {
                    continue
                }
                for index in tables.indexes { removals.append((index.table, index.key(of: stored), row)) }
            }
            for model in changed {
                let tables = store.tables(of: model)
                guard !tables.indexes.isEmpty else { continue }
                let state = model._$state
                let touched = tables.indexes.filter { $0.isTouched(by: state) }
                guard !touched.isEmpty, let row = model.persistentModelID.rowID,
                    let stored = try context.rows.storedModel(row: row, tables: tables, in: txn)
                else { continue }
                for index in touched {
                    let (old, new) = (index.key(of: stored), index.key(of: model))
                    guard old != new else { continue }
                    removals.append((index.table, old, row))
                    additions.append((index.table, new, model))
                }
            }
            for position in 0..<inserted.count where !inserted.tables[position].indexes.isEmpty {
                let (model, tables) = (inserted.models[position], inserted.tables[position])
                // A row taken over keeps the entries whose key stays the same.
                if !takeovers.isEmpty, let row = takeovers[position],
                    let stored = try context.rows.storedModel(row: row, tables: tables, in: txn)
                {
                    for index in tables.indexes {
                        let (old, new) = (index.key(of: stored), index.key(of: model))
                        guard old != new else { continue }
                        removals.append((index.table, old, row))
                        additions.append((index.table, new, model))
                    }
                    continue
                }
                for index in tables.indexes { additions.append((index.table, index.key(of: model), model)) }
            }
        }
        return (removals, additions)
    }

    /// Checks `minimumModelCount` and `maximumModelCount` of the relationships about to be written
    /// (only those with a bound are listed, with the number of targets written).
    private func checkCounts(_ relationships: [CountedList]) throws {
        for (owner, relationship, count) in relationships where !relationship.isToOneRelationship {
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

    /// Appends the record of a model of `tables`' entity to `records` when every attribute it
    /// holds is loaded, as the generated codec finds while it encodes, and returns its position;
    /// `nil`, with nothing appended, for a model partly loaded (without a generated codec, or with
    /// tags that do not follow property order, it is checked attribute by attribute).
    static func appendCompleteRecord(
        of model: any PersistentModel, tables: Store.EntityTables, to records: inout RecordList
    ) throws -> Int? {
        var writer = records.writer()
        do {
            switch try encodeGenerated(model, tables: tables, with: &writer) {
            case .complete:
                return records.finish(&writer)
            case .incomplete:
                records.discard(&writer)
                return nil
            case .notGenerated:
                guard !tables.encodingOrder.contains(where: { !$0.access.isLoaded(model) }) else {
                    records.discard(&writer)
                    return nil
                }
                try encodeAttributes(model, tables: tables, with: &writer)
                return records.finish(&writer)
            }
        } catch {
            records.discard(&writer)
            throw error
        }
    }

    /// Appends the record of a model of `tables`' entity to `records` (its attributes, fields in
    /// ascending tag order, to be sealed for the key it is stored under) and returns its position.
    static func appendRecord(
        of model: any PersistentModel, tables: Store.EntityTables, to records: inout RecordList
    ) throws -> Int {
        if let record = try appendCompleteRecord(of: model, tables: tables, to: &records) { return record }
        // An attribute not loaded: attribute by attribute (reading an attribute loads it).
        var writer = records.writer()
        do {
            try encodeAttributes(model, tables: tables, with: &writer)
            return records.finish(&writer)
        } catch {
            records.discard(&writer)
            throw error
        }
    }

    /// The record of a model of `tables`' entity as one ``EncodedRecord`` (what
    /// ``appendRecord(of:tables:to:)`` appends).
    static func record(of model: any PersistentModel, tables: Store.EntityTables) throws -> EncodedRecord {
        // Room for a typical record and its checksum, so the bytes are not regrown while written.
        let capacity = tables.encodingOrder.count * 24 + 8
        var writer = RecordWriter(capacity: capacity)
        if try encodeGenerated(model, tables: tables, with: &writer) != .complete {
            writer = RecordWriter(capacity: capacity)
            try encodeAttributes(model, tables: tables, with: &writer)
        }
        return writer.encoded()
    }

    /// What the codec `@Model` generated made of a model's record.
    private enum GeneratedEncoding {
        /// Every field written.
        case complete
        /// A property the record holds was not loaded: what was written is partial.
        case incomplete
        /// The class has no generated codec, or property order is not tag order (a migration
        /// reordered the entity's attributes): nothing was written.
        case notGenerated
    }

    /// Writes the record of `model` with `writer` through the codec `@Model` generated, which
    /// writes the fields in property order.
    private static func encodeGenerated(
        _ model: any PersistentModel, tables: Store.EntityTables, with writer: inout RecordWriter
    ) throws -> GeneratedEncoding {
        guard tables.fieldsAscendInPropertyOrder else { return .notGenerated }
        // The writer is moved into the encoder and back, never copied: a second reference to its
        // bytes (a save's list of records) would make each write copy them all.
        var encoder = _FieldEncoder(
            tags: tables.recordTags, accesses: tables.accessByIndex, model: model, writer: .empty)
        swap(&encoder.writer, &writer)
        defer { swap(&encoder.writer, &writer) }
        try model._$encodeFields(into: &encoder)
        if !encoder.isGenerated { return .notGenerated }
        return encoder.isIncomplete ? .incomplete : .complete
    }

    /// Writes the record of `model` attribute by attribute, through the attributes' general codecs.
    private static func encodeAttributes(
        _ model: any PersistentModel, tables: Store.EntityTables, with writer: inout RecordWriter
    ) throws {
        for (tag, access) in tables.encodingOrder {
            try access.encode(model, tag, &writer)
        }
    }
}

/// The changed models of a save whose change reaches more than their record, sorted by what it
/// reaches: a relationship (its edge list is rewritten), a unique or index key (the uniqueness
/// planner and the index entries look at it), an external value. Noted from each model's change
/// bits in the planner's one pass over the changed models.
///
/// ```swift
/// var reaching = ChangeReach()
/// reaching.note(author, state: author._$modelState, tables: tables)
/// reaching.relationships   // [author] after `author.books.append(book)`
/// ```
struct ChangeReach {
    /// Models with a changed relationship.
    private(set) var relationships: [any PersistentModel] = []
    /// Models with a changed attribute that a unique or index table keys.
    private(set) var keys: [any PersistentModel] = []
    /// Models with a changed `.externalStorage` attribute.
    private(set) var externals: [any PersistentModel] = []

    /// Notes what `model`'s change (in `state`) reaches.
    mutating func note(_ model: any PersistentModel, state: _UnretainedModelState, tables: Store.EntityTables) {
        if tables.entity.relationships.contains(where: { state.isChanged($0.index) }) { relationships.append(model) }
        if !tables.keyedAttributeIndexes.isEmpty,
            tables.keyedAttributeIndexes.contains(where: { state.isChanged($0) })
        {
            keys.append(model)
        }
        if !tables.externalAttributes.isEmpty, tables.externalAttributes.keys.contains(where: { state.isChanged($0) }) {
            externals.append(model)
        }
    }
}

import Foundation

/// Turns a ``ChangeSet`` into a ``SavePlan``, in stages: delete expansion (the delete rules),
/// the changed rows' records, uniqueness (takeovers, superseded inserts, refused changes), the
/// relationship lists with their counts checked, the index entries, the external values, the new
/// rows and the history author. Everything a save decides is decided here, before its write
/// transaction. The planner reads stored rows through the context's ``RowLoader`` (records, and
/// the relationship targets the delete rules and takeovers reach, which it may load) and changes
/// nothing the save would have to undo.
///
/// ```swift
/// var planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
/// let outcome = try StoreWriter(store: context.store).write(&planned.plan)
/// ```
struct SavePlanner {
    /// What the save writes.
    let changes: ChangeSet
    /// The stored rows the plan reads, and the models loaded for them.
    let rows: RowLoader

    var store: Store { rows.store }

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

    /// The plan for the change set.
    ///
    /// - Throws: ``SaveError`` when a delete is denied, a relationship count is out of range, a
    ///   uniqueness constraint refuses a change, or a changed model's row is gone; what loading a
    ///   partly loaded model throws.
    func plan() throws -> PlannedSave {
        let store = store
        // Everything is prepared before the transaction: no encoding, and no reads of the store
        // through faults, may happen inside it. Nothing in memory changes until it commits.
        // Each list once: every read of one makes a new array of the models.
        let changedModels = changes.changed
        var changedRows = try planChangedRows(changedModels)
        let deletes = try planDeletes()
        let noDeletes = deletes.deletedObjects.isEmpty
        let candidates = try InsertedModels(
            noDeletes ? changes.inserted : changes.inserted.filter { !deletes.isDeleted($0) },
            store: store)
        let liveChanged = noDeletes ? changedModels : changedModels.filter { !deletes.isDeleted($0) }
        let uniqueness = try planUniqueness(
            inserted: candidates, changed: changedRows.reaching.keys.filter { noDeletes || !deletes.isDeleted($0) },
            deletes: deletes)
        let inserts = KeptInserts(candidates, uniqueness: uniqueness, changed: liveChanged, store: store)
        let takenOver = inserts.takenOver
        let changed = takenOver.isEmpty ? liveChanged : liveChanged.filter { !takenOver.contains($0.persistentModelID) }
        changedRows.keep(changed)
        let written = WrittenModels(inserts: inserts, updates: changedRows.updates, deletes: deletes)
        var savePlan = SavePlan()
        savePlan.author = changes.author
        try checkCounts(
            planEdgeLists(
                written, reaching: changedRows.reaching.relationships, released: uniqueness.released, into: &savePlan))
        // Planning read relationships through getters: one that failed to load read as empty, so
        // the plan (cascades, inverses) may be wrong. Nothing is written then.
        try rows.failures.throwPending()
        let (indexRemovals, indexAdditions) = try planIndexes(
            inserted: inserts.kept, changed: changedRows.reaching.keys.filter(written.isKept),
            deleted: deletes.deletedSaved, takeovers: inserts.takeovers)
        savePlan.texts = try planTexts(
            inserted: inserts.kept, changed: changedRows.reaching.texts.filter(written.isKept),
            deleted: deletes.deletedSaved, takeovers: inserts.takeovers)
        savePlan.vectors = try planVectors(
            inserted: inserts.kept, changed: changedRows.reaching.vectors.filter(written.isKept),
            deleted: deletes.deletedSaved, takeovers: inserts.takeovers)
        savePlan.externals = try planExternalValues(written, reaching: changedRows.reaching.externals)
        let identifiers = planNewRows(inserts, into: &savePlan)
        // The records, each list taken over whole (a new row's record is at its position).
        savePlan.newRecords = inserts.kept.records
        savePlan.newRowIdentifiers = inserts.kept.identifiers
        savePlan.updateRecords = changedRows.records
        savePlan.readSnapshot = uniqueness.readSnapshot
        savePlan.updates = changedRows.updates
        savePlan.deletes = deletes.deletedSaved.map { (store.tables(of: $0), $0.persistentModelID.rowID!) }
        savePlan.indexRemovals = indexRemovals.map { ($0.0, $0.1, $0.2) }
        savePlan.indexAdditions = indexAdditions.map {
            SavePlan.KeyEntry(table: $0.0, key: $0.1, row: inserts.reference($0.2))
        }
        planUniqueEntries(uniqueness, inserts, into: &savePlan)
        return PlannedSave(
            plan: savePlan, inserted: inserts.kept.models, insertedTables: inserts.kept.tables, changed: changed,
            deletes: deletes, uniqueness: uniqueness, superseded: uniqueness.superseded.map { candidates.models[$0] },
            newIdentifiers: identifiers.inserted, changedIdentifiers: changedRows.identifiers,
            takeoverIdentifiers: identifiers.takingOver)
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
        let cascaded = CascadedDeletes(changes.deleted, rows: rows)
        var plan = DeletePlan()
        plan.deleted = cascaded.models
        plan.deletedObjects = cascaded.identities
        var denials:
            [(model: any PersistentModel, relationship: Schema.Relationship, blockers: [any PersistentModel])] = []
        for model in plan.deleted {
            let entity = store.entity(of: model.persistentModelID)
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index })
            where relationship.deleteRule == .deny {
                let targets = rows.loadedTargets(relationship, of: model)
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
                for target in rows.loadedTargets(relationship, of: model) where !plan.isDeleted(target) {
                    if let index = plan.nullified.firstIndex(where: {
                        $0.owner === target && $0.relationship === inverse
                    }) {
                        plan.nullified[index].targets.removeAll { $0 === model }
                    } else {
                        let remaining = rows.loadedTargets(inverse, of: target).filter { $0 !== model }
                        plan.nullified.append((target, inverse, remaining))
                    }
                }
            }
        }
        return plan
    }

    /// The index entries a save removes (old values, read from the stored records of deleted,
    /// changed and taken-over rows) and adds (the models' values).
    func planIndexes(
        inserted: InsertedModels, changed: [any PersistentModel], deleted: [any PersistentModel],
        takeovers: [UInt64?]
    ) throws -> (removals: [(Table, [UInt8], UInt64)], additions: [(Table, [UInt8], any PersistentModel)]) {
        var removals: [(Table, [UInt8], UInt64)] = []
        var additions: [(Table, [UInt8], any PersistentModel)] = []
        try store.read { txn in
            for model in deleted {
                let tables = store.tables(of: model)
                let row = model.persistentModelID.rowID!
                guard !tables.keys.indexes.isEmpty,
                    let stored = try rows.storedRecord(row: row, tables: tables, in: txn)
                else {
                    continue
                }
                for index in tables.keys.indexes { removals.append((index.table, try index.key(ofRecord: stored), row)) }
            }
            for model in changed {
                let tables = store.tables(of: model)
                guard !tables.keys.indexes.isEmpty else { continue }
                let state = model._$state
                let touched = tables.keys.indexes.filter { $0.isTouched(by: state) }
                guard !touched.isEmpty, let row = model.persistentModelID.rowID,
                    let stored = try rows.storedRecord(row: row, tables: tables, in: txn)
                else { continue }
                for index in touched {
                    let (old, new) = (try index.key(ofRecord: stored), index.key(of: model))
                    guard old != new else { continue }
                    removals.append((index.table, old, row))
                    additions.append((index.table, new, model))
                }
            }
            for position in 0..<inserted.count where !inserted.tables[position].keys.indexes.isEmpty {
                let (model, tables) = (inserted.models[position], inserted.tables[position])
                // A row taken over keeps the entries whose key stays the same.
                if !takeovers.isEmpty, let row = takeovers[position],
                    let stored = try rows.storedRecord(row: row, tables: tables, in: txn)
                {
                    for index in tables.keys.indexes {
                        let (old, new) = (try index.key(ofRecord: stored), index.key(of: model))
                        guard old != new else { continue }
                        removals.append((index.table, old, row))
                        additions.append((index.table, new, model))
                    }
                    continue
                }
                for index in tables.keys.indexes { additions.append((index.table, index.key(of: model), model)) }
            }
        }
        return (removals, additions)
    }

    /// Checks `minimumModelCount` and `maximumModelCount` of the relationships about to be written
    /// (only those with a bound are listed, with the number of targets written).
    func checkCounts(_ relationships: [CountedList]) throws {
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
                guard !tables.codec.encodingOrder.contains(where: { !$0.access.isLoaded(model) }) else {
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
        let capacity = tables.codec.encodingOrder.count * 24 + 8
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
        guard tables.codec.fieldsAscendInPropertyOrder else { return .notGenerated }
        // The writer is moved into the encoder and back, never copied: a second reference to its
        // bytes (a save's list of records) would make each write copy them all.
        var encoder = _FieldEncoder(
            tags: tables.codec.recordTags, accesses: tables.codec.accessByIndex, model: model, writer: .empty)
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
        for (tag, access) in tables.codec.encodingOrder {
            try access.encode(model, tag, &writer)
        }
    }
}

/// The changed models of a save whose change reaches more than their record, sorted by what it
/// reaches: a relationship (its edge list is rewritten), a unique or index key (the uniqueness
/// planner and the index entries look at it), an external value, a full-text index. Noted from each model's change
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
    /// Models with a changed attribute that a full-text index holds.
    private(set) var texts: [any PersistentModel] = []
    /// Models with a changed attribute that a vector index holds.
    private(set) var vectors: [any PersistentModel] = []

    /// Notes what `model`'s change (in `state`) reaches.
    mutating func note(_ model: any PersistentModel, state: _UnretainedModelState, tables: Store.EntityTables) {
        if tables.entity.relationships.contains(where: { state.isChanged($0.index) }) { relationships.append(model) }
        if !tables.keys.attributeIndexes.isEmpty,
            tables.keys.attributeIndexes.contains(where: { state.isChanged($0) })
        {
            keys.append(model)
        }
        if !tables.codec.externalAttributes.isEmpty, tables.codec.externalAttributes.keys.contains(where: { state.isChanged($0) }) {
            externals.append(model)
        }
        if !tables.keys.texts.isEmpty, tables.keys.texts.contains(where: { state.isChanged($0.propertyIndex) }) {
            texts.append(model)
        }
        if !tables.keys.vectors.isEmpty, tables.keys.vectors.contains(where: { state.isChanged($0.propertyIndex) }) {
            vectors.append(model)
        }
    }
}

// The stages of a save's plan (`SavePlanner.plan()`), in their order: changed rows, deletes,
// uniqueness, the inserts kept, relationship lists, index entries, external values, new rows.
extension SavePlanner {
    /// The changed models' row rewrites, their records encoded in the same pass, and what each
    /// change reaches beyond its record.
    struct ChangedRows {
        /// Each rewrite, by position, which is noted in the model's state (`planPosition`; -1 for
        /// one that is deleted: changed models are never among the inserted ones that use it).
        var updates: [SavePlan.Update] = []
        /// The identifiers of the models in ``updates``, by position.
        var identifiers: [PersistentIdentifier] = []
        var records: RecordList
        /// The changed models whose change reaches more than their record (a relationship, an
        /// index or unique key, an external value): the later stages walk only these, not every
        /// changed model again (each walk over a hundred thousand models is a cache miss per model).
        var reaching = ChangeReach()

        /// Keeps the rewrites of `kept` alone, in its order, noting each model's new position.
        /// Without deletes or takeovers every changed model is kept in the first pass's order, and
        /// no model is touched again.
        mutating func keep(_ kept: [any PersistentModel]) {
            guard kept.count != updates.count else { return }
            let positions = kept.map { $0._$state.planPosition }
            updates = positions.map { updates[$0] }
            identifiers = positions.map { identifiers[$0] }
            for (position, model) in kept.enumerated() { model._$state.planPosition = position }
        }
    }

    /// Stage one: a rewrite of every changed model's row. A model not wholly loaded
    /// (propertiesToFetch, faults) is completed first: its unique keys and record need every
    /// attribute. Built in one pass, a hundred thousand updates are one array of each.
    ///
    /// - Throws: ``SaveError`` `.modelDeletedElsewhere` when changed rows are gone.
    func planChangedRows(_ changedModels: [any PersistentModel]) throws -> ChangedRows {
        let deleting = Set(changes.deleted.map(\.persistentModelID))
        var deletedElsewhere: [PersistentIdentifier] = []
        var changed = ChangedRows(records: RecordList(reservingCapacity: changedModels.count, bytesPerRecord: 64))
        changed.updates.reserveCapacity(changedModels.count)
        changed.identifiers.reserveCapacity(changedModels.count)
        for model in changedModels {
            let state = model._$state
            state.planPosition = -1
            let tables = store.tables(of: model)
            changed.reaching.note(model, state: state, tables: tables)
            guard let id = state.persistentIdentifier, let rowID = id.rowID,
                deleting.isEmpty || !deleting.contains(id)
            else { continue }
            let record: Int
            if let complete = try Self.appendCompleteRecord(of: model, tables: tables, to: &changed.records) {
                record = complete
            } else {
                do {
                    try rows.load(model, rowID: rowID, tables: tables)
                } catch let error as StorageError where error.code == .notFound {
                    deletedElsewhere.append(id)
                    continue
                }
                record = try Self.appendRecord(of: model, tables: tables, to: &changed.records)
            }
            EntryLayout.withRowKey(rowID) { changed.records.seal(record, forKey: $0) }
            state.planPosition = changed.updates.count
            changed.updates.append(SavePlan.Update(tables: tables, row: rowID, record: record, changed: state.changed))
            changed.identifiers.append(id)
        }
        if !deletedElsewhere.isEmpty { throw SaveError.deletedElsewhere(deletedElsewhere) }
        return changed
    }

    /// The inserts that get rows once the uniqueness constraints are applied: a later insert with
    /// the same unique values supersedes an earlier one, and an insert with a stored row's takes
    /// that row over. A class: the stages and their closures share one reference to it, where
    /// each copy of a struct of these arrays retained every one of them.
    final class KeptInserts {
        /// The inserts that were candidates (not deleted), whose keys the plan takes over.
        let candidates: InsertedModels
        /// The inserts kept: their tables, records and positions among the new rows, all read in
        /// one pass.
        let kept: InsertedModels
        /// Each candidate's position among the kept ones; `nil` when all were kept.
        let newPositions: [Int?]?
        /// The row each kept insert takes over, by position (empty when none does).
        let takeovers: [UInt64?]
        /// The stored rows taken over, as identifiers, when a changed model may be among them.
        let takenOver: Set<PersistentIdentifier>

        init(_ candidates: InsertedModels, uniqueness: UniquenessPlan, changed: [any PersistentModel], store: Store) {
            self.candidates = candidates
            (kept, newPositions) = candidates.removing(uniqueness.superseded)
            if let positions = newPositions, !uniqueness.takeovers.isEmpty {
                takeovers = uniqueness.takeovers.indices.filter { positions[$0] != nil }.map { uniqueness.takeovers[$0] }
            } else {
                takeovers = uniqueness.takeovers
            }
            // A stored model whose row an insert takes over gives way to it (only changed ones
            // need finding: without any, no set of every takeover is made).
            takenOver =
                takeovers.isEmpty || changed.isEmpty
                ? []
                : Set(
                    zip(kept.identifiers, takeovers).compactMap { identifier, row in
                        row.map {
                            PersistentIdentifier(entity: identifier.entity, store: store.internedIdentifier, rowID: $0)
                        }
                    })
        }

        /// An insert's position among those kept, from its position among the candidates.
        func keptPosition(_ candidate: Int) -> Int? { newPositions.map { $0[candidate] } ?? candidate }

        /// The plan names rows, not models: a new model by its position among the new rows, noted
        /// in its state (`InsertedModels`), so no map has every model hashed into it.
        func reference(_ model: any PersistentModel) -> SavePlan.RowReference {
            let state = model._$state
            if let row = state.persistentIdentifier?.rowID { return .stored(row) }
            if let position = kept.position(of: model, state: state) { return .new(position) }
            return .missing(Schema.internedEntityName(of: type(of: model)))
        }
    }

    /// The models a save writes: the kept inserts, then the changed models that are neither
    /// deleted nor taken over, each with its tables and whether it is new. A class, as
    /// ``KeptInserts`` is.
    final class WrittenModels {
        let inserts: KeptInserts
        let updates: [SavePlan.Update]
        let deletes: DeletePlan

        init(inserts: KeptInserts, updates: [SavePlan.Update], deletes: DeletePlan) {
            self.inserts = inserts
            self.updates = updates
            self.deletes = deletes
        }

        /// Whether a changed model is written: not deleted, and its row not taken over.
        func isKept(_ model: any PersistentModel) -> Bool {
            (deletes.deletedObjects.isEmpty || !deletes.isDeleted(model))
                && (inserts.takenOver.isEmpty || !inserts.takenOver.contains(model.persistentModelID))
        }

        /// The inserted models, then those of `changedOnes` that are written (walked in place:
        /// joining the two lists copied every model).
        func forEach(
            _ changedOnes: [any PersistentModel], _ body: (any PersistentModel, Store.EntityTables, Bool) throws -> Void
        ) rethrows {
            for (model, tables) in zip(inserts.kept.models, inserts.kept.tables) { try body(model, tables, true) }
            for model in changedOnes where isKept(model) {
                try body(model, updates[model._$state.planPosition].tables, false)
            }
        }
    }

    /// The relationships to write: every one of an inserted model, the changed ones of a changed
    /// model, and the inverses the deletes nullify or takeovers release. Each is rewritten whole,
    /// in its order, without the deleted models; its targets are named as rows as they are read
    /// (lists of the target models cost an array and a retain of each model per list).
    ///
    /// - Returns: The lists whose counts have bounds, to check.
    func planEdgeLists(
        _ written: WrittenModels, reaching: [any PersistentModel], released: [UniquenessPlan.Release],
        into savePlan: inout SavePlan
    ) -> [CountedList] {
        // Room for about one list and one target per model written, reserved once, so that the
        // lists of a large save are not copied into fresh memory as they grow.
        let listsExpected = written.inserts.kept.count + reaching.count
        savePlan.edgeLists.reserveCapacity(listsExpected)
        savePlan.edgeTargets.reserveCapacity(listsExpected)
        var counted: [CountedList] = []
        let deletes = written.deletes
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
                if deletes.deletedObjects.isEmpty || !deletes.isDeleted(target) {
                    savePlan.edgeTargets.append(written.inserts.reference(target))
                }
            }
            let targets = start..<savePlan.edgeTargets.count
            if relationship.hasCountBounds { counted.append((owner, relationship, targets.count)) }
            guard !(isNew && targets.isEmpty) else { return }
            let kind = savePlan.edgeKind(relationship, of: ownerTables)
            savePlan.edgeLists.append(
                SavePlan.EdgeList(kind: kind, owner: written.inserts.reference(owner), targets: targets))
        }
        written.forEach(reaching) { model, tables, isNew in
            guard !tables.entity.relationships.isEmpty else { return }
            let state = model._$state
            for relationship in tables.entity.relationships where isNew || state.isChanged(relationship.index) {
                if isNew && !relationship.access.hasTargets(model) {
                    // An empty new list matters only to a lower bound on its count.
                    if relationship.minimumModelCount != nil { counted.append((model, relationship, 0)) }
                    continue
                }
                writeList(model, relationship, ownerTables: tables, isNew: isNew, into: &savePlan, counting: &counted) {
                    relationship.access.forEachTarget(model, $0)
                }
            }
        }
        for (owner, relationship, targets) in deletes.nullified + released where !deletes.isDeleted(owner) {
            writeList(
                owner, relationship, ownerTables: store.tables(of: owner), isNew: false, into: &savePlan,
                counting: &counted
            ) { targets.forEach($0) }
        }
        return counted
    }

    /// External-storage values: all of an inserted model, the changed ones of a changed model.
    func planExternalValues(_ written: WrittenModels, reaching: [any PersistentModel]) throws -> [SavePlan.External] {
        var externals: [SavePlan.External] = []
        try written.forEach(reaching) { model, tables, isNew in
            guard !tables.codec.externalAttributes.isEmpty else { return }
            for (index, (tag, access)) in tables.codec.externalAttributes.sorted(by: { $0.key < $1.key })
            where isNew || model._$state.isChanged(index) {
                var writer = RecordWriter()
                try access.encode(model, tag, &writer)
                externals.append(
                    SavePlan.External(
                        table: tables.layout.externals!, owner: written.inserts.reference(model), tag: tag,
                        value: writer.encoded()))
            }
        }
        return externals
    }

    /// The new rows, each with the row it takes over, and the identifiers the notifications list:
    /// the inserts that get rows of their own, and those that take stored rows over (an update).
    func planNewRows(
        _ inserts: KeptInserts, into savePlan: inout SavePlan
    ) -> (inserted: [PersistentIdentifier], takingOver: [PersistentIdentifier]) {
        let kept = inserts.kept
        var takingOver: [PersistentIdentifier] = []
        savePlan.newRows.reserveCapacity(kept.count)
        for position in 0..<kept.count {
            let tables = kept.tables[position]
            var row = SavePlan.NewRow(
                tables: tables, takesOver: inserts.takeovers.isEmpty ? nil : inserts.takeovers[position])
            if row.takesOver != nil {
                let model = kept.models[position]
                row.isLeftAloneWhenSame =
                    tables.codec.externalAttributes.isEmpty
                    && !tables.entity.relationships.contains { $0.access.hasTargets(model) }
                takingOver.append(kept.identifiers[position])
            }
            savePlan.newRows.append(row)
        }
        guard !inserts.takeovers.isEmpty else { return (kept.identifiers, takingOver) }
        let inserted = zip(kept.identifiers, savePlan.newRows).compactMap { $0.1.takesOver == nil ? $0.0 : nil }
        return (inserted, takingOver)
    }

    /// The unique entries a save claims and keeps: changed models' new keys, and the kept
    /// inserts' keys, named by position in the candidates' list of keys, which the plan takes over.
    func planUniqueEntries(_ uniqueness: UniquenessPlan, _ inserts: KeptInserts, into savePlan: inout SavePlan) {
        let candidates = inserts.candidates
        savePlan.uniqueKeys = candidates.keys
        savePlan.keptKeys = uniqueness.kept.compactMap { kept in
            inserts.keptPosition(kept.position).map {
                SavePlan.KeptKey(
                    table: candidates.keyTables[kept.key], key: kept.key, row: kept.row,
                    identifier: inserts.kept.identifiers[$0])
            }
        }
        savePlan.uniqueFreed = uniqueness.freed
        savePlan.uniqueClaims.reserveCapacity(uniqueness.claimed.count + uniqueness.insertClaims.count)
        for (table, key, model) in uniqueness.claimed {
            savePlan.uniqueKeys.append(key)
            savePlan.uniqueClaims.append(
                SavePlan.UniqueClaim(
                    table: table, key: savePlan.uniqueKeys.count - 1, row: inserts.reference(model),
                    entity: model.persistentModelID.entity))
        }
        for claim in uniqueness.insertClaims {
            guard let position = inserts.keptPosition(claim.position) else { continue }
            savePlan.uniqueClaims.append(
                SavePlan.UniqueClaim(
                    table: candidates.keyTables[claim.key], key: claim.key, row: .new(position),
                    entity: inserts.kept.tables[position].entityName))
        }
    }
}

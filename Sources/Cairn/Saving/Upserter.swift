import Foundation

/// Carries out a batch upsert (``ModelContext/upsert(_:chunkSize:)``) for one entity: reads the
/// models a chunk at a time, gives each model whose stored row the context holds an instance of
/// to that instance, inserts the others, and saves each chunk through the one save pipeline, whose
/// uniqueness planning finds each stored row by its unique values and lets the model take it over
/// (or leaves a row that already holds the values alone). It counts what each chunk did into an
/// ``UpsertReport``.
///
/// ```swift
/// let tables = context.store.entityTables(of: Author.self, for: "upsert(_:chunkSize:)")
/// let upserter = try Upserter(context: context, tables: tables)
/// let report = try upserter.upsert(authors, chunkSize: 10_000)
/// ```
struct Upserter {
    /// The context the models are saved through; it makes the upserter for one call.
    unowned let context: ModelContext
    /// The tables of the models' entity.
    let tables: Store.EntityTables
    /// The uniqueness constraint models are matched by: the entity's first.
    let constraint: Store.EntityTables.UniqueConstraint

    /// An upserter for the entity of `tables`.
    ///
    /// - Throws: ``SaveError`` with code `.noUniquenessConstraint` when the entity has no
    ///   uniqueness constraint to match models by.
    init(context: ModelContext, tables: Store.EntityTables) throws {
        guard let constraint = tables.keys.uniques.first else {
            throw SaveError(
                code: .noUniquenessConstraint,
                message: "upsert(_:) matches models by a uniqueness constraint, and \(tables.entity.name) has none. "
                    + "Add #Unique<\(tables.entity.name)>([\\.someKey]) or @Attribute(.unique) to the model, or insert "
                    + "the models with insert(_:).",
                models: [])
        }
        self.context = context
        self.tables = tables
        self.constraint = constraint
    }

    /// Upserts `models`, `chunkSize` of them per write transaction; the context's other unsaved
    /// changes are saved with the first chunk.
    func upsert<S: Sequence>(_ models: S, chunkSize: Int) throws -> UpsertReport where S.Element: PersistentModel {
        typealias T = S.Element
        let context = context
        var report = UpsertReport(entityName: tables.entity.name, storeIdentifier: context.store.identifier)
        var iterator = models.makeIterator()
        var chunk: [T] = []
        chunk.reserveCapacity(Swift.min(chunkSize, 65_536))
        var saved: [UInt64] = []
        while true {
            chunk.removeAll(keepingCapacity: true)
            // The models of the chunk before that the app does not hold are let go of now (as a
            // sweep would), so that the next chunk need not look for held instances of them.
            context.identity.releaseIfUnused(entity: tables.ordinal, rows: saved)
            while chunk.count < chunkSize, let model = iterator.next() { chunk.append(model) }
            if chunk.isEmpty && !context.hasChanges { break }
            saved = try upsertChunk(chunk, into: &report)
            if chunk.count < chunkSize { break }
        }
        return report
    }

    /// One chunk, through the one save pipeline: a model whose stored row the context holds an
    /// instance of gives that instance its values; every other model is inserted, and the save
    /// finds its stored row by its unique values and takes it over (SwiftData's upsert), or
    /// leaves it alone when it already holds exactly these values (`SavePlan.NewRow`).
    ///
    /// - Returns: The rows of the chunk's models that joined the context.
    func upsertChunk<T: PersistentModel>(_ chunk: [T], into report: inout UpsertReport) throws -> [UInt64] {
        let context = context
        try context.beginStoreAccess("upsert(_:chunkSize:)")
        for model in chunk {
            precondition(
                model._$state.loader == nil,
                "ModelContext.upsert(_:): pass new models; this \(T.self) already belongs to a context")
        }
        // Inserts made before the upsert are saved with its first chunk, but not reported by it.
        let earlier =
            context.pending.inserted.isEmpty ? nil : Set(context.insertedModelsArray.map(ObjectIdentifier.init))
        var updated: [UInt64] = []
        var unchanged: [UInt64] = []
        if context.identity.mayHoldRows(entity: tables.ordinal) {
            try routeToRegistered(chunk, updated: &updated, unchanged: &unchanged)
        } else {
            for model in chunk { context.insert(model) }
        }
        // Another writer may claim or remove a key between planning and the transaction: the
        // next attempt plans against what it stored.
        var saved = SaveApplier.SavedInserts()
        for attempt in 1... {
            do {
                saved = try context.saveChanges().inserts
                break
            } catch let error as SaveError where error.isClaimedMeanwhile && attempt < 4 {
                continue
            }
        }
        var joined: [UInt64] = []
        joined.reserveCapacity(saved.models.count)
        for position in saved.models.indices {
            let model = saved.models[position]
            // Without earlier inserts, every model saved is one of the chunk's.
            if let earlier, !(model is T) || earlier.contains(ObjectIdentifier(model)) { continue }
            joined.append(saved.rows[position])
            switch saved.outcomes[position] {
            case .inserted: report.insertedRows.append(saved.rows[position])
            case .tookOver: updated.append(saved.rows[position])
            case .leftAlone: unchanged.append(saved.rows[position])
            }
        }
        report.updatedRows.append(contentsOf: updated)
        report.unchangedRows.append(contentsOf: unchanged)
        return joined
    }

    /// Looks the chunk's keys up in one read: a model whose stored row the context holds gives
    /// that instance its values (unless the row holds them already), and every other is inserted.
    /// Of several models with the same key, the last wins.
    private func routeToRegistered<T: PersistentModel>(
        _ chunk: [T], updated: inout [UInt64], unchanged: inout [UInt64]
    ) throws {
        let (context, tables, constraint) = (context, tables, constraint)
        let keys = chunk.map { constraint.key(of: $0) }
        var latest: [HashedKey: Int] = [:]
        latest.reserveCapacity(keys.count)
        // An empty key (a value not equal to itself, such as a NaN) matches no other model.
        for (position, key) in keys.enumerated() where !key.isEmpty { latest[HashedKey(key)] = position }
        let winners = chunk.indices.filter { keys[$0].isEmpty || latest[HashedKey(keys[$0])] == $0 }
        context.statistics.readTransactions += 1
        // Only a row the context holds an instance of is compared here: any other is the save's.
        let held = try context.store.read { txn in
            try winners.map { position -> (row: UInt64, record: [UInt8]?, model: any PersistentModel)? in
                guard !keys[position].isEmpty, let row = try txn.uniqueRow(for: keys[position], in: constraint.table),
                    let registered = context.identity.model(entity: tables.ordinal, row: row)
                else { return nil }
                return (row, try txn.get(EntryLayout.rowKey(row), in: tables.layout.records), registered)
            }
        }
        for (position, existing) in zip(winners, held) {
            let model = chunk[position]
            guard let existing else {
                context.insert(model)
                continue
            }
            let registered = existing.model
            var record = try SavePlanner.record(of: model, tables: tables)
            let relates = tables.entity.relationships.contains { $0.access.hasTargets(model) }
            // Equal bytes under the same key: the stored record is intact and holds these values.
            if tables.codec.externalAttributes.isEmpty && !relates && existing.record == record.sealed(forRow: existing.row) {
                unchanged.append(existing.row)
                continue
            }
            try copyAttributes(from: model, to: registered)
            updated.append(existing.row)
        }
    }

    /// Gives `target`, a model the context holds, every persisted attribute value of `source`,
    /// as changes to be saved.
    private func copyAttributes(from source: any PersistentModel, to target: any PersistentModel) throws {
        let context = context
        for attribute in tables.entity.attributes where !attribute.isTransient {
            guard let access = attribute.access, let tag = tables.codec.tags[attribute.name], let index = attribute.index
            else { continue }
            var writer = RecordWriter()
            try access.encode(source, tag, &writer)
            access.unload(target)
            try access.decode(target, tag, try RecordReader(writer.finished()))
            target._$state.markChanged(index)
            context.attributeDidChange(target, index)
        }
        context.modelDidChange(target)
    }
}

import Foundation

/// What ``ModelContext/upsert(_:chunkSize:)`` did: which rows it inserted, which it updated, and
/// which it left unchanged because they already held the given values.
///
/// ```swift
/// let report = try context.upsert(authors)
/// print(report.insertedCount, report.updatedCount, report.unchangedCount)
/// let newIDs = report.inserted
/// ```
///
/// Rows are kept as runs of consecutive row ids, so a report of a million new rows (which get
/// consecutive ids) takes a few bytes, and memory stays flat however long the input is; the
/// identifier arrays are made when asked for.
public struct UpsertReport: Sendable {
    /// The entity the models belong to.
    ///
    /// ```swift
    /// report.entityName   // "Author"
    /// ```
    public let entityName: String
    let storeIdentifier: String
    var insertedRows = RowRuns()
    var updatedRows = RowRuns()
    var unchangedRows = RowRuns()

    /// How many models were new and inserted.
    ///
    /// ```swift
    /// print(report.insertedCount)
    /// ```
    public var insertedCount: Int { insertedRows.count }
    /// How many stored models took new values.
    ///
    /// ```swift
    /// print(report.updatedCount)
    /// ```
    public var updatedCount: Int { updatedRows.count }
    /// How many stored models already held the given values; nothing was written for them.
    ///
    /// ```swift
    /// print(report.unchangedCount)
    /// ```
    public var unchangedCount: Int { unchangedRows.count }

    /// The identifiers of the inserted models, in input order.
    ///
    /// ```swift
    /// for id in report.inserted { print(id) }
    /// ```
    public var inserted: [PersistentIdentifier] { identifiers(insertedRows) }
    /// The identifiers of the updated models, in input order.
    ///
    /// ```swift
    /// for id in report.updated { print(id) }
    /// ```
    public var updated: [PersistentIdentifier] { identifiers(updatedRows) }
    /// The identifiers of the models left unchanged, in input order.
    ///
    /// ```swift
    /// for id in report.unchanged { print(id) }
    /// ```
    public var unchanged: [PersistentIdentifier] { identifiers(unchangedRows) }

    private func identifiers(_ rows: RowRuns) -> [PersistentIdentifier] {
        rows.map { PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, rowID: $0) }
    }
}

/// Row ids in the order they were added, kept as runs of consecutive ids.
struct RowRuns: Sendable, Sequence {
    private var runs: [(first: UInt64, count: UInt64)] = []
    private(set) var count = 0
    /// How many runs hold the rows.
    var runCount: Int { runs.count }

    mutating func append(_ row: UInt64) {
        count += 1
        if let last = runs.last, last.first &+ last.count == row {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((row, 1))
        }
    }

    mutating func append(contentsOf rows: some Sequence<UInt64>) {
        for row in rows { append(row) }
    }

    func makeIterator() -> some IteratorProtocol<UInt64> {
        runs.lazy.flatMap { run in (0..<run.count).lazy.map { run.first + $0 } }.makeIterator()
    }
}

extension ModelContext {
    /// Inserts or updates many models at once, matched to stored ones by the entity's first
    /// uniqueness constraint (`#Unique` or `@Attribute(.unique)`), one write transaction per
    /// chunk. SwiftData has no such call; this replaces the usual fetch-then-insert loop:
    ///
    /// ```swift
    /// // SwiftData: one fetch per item, and every model kept until the end.
    /// for dto in dtos {
    ///     let id = dto.id
    ///     if let author = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id })).first {
    ///         author.name = dto.name
    ///     } else {
    ///         context.insert(Author(id: dto.id, name: dto.name))
    ///     }
    /// }
    /// try context.save()
    ///
    /// // Cairn: a lazy sequence keeps memory flat however many there are.
    /// let report = try context.upsert(dtos.lazy.map { Author(id: $0.id, name: $0.name) })
    /// ```
    ///
    /// For each chunk, the models' unique keys are looked up in one read. A model whose key is
    /// not stored is inserted; one whose stored row already holds exactly its values is left
    /// alone (nothing is written); any other updates that row. When the context already holds
    /// the stored model, that instance takes the new values (so identities stay as they were;
    /// its relationships are kept), else the given model takes the row over. Of several models
    /// with the same key in one chunk, the last wins. The context's other unsaved changes are
    /// saved with the first chunk.
    ///
    /// - Parameters:
    ///   - models: New models (not inserted into any context), read once, in order.
    ///   - chunkSize: How many models each write transaction takes; at least 1.
    /// - Returns: Which rows were inserted, updated and left unchanged.
    /// - Throws: ``SaveError`` with code `.noUniquenessConstraint` when the entity has no
    ///   uniqueness constraint to match on; otherwise what ``save()`` throws. Chunks saved before
    ///   an error stay saved; the failing chunk's models stay inserted in the context.
    public func upsert<S: Sequence>(_ models: S, chunkSize: Int = 10_000) throws -> UpsertReport
    where S.Element: PersistentModel {
        typealias T = S.Element
        checkOwner()
        precondition(chunkSize > 0, "ModelContext.upsert(_:chunkSize:): chunkSize must be at least 1, not \(chunkSize)")
        let tables = entityTables(of: T.self, for: "upsert(_:chunkSize:)")
        guard let constraint = tables.uniques.first else {
            throw SaveError(
                code: .noUniquenessConstraint,
                message: "upsert(_:) matches models by a uniqueness constraint, and \(tables.entity.name) has none. "
                    + "Add #Unique<\(tables.entity.name)>([\\.someKey]) or @Attribute(.unique) to the model, or insert "
                    + "the models with insert(_:).",
                models: [])
        }
        var report = UpsertReport(entityName: tables.entity.name, storeIdentifier: store.identifier)
        var iterator = models.makeIterator()
        var chunk: [T] = []
        chunk.reserveCapacity(Swift.min(chunkSize, 65_536))
        while true {
            chunk.removeAll(keepingCapacity: true)
            while chunk.count < chunkSize, let model = iterator.next() { chunk.append(model) }
            if chunk.isEmpty && !hasChanges { break }
            try upsertChunk(chunk, constraint: constraint, tables: tables, into: &report)
            if chunk.count < chunkSize { break }
        }
        return report
    }

    /// One chunk: classify by the stored rows, apply, save.
    private func upsertChunk<T: PersistentModel>(
        _ chunk: [T], constraint: Store.EntityTables.UniqueConstraint, tables: Store.EntityTables,
        into report: inout UpsertReport
    ) throws {
        // The one-pass path writes without save(): pending load errors are reported here alike.
        try beginStoreAccess("upsert(_:chunkSize:)")
        // The last model of each key wins.
        let keys = chunk.map { model in
            precondition(
                model._$modelState.loader == nil,
                "ModelContext.upsert(_:): pass new models; this \(T.self) already belongs to a context")
            return constraint.key(of: model)
        }
        var latest: [HashedKey: Int] = [:]
        latest.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { latest[HashedKey(key)] = position }
        let winners = chunk.indices.filter { latest[HashedKey(keys[$0])] == $0 }
        statistics.readTransactions += 1
        let (stored, snapshot): ([(row: UInt64, record: [UInt8]?)?], UInt64) = try store.environment.read { txn in
            let stored = try winners.map { position -> (row: UInt64, record: [UInt8]?)? in
                guard let row = try txn.uniqueRow(for: keys[position], in: constraint.table) else { return nil }
                return (row, try txn.get(EntryLayout.rowKey(row), in: tables.records))
            }
            return (stored, txn.id)
        }
        if allowsBulkUpsert && !hasChanges && tables.uniques.count == 1 && tables.externalAttributes.isEmpty
            && winners.allSatisfy({ position in
                tables.entity.relationships.allSatisfy { !$0.access.hasTargets(chunk[position]) }
            })
        {
            try bulkUpsertChunk(
                chunk, keys: keys, winners: winners, stored: stored, readAt: snapshot, constraint: constraint,
                tables: tables, into: &report)
            return
        }
        let comparable = tables.externalAttributes.isEmpty
        var inserted: [T] = []
        var updated: [UInt64] = []
        for (position, existing) in zip(winners, stored) {
            let model = chunk[position]
            guard let existing else {
                insert(model)
                inserted.append(model)
                continue
            }
            // Equal bytes under the same key: the stored record is intact and holds these values.
            var record = try SavePlanner.record(of: model, tables: tables)
            let relates = tables.entity.relationships.contains { $0.access.hasTargets(model) }
            if comparable && !relates && existing.record == record.sealed(forRow: existing.row) {
                report.unchangedRows.append(existing.row)
                continue
            }
            let id = PersistentIdentifier(
                entity: tables.entityName, store: store.internedIdentifier, rowID: existing.row)
            if let registered = identity.model(for: id) {
                try copyAttributes(from: model, to: registered, tables: tables)
            } else {
                insert(model)  // takes the row over at save
            }
            updated.append(existing.row)
        }
        try save()
        report.insertedRows.append(contentsOf: inserted.lazy.map { $0.persistentModelID.rowID! })
        report.updatedRows.append(contentsOf: updated)
    }

    /// A chunk written in one pass, for the common case: the context has no other changes, the
    /// entity has one uniqueness constraint and no external storage, and the models relate to
    /// nothing. The general path (insert, copy into registered instances, `save()`) plans for
    /// everything a save can hold and cost about 40,000 instructions per model; this encodes each
    /// record once and makes its puts in one write transaction, deciding insert, update or
    /// nothing by the rows that transaction sees. The outcome is the same: the same rows, index
    /// entries, history and notifications, the same registered instances; a test compares the
    /// two paths.
    private func bulkUpsertChunk<T: PersistentModel>(
        _ chunk: [T], keys: [[UInt8]], winners: [Int], stored: [(row: UInt64, record: [UInt8]?)?], readAt: UInt64,
        constraint: Store.EntityTables.UniqueConstraint, tables: Store.EntityTables, into report: inout UpsertReport
    ) throws {
        bulkUpsertChunks += 1
        let (entity, storeName) = (tables.entityName, store.internedIdentifier)
        // Sealed for their rows in the transaction; compared with stored records sealed alike.
        var records = try winners.map { try SavePlanner.record(of: chunk[$0], tables: tables) }
        func registered(_ row: UInt64) -> (any PersistentModel)? {
            identity.model(entity: tables.ordinal, row: row)
        }
        // willSave lists what the read before the transaction expects, as the general path does.
        var willInsert: [any PersistentModel] = []
        var willUpdate: [any PersistentModel] = []
        for (index, existing) in stored.enumerated() {
            guard let existing else {
                willInsert.append(chunk[winners[index]])
                continue
            }
            guard existing.record != records[index].sealed(forRow: existing.row) else { continue }
            willUpdate.append(registered(existing.row) ?? chunk[winners[index]])
        }
        // Nothing to write: no write transaction either.
        if willInsert.isEmpty && willUpdate.isEmpty {
            for existing in stored { report.unchangedRows.append(existing!.row) }
            return
        }
        post(Self.willSave, inserted: willInsert, updated: willUpdate, deleted: [])

        var plan = SavePlan()
        plan.readSnapshot = readAt
        plan.upsertTarget = SavePlan.UpsertTarget(
            tables: tables, unique: constraint,
            storedIndexKeys: { [rows] reader in
                let stored = try rows.scratchModel(from: reader, tables: tables)
                return tables.indexes.map { $0.key(of: stored) }
            })
        plan.upserts.reserveCapacity(winners.count)
        for (index, position) in winners.enumerated() {
            plan.upserts.append(
                SavePlan.Upsert(
                    key: keys[position], record: records[index],
                    indexKeys: tables.indexes.isEmpty ? [] : tables.indexes.map { $0.key(of: chunk[position]) },
                    found: stored[index]))
        }
        let outcome = try StoreWriter(store: store).write(plan)
        let (outcomes, commit) = (outcome.upserts, outcome.commit)
        noteOwnCommit(commit)

        // The models now stand for their rows: a registered instance takes an updated row's
        // values; otherwise the given model joins the context with the row's identifier.
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        inserted.reserveCapacity(outcomes.count)
        for ((outcome, record), position) in zip(zip(outcomes, records), winners) {
            let row: UInt64
            switch outcome {
            case .unchanged(let unchanged):
                report.unchangedRows.append(unchanged)
                continue
            case .inserted(let new):
                row = new
                report.insertedRows.append(row)
            case .updated(let existing):
                row = existing
                report.updatedRows.append(row)
            }
            let id = PersistentIdentifier(entity: entity, store: storeName, rowID: row)
            if case .updated = outcome, let instance = identity.model(for: id) {
                for (_, access) in tables.encodingOrder { access.unload(instance) }
                try rows.apply(
                    try RecordReader(record.bytes, key: EntryLayout.rowKey(row)), to: instance, tables: tables)
                updated.append(id)
                continue
            }
            let model = chunk[position]
            let state = model._$modelState
            state.persistentIdentifier = id
            state.attach(to: link, reporting: tables.keyedAttributeMask)
            state.recordChecksum = record.contentChecksum
            identity.register(model, entity: tables.ordinal, row: row)
            if case .inserted = outcome { inserted.append(id) } else { updated.append(id) }
        }
        post(Self.didSave, insertedIDs: inserted, updatedIDs: updated, deleted: [])
        checkInvariantsAfterSave()
    }

    /// Gives `target`, a model the context holds, every persisted attribute value of `source`,
    /// as changes to be saved.
    private func copyAttributes(
        from source: any PersistentModel, to target: any PersistentModel, tables: Store.EntityTables
    ) throws {
        for attribute in tables.entity.attributes where !attribute.isTransient {
            guard let access = attribute.access, let tag = tables.tags[attribute.name], let index = attribute.index
            else { continue }
            var writer = RecordWriter()
            try access.encode(source, tag, &writer)
            access.unload(target)
            try access.decode(target, tag, try RecordReader(writer.finished()))
            target._$modelState.markChanged(index)
            attributeDidChange(target, index)
        }
        modelDidChange(target)
    }
}

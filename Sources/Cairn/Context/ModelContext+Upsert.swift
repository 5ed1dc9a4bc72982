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
        var saved: [UInt64] = []
        while true {
            chunk.removeAll(keepingCapacity: true)
            // The models of the chunk before that the app does not hold are let go of now (as a
            // sweep would), so that the next chunk need not look for held instances of them.
            identity.releaseIfUnused(entity: tables.ordinal, rows: saved)
            while chunk.count < chunkSize, let model = iterator.next() { chunk.append(model) }
            if chunk.isEmpty && !hasChanges { break }
            saved = try upsertChunk(chunk, constraint: constraint, tables: tables, into: &report)
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
    private func upsertChunk<T: PersistentModel>(
        _ chunk: [T], constraint: Store.EntityTables.UniqueConstraint, tables: Store.EntityTables,
        into report: inout UpsertReport
    ) throws -> [UInt64] {
        try beginStoreAccess("upsert(_:chunkSize:)")
        for model in chunk {
            precondition(
                model._$modelState.loader == nil,
                "ModelContext.upsert(_:): pass new models; this \(T.self) already belongs to a context")
        }
        // Inserts made before the upsert are saved with its first chunk, but not reported by it.
        let earlier = pending.inserted.isEmpty ? nil : Set(insertedModelsArray.map(ObjectIdentifier.init))
        var updated: [UInt64] = []
        var unchanged: [UInt64] = []
        if identity.mayHoldRows(entity: tables.ordinal) {
            try routeToRegistered(
                chunk, constraint: constraint, tables: tables, updated: &updated, unchanged: &unchanged)
        } else {
            for model in chunk { insert(model) }
        }
        // Another writer may claim or remove a key between planning and the transaction: the
        // next attempt plans against what it stored.
        var saved = SavedInserts()
        for attempt in 1... {
            do {
                saved = try saveChanges()
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
        _ chunk: [T], constraint: Store.EntityTables.UniqueConstraint, tables: Store.EntityTables,
        updated: inout [UInt64], unchanged: inout [UInt64]
    ) throws {
        let keys = chunk.map { constraint.key(of: $0) }
        var latest: [HashedKey: Int] = [:]
        latest.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { latest[HashedKey(key)] = position }
        let winners = chunk.indices.filter { latest[HashedKey(keys[$0])] == $0 }
        statistics.readTransactions += 1
        let stored = try store.environment.read { txn in
            try winners.map { position -> (row: UInt64, record: [UInt8]?)? in
                guard let row = try txn.uniqueRow(for: keys[position], in: constraint.table) else { return nil }
                return (row, try txn.get(EntryLayout.rowKey(row), in: tables.records))
            }
        }
        for (position, existing) in zip(winners, stored) {
            let model = chunk[position]
            guard let existing, let registered = identity.model(entity: tables.ordinal, row: existing.row) else {
                insert(model)
                continue
            }
            var record = try SavePlanner.record(of: model, tables: tables)
            let relates = tables.entity.relationships.contains { $0.access.hasTargets(model) }
            // Equal bytes under the same key: the stored record is intact and holds these values.
            if tables.externalAttributes.isEmpty && !relates && existing.record == record.sealed(forRow: existing.row) {
                unchanged.append(existing.row)
                continue
            }
            try copyAttributes(from: model, to: registered, tables: tables)
            updated.append(existing.row)
        }
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

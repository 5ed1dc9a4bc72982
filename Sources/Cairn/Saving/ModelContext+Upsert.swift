import Foundation

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
    ///   uniqueness constraint to match on, or `.invalidArgument` when `chunkSize` is less than 1;
    ///   otherwise what ``save()`` throws. Chunks saved before
    ///   an error stay saved; the failing chunk's models stay inserted in the context.
    public func upsert<S: Sequence>(_ models: S, chunkSize: Int = 10_000) throws -> UpsertReport
    where S.Element: PersistentModel {
        checkOwner()
        guard chunkSize > 0 else {
            throw SaveError(
                code: .invalidArgument,
                message: "ModelContext.upsert(_:chunkSize:) was given the chunk size \(chunkSize); a chunk holds at "
                    + "least 1 model. Nothing was saved. Pass a chunk size of 1 or more (10,000 by default).",
                models: [])
        }
        let tables = store.entityTables(of: S.Element.self, for: "upsert(_:chunkSize:)")
        guard tables.entity.subentities.isEmpty else { return try upsertHierarchy(models, tables, chunkSize) }
        return try Upserter(context: self, tables: tables).upsert(models, chunkSize: chunkSize)
    }

    /// ``upsert(_:chunkSize:)`` of models of a class that others inherit from: each class's
    /// models go through an upserter of their own entity (a record is written with its class's
    /// fields), and the report lists them all, each identifier with its class's entity.
    private func upsertHierarchy<S: Sequence>(
        _ models: S, _ tables: Store.EntityTables, _ chunkSize: Int
    ) throws -> UpsertReport where S.Element: PersistentModel {
        var groups: [(tables: Store.EntityTables, models: [S.Element])] = []
        for model in models {
            let concrete = store.tables(of: model)
            if let index = groups.firstIndex(where: { $0.tables === concrete }) {
                groups[index].models.append(model)
            } else {
                groups.append((concrete, [model]))
            }
        }
        var report = UpsertReport(entityName: tables.entity.name, storeIdentifier: store.identifier)
        for (concrete, members) in groups {
            let part = try Upserter(context: self, tables: concrete).upsert(members, chunkSize: chunkSize)
            report.insertedRows.append(contentsOf: part.insertedRows)
            report.updatedRows.append(contentsOf: part.updatedRows)
            report.unchangedRows.append(contentsOf: part.unchangedRows)
            report.entityNamesByClass[concrete.lineage.classNumber] = concrete.entity.name
        }
        return report
    }
}

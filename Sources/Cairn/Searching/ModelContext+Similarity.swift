import Foundation

extension ModelContext {
    /// The models whose `.vector` attribute is nearest the descriptor's vector, nearest first,
    /// each with its distance.
    ///
    /// The index is the store's, written in the same commit as the models, so a search finds
    /// what is saved: a model inserted or changed since the last save is found by its saved
    /// vector, or not at all when it has none (save first to search it). Models deleted in this
    /// context are left out, and the predicate sees each model as the context holds it. Through
    /// the approximate index, a predicate few models satisfy widens the walk (to the candidates
    /// the share that satisfied it says the limit needs, and then some) until enough satisfy it,
    /// and past half the collection, or where
    /// the walk can reach no more, every vector is compared instead: a search returns
    /// ``SimilarityDescriptor/fetchLimit`` models whenever that many satisfy the predicate.
    ///
    /// ```swift
    /// let results = try context.search(SimilarityDescriptor<Photo>(nearest: embedding, fetchLimit: 10))
    /// let photos = results.map(\.model)
    /// ```
    ///
    /// - Throws: ``FetchError`` `.notSearchable` when the type has no `.vector` attribute or
    ///   the one asked for is not one; `.invalidArgument` for a vector of another length or with
    ///   a number that is not finite, a negative limit or an effort below 1; `.predicateFailed`
    ///   when the predicate throws on a model; `StorageError` when the index is damaged.
    public func search<T: PersistentModel>(_ descriptor: SimilarityDescriptor<T>) throws -> [SimilarityResult<T>] {
        try beginStoreAccess()
        let tables = store.entityTables(of: T.self, for: "search(_:)")
        let index = try Self.similarityIndex(of: descriptor, in: tables)
        let searcher = VectorSearcher(index: index, vector: descriptor.vector)
        var judged: [UInt64: T?] = [:]
        func accepted(_ ranked: [VectorCandidate]) throws -> [SimilarityResult<T>] {
            var results: [SimilarityResult<T>] = []
            for candidate in ranked where results.count < descriptor.fetchLimit {
                let model = try judged[candidate.row] ?? judge(candidate.row, descriptor.predicate, tables)
                judged[candidate.row] = model
                if let model {
                    results.append(
                        SimilarityResult(model: model, distance: index.distance.reported(candidate.distance)))
                }
            }
            return results
        }
        guard descriptor.fetchLimit > 0 else { return [] }
        if !descriptor.isExact {
            var effort = max(descriptor.searchEffort ?? HNSWParameters.searchEffort, descriptor.fetchLimit)
            while true {
                let (nearest, total) = try store.read { txn in try searcher.approximate(effort: effort, in: txn) }
                let results = try accepted(nearest)
                // Enough found, or the walk reached every node: the exact answer could not add any.
                if results.count == descriptor.fetchLimit || nearest.count >= total { return results }
                // A walk that ended short of its effort reached all it can: only comparing every
                // vector finds the rest.
                if nearest.count < effort { break }
                effort = Self.widened(effort, passed: results.count, of: nearest.count, wanted: descriptor.fetchLimit)
                if effort >= total / 2 || effort < 0 { break }
            }
        }
        let all = try store.read { txn in try searcher.exact(in: txn) }
        var count = descriptor.fetchLimit > all.count / 2 ? all.count : max(descriptor.fetchLimit * 2, 16)
        while true {
            let results = try accepted(VectorCandidate.nearest(count, of: all))
            if results.count == descriptor.fetchLimit || count >= all.count { return results }
            count = count > all.count / 8 ? all.count : count * 8
        }
    }

    /// The effort of the next walk when `passed` of `candidates` met the predicate and `wanted`
    /// must: half again the candidates that share says would hold them, at least twice and at
    /// most eight times `effort` (a fixed four times walked a tenth-selective filter's 256 where
    /// 160 would do). Negative when it overflows.
    static func widened(_ effort: Int, passed: Int, of candidates: Int, wanted: Int) -> Int {
        let (needed, overflow) = wanted.multipliedReportingOverflow(by: candidates)
        let estimate = overflow ? Int.max : needed / max(passed, 1) + needed / max(passed, 1) / 2
        let (twice, over2) = effort.multipliedReportingOverflow(by: 2)
        let (eightfold, over8) = effort.multipliedReportingOverflow(by: 8)
        if over2 { return -1 }
        return min(max(estimate, twice), over8 ? Int.max : eightfold)
    }

    /// The model of `row` when it is a `T` the context has not deleted and `predicate` accepts.
    private func judge<T: PersistentModel>(
        _ row: UInt64, _ predicate: Predicate<T>?, _ tables: Store.EntityTables
    ) throws -> T? {
        let id = PersistentIdentifier(
            entity: tables.concrete(forRow: row).entityName, store: store.internedIdentifier, rowID: row)
        guard let model = rows.modelOrFault(id) as? T, !pending.deleted.contains(model) else { return nil }
        if let predicate, try !FetchError.evaluating(predicate.expression, on: model, { try predicate.evaluate(model) })
        {
            return nil
        }
        return model
    }

    /// The vector index a similarity search of `tables`' entity reads, once the descriptor is
    /// one it can answer.
    private static func similarityIndex<T>(
        of descriptor: SimilarityDescriptor<T>, in tables: Store.EntityTables
    ) throws -> Store.EntityTables.VectorIndex {
        func invalid(_ message: String) -> FetchError {
            FetchError(code: .invalidArgument, message: message, model: nil, underlying: "")
        }
        let all = tables.keys.vectors
        let names = all.map { "\\\(T.self).\($0.attribute)" }.joined(separator: ", ")
        let found = descriptor.attribute.map { keyPath in all.first { $0.keyPath == keyPath } } ?? all.first
        guard let index = found, descriptor.attribute != nil || all.count == 1 else {
            throw FetchError(
                code: .notSearchable,
                message: all.isEmpty
                    ? "\(T.self) has no vector index. Declare a [Float] attribute with @Attribute(.vector(dimensions: "
                        + "…)); the index is built as the container opens."
                    : descriptor.attribute == nil
                        ? "\(T.self) has several vector attributes (\(names)). Name the one to compare in the descriptor."
                        : "SimilarityDescriptor<\(T.self)> names an attribute with no vector index. Use one of \(names).",
                model: nil, underlying: "")
        }
        if descriptor.fetchLimit < 0 {
            throw invalid("SimilarityDescriptor<\(T.self)>.fetchLimit is \(descriptor.fetchLimit); give 0 or more.")
        }
        if let effort = descriptor.searchEffort, effort < 1 {
            throw invalid("SimilarityDescriptor<\(T.self)>.searchEffort is \(effort); give 1 or more, or nil.")
        }
        if let problem = index.problem(with: descriptor.vector) {
            throw invalid("The vector sought in \\\(T.self).\(index.attribute) \(problem).")
        }
        return index
    }
}

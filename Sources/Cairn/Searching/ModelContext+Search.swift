import Foundation

extension ModelContext {
    /// The models whose `.spotlight` text attributes match the descriptor's query, best BM25
    /// score first, each with its score and the ranges that matched.
    ///
    /// The index is the store's, written in the same commit as the models, so a search finds
    /// what is saved: a model inserted or changed since the last save is found by its saved
    /// text, or not at all when it has none (save first to search it). Models deleted in this
    /// context are left out, and the predicate sees each model as the context holds it.
    ///
    /// ```swift
    /// let results = try context.search(SearchDescriptor<Note>(try TextQuery("swift data*"), fetchLimit: 20))
    /// let notes = results.map(\.model)
    /// ```
    ///
    /// - Throws: ``FetchError`` `.notSearchable` when the type has no `.spotlight` text attribute
    ///   or an attribute asked for is not one, or the query asks an encrypted store for a prefix;
    ///   `.predicateFailed` when the predicate throws on a model; `.invalidArgument` for a
    ///   negative limit; `StorageError` when the index is damaged.
    public func search<T: PersistentModel>(_ descriptor: SearchDescriptor<T>) throws -> [SearchResult<T>] {
        try beginStoreAccess()
        if let limit = descriptor.fetchLimit, limit < 0 {
            throw FetchError(
                code: .invalidArgument,
                message: "SearchDescriptor<\(T.self)>.fetchLimit is \(limit); give 0 or more, or nil for every match.",
                model: nil, underlying: "")
        }
        let tables = store.entityTables(of: T.self, for: "search(_:)")
        let searcher = TextSearcher(
            tables: tables, indexes: try Self.searchedIndexes(descriptor.attributes, of: tables))
        let matches = try store.read { txn in try searcher.matches(descriptor.query, in: txn) }
        var results: [SearchResult<T>] = []
        let limit = descriptor.fetchLimit ?? .max
        let phrases = descriptor.query.soughtPhrases
        for position in matches.ranked() {
            guard results.count < limit else { break }
            let row = matches.rows[position]
            let id = PersistentIdentifier(
                entity: tables.concrete(forRow: row).entityName, store: store.internedIdentifier, rowID: row)
            guard let model = rows.modelOrFault(id) as? T, !pending.deleted.contains(model) else { continue }
            if let predicate = descriptor.predicate,
                try !FetchError.evaluating(predicate.expression, on: model, { try predicate.evaluate(model) })
            {
                continue
            }
            results.append(SearchResult(model: model, score: matches.scores[position], phrases: phrases))
        }
        return results
    }

    /// The full-text indexes a search of `tables`' entity reads: those of `attributes`, or all.
    private static func searchedIndexes<T>(
        _ attributes: [PartialKeyPath<T>]?, of tables: Store.EntityTables
    ) throws -> [Store.EntityTables.TextIndex] {
        let all = tables.keys.texts
        guard !all.isEmpty else {
            throw FetchError(
                code: .notSearchable,
                message: "\(T.self) has no full-text index. Mark the String attributes to search with "
                    + "@Attribute(.spotlight); the index is built as the container opens.",
                model: nil, underlying: "")
        }
        guard let attributes else { return all }
        return try attributes.map { keyPath in
            guard let index = all.first(where: { $0.keyPath == keyPath }) else {
                throw FetchError(
                    code: .notSearchable,
                    message: "SearchDescriptor<\(T.self)> searches \(keyPath), which has no full-text index. Search "
                        + "\(all.map { "\\\(T.self).\($0.attribute)" }.joined(separator: ", ")), or mark the attribute "
                        + "@Attribute(.spotlight) (a String or String?).",
                    model: nil, underlying: "")
            }
            return index
        }
    }
}

import Foundation

/// Finds a descriptor's matches without keeping their models, and loads them a batch at a time:
/// what ``ModelContext/fetch(_:batchSize:)``, ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``
/// and ``ModelContext/fetchIdentifiers(_:)`` are made of.
///
/// ```swift
/// let loader = BatchLoader(context: context, descriptor: FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
/// let matches = try loader.orderedMatches()   // identifiers, in the descriptor's order
/// let first = loader.load(matches.prefix(500))
/// ```
struct BatchLoader<T: PersistentModel> {
    /// One match of a fetch before its model is loaded: a stored model's identifier, or a
    /// model only in this context (inserted, not saved).
    enum Match {
        case stored(PersistentIdentifier)
        case pending(T)

        var identifier: PersistentIdentifier {
            switch self {
            case .stored(let identifier): identifier
            case .pending(let model): model.persistentModelID
            }
        }
    }

    /// How many records a match pass reads per read transaction.
    static var matchChunk: Int { 1_024 }

    /// The context the models are loaded into; a ``FetchResultsCollection`` keeps it alive.
    let context: ModelContext
    let descriptor: FetchDescriptor<T>

    /// The descriptor's matches in its order, after its offset and limit, without keeping their
    /// models: rows are read `matchChunk` at a time with only the attributes the predicate and
    /// the sort use decoded; a model is kept only until the sort when there is one.
    func orderedMatches() throws -> [Match] {
        let tables = context.store.entityTables(of: T.self, for: "fetchIdentifiers(_:)")
        var lean = FetchRequest(descriptor, tables: tables)
        lean.propertiesToFetch = []
        // Leaving unsaved changes out, the predicate and the sort see the stored values.
        let images = StoredImages.unlessPendingChangesCount(descriptor, in: context)
        defer { images?.close() }
        let executor = try FetchExecutor(lean, in: context, images: images)
        defer { images?.addStatistics(to: context) }
        let used = executor.planner.tagsUsed(by: lean)
        func match(_ model: T) -> Match {
            model.persistentModelID.isTemporary ? .pending(model) : .stored(model.persistentModelID)
        }
        // Reads about `limit` rows anyway.
        if let matches = try executor.matchesInIndexOrder(decoding: used) {
            try images?.throwLoadError()
            return FetchResults.typed(FetchResults.ordered(matches, by: executor), as: T.self).map(match)
        }
        // Once, by count: in this generic code each `isEmpty` looked the array's type up.
        let isSorted = descriptor.sortBy.count > 0
        var sortable: [any PersistentModel] = []
        var entries: [Match] = []
        var matchedStored = Set<ObjectIdentifier>()
        try executor.forEachStoredMatch(decoding: used, stopAfter: nil, chunkSize: Self.matchChunk) { models in
            for model in models {
                matchedStored.insert(ObjectIdentifier(model))
                if !isSorted {
                    entries.append(.stored(model.persistentModelID))
                } else {
                    sortable.append(model)
                }
            }
            return true
        }
        try images?.throwLoadError()
        let pending = try executor.pendingMatches(excluding: matchedStored)
        if !isSorted {
            return executor.page(entries + FetchResults.typed(pending, as: T.self).map(match))
        }
        return FetchResults.typed(FetchResults.ordered(sortable + pending, by: executor), as: T.self).map(match)
    }

    /// The models of a batch of matches, loaded in one read transaction (the descriptor's
    /// `propertiesToFetch` apply): `nil` for a stored match whose row is gone and that the
    /// context does not hold.
    func load(_ matches: ArraySlice<Match>) -> [T?] {
        let context = context
        let tables = context.store.entityTables(of: T.self, for: "fetch(_:batchSize:)")
        let rowIDs = matches.compactMap { match -> UInt64? in
            if case .stored(let identifier) = match { return identifier.rowID }
            return nil
        }
        var loaded: [T] = []
        var present = Set<UInt64>()
        var readFailed = false
        if !rowIDs.isEmpty {
            context.statistics.readTransactions += 1
            do {
                let rows = try context.store.read { txn in
                    try CandidateReader.records(of: rowIDs.sorted(), tables: tables, txn: txn)
                }
                present = Set(rows.map(\.0))
                var stored = FetchRequest(descriptor, tables: tables)
                stored.includePendingChanges = false
                loaded = FetchResults.typed(try FetchExecutor.models(for: rows, of: stored, in: context), as: T.self)
            } catch {
                // The models stay unloaded: reading one reads its record, and reports what fails then.
                readFailed = true
            }
        }
        return withExtendedLifetime(loaded) {
            matches.map { match -> T? in
                switch match {
                case .stored(let identifier):
                    if let registered: T = context.registeredModel(for: identifier) { return registered }
                    guard readFailed || identifier.rowID.map(present.contains) == true else { return nil }
                    return context.registeredOrFault(identifier) as? T
                case .pending(let model):
                    return model
                }
            }
        }
    }
}

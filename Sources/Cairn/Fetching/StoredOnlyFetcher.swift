import Foundation

/// Answers fetches that leave the context's unsaved changes out (`includePendingChanges: false`
/// while the context has changes), which may reach the predicate through related models too: a
/// context without changes on the same store answers, and its reads count as the context's.
///
/// ```swift
/// var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.year > 2000 })
/// descriptor.includePendingChanges = false
/// let stored = try StoredOnlyFetcher(context: context).fetch(descriptor, tables: tables)
/// ```
struct StoredOnlyFetcher {
    /// The context whose instances the results are; it makes the fetcher for one call.
    unowned let context: ModelContext

    /// The models that match, as this context's instances of them (loaded in one read when new).
    func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, tables: Store.EntityTables) throws -> [T] {
        let context = context
        var plain = descriptor
        plain.includePendingChanges = true
        plain.relationshipKeyPathsForPrefetching = []
        let scratch = ModelContext(context.container)
        let identifiers = try scratch.fetch(plain).map(\.persistentModelID)
        context.statistics.readTransactions += scratch.statistics.readTransactions
        context.statistics.recordLoads += scratch.statistics.recordLoads
        let unregistered = identifiers.filter { (context.registeredModel(for: $0) as T?) == nil }.compactMap(\.rowID)
        var loaded: [T] = []
        if !unregistered.isEmpty {
            context.statistics.readTransactions += 1
            let rows = try context.store.environment.read { txn in
                try CandidateReader.records(of: unregistered.sorted(), tables: tables, txn: txn)
            }
            loaded = FetchResults.typed(
                try context.models(for: rows, of: FetchRequest(plain, tables: tables)), as: T.self)
        }
        // The identity map sweeps as models register: keep the ones just loaded until they are in `page`.
        let page = withExtendedLifetime(loaded) { identifiers.map { context.registeredOrFault($0) as! T } }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try Prefetcher(store: context.store, rows: context.rows).prefetch(
                descriptor.relationshipKeyPathsForPrefetching.map { $0 as AnyKeyPath }, of: page)
        }
        return page
    }

    /// The identifiers of the stored models that match, in the descriptor's order.
    func identifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let context = context
        var plain = descriptor
        plain.includePendingChanges = true
        let scratch = ModelContext(context.container)
        defer {
            context.statistics.readTransactions += scratch.statistics.readTransactions
            context.statistics.recordLoads += scratch.statistics.recordLoads
        }
        return try BatchLoader(context: scratch, descriptor: plain).orderedMatches().map(\.identifier)
    }

    /// The number of stored models that match (the descriptor's limit and offset apply).
    func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        var plain = descriptor
        plain.includePendingChanges = true
        return try ModelContext(context.container).fetchCount(plain)
    }
}

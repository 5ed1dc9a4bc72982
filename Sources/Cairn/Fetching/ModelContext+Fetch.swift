import Foundation

extension ModelContext {
    /// The models that match a descriptor, in its order.
    ///
    /// The planner picks how to find candidates (see ``explain(_:)``): a unique key, index keys or
    /// an index range when the predicate allows, else every row, read in one read transaction.
    /// Rows the context already holds come back as the same instances, and the others are loaded
    /// from the record just read. With a ``FetchDescriptor/fetchLimit`` and a first sort key that
    /// has an index, rows are read in index order and reading stops once the limit is certain.
    /// With ``FetchDescriptor/includePendingChanges`` (the default), inserted models that match are
    /// included, deleted ones left out, and changed ones judged by their unsaved values.
    ///
    /// ```swift
    /// let recent = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.year > 2000 }))
    /// ```
    /// - Throws: `StorageError` when the store cannot be read; ``FetchError`` when the predicate
    ///   cannot be evaluated on a model, or (``FetchError/Code/loadFailed``, before anything is
    ///   read) when a property could not be loaded since the last save or fetch: see
    ///   ``pendingLoadErrors``.
    /// - Complexity: O(*n* log *n*) in the candidate rows.
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        // Erased and cast back here, compiled with the caller for `T` (see `FetchRequest`).
        FetchResults.typed(try fetchPage(FetchQuery(descriptor)), as: T.self)
    }

    /// ``fetch(_:)`` for an erased descriptor: its page of models, in its order, with the
    /// relationships to prefetch loaded.
    @usableFromInline
    func fetchPage(_ query: consuming FetchQuery) throws -> [any PersistentModel] {
        try beginStoreAccess()
        let tables = store.entityTables(of: query.modelType, for: "fetch(_:)")
        let (storedOnly, prefetching) = (!query.includePendingChanges && hasChanges, query.prefetching)
        // The query moves into the request and the request into the executor, uncopied: each
        // is made where it is used (a copy retained each of their references again).
        let page: [any PersistentModel]
        if storedOnly {
            page = try StoredOnlyFetcher(context: self).fetch(FetchRequest(consume query, tables: tables))
        } else {
            let executor = try FetchExecutor(FetchRequest(consume query, tables: tables), in: self)
            let start = store.slowFetchThreshold.map { _ in ContinuousClock.now }
            page = FetchResults.ordered(try executor.matches(), by: executor)
            if let start { logIfSlow(since: start, executor, count: page.count, tables: tables) }
        }
        // The relationships to prefetch are loaded for whichever instances the page holds.
        if !prefetching.isEmpty {
            try Prefetcher(store: store, rows: rows).prefetch(prefetching, of: page, tables: tables)
        }
        return page
    }

    /// Logs a fetch that took longer than the configuration's ``ModelConfiguration/slowFetchThreshold``,
    /// with its plan: what the app should see when a fetch lacks an index. Out of line: the
    /// common case is one comparison.
    @inline(never)
    func logIfSlow(
        since start: ContinuousClock.Instant, _ executor: FetchExecutor, count: Int, tables: Store.EntityTables
    ) {
        let elapsed = ContinuousClock.now - start
        guard let threshold = store.slowFetchThreshold, elapsed > threshold else { return }
        let plan = (try? FetchExplainer(executor: executor, store: store).plan()).map { "\($0)" } ?? "(no plan)"
        func milliseconds(_ duration: Duration) -> Int {
            Int(duration.components.seconds) * 1_000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
        }
        let message =
            "Slow fetch of \(tables.entityName): \(milliseconds(elapsed)) ms for \(count) models (threshold "
            + "\(milliseconds(threshold)) ms). Plan: \(plan). An index (#Index) on the attributes the predicate "
            + "compares, or a fetchLimit, lets the fetch read fewer rows."
        cairnLog.notice("\(message)")
    }

    /// The number of models that match a descriptor (its limit and offset apply).
    ///
    /// ```swift
    /// let count = try context.fetchCount(FetchDescriptor<Book>())
    /// ```
    /// - Throws: What ``fetch(_:)`` throws.
    /// - Complexity: O(*n*) in the candidate rows; without a predicate, O(1) plus the context's
    ///   pending changes.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try beginStoreAccess()
        let tables = store.entityTables(of: T.self, for: "fetchCount(_:)")
        return try FetchCounter(context: self).count(descriptor, tables: tables)
    }

    /// How ``fetch(_:)`` would find the descriptor's models: the access path it chooses and
    /// roughly how many rows that path reads.
    ///
    /// ```swift
    /// let plan = try context.explain(FetchDescriptor<Author>(predicate: #Predicate { $0.lastName == "Austen" }))
    /// print(plan)   // "index equality on i/Author/lastName (lastName ==), about 1 rows, then the predicate …"
    /// ```
    /// - Throws: `StorageError` when the store cannot be read.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchPlan {
        checkOwner()
        let tables = store.entityTables(of: T.self, for: "explain(_:)")
        let executor = try FetchExecutor(FetchRequest(descriptor, tables: tables), in: self)
        return try FetchExplainer(executor: executor, store: store).plan()
    }
}

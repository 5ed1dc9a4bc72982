import Foundation

extension ModelContext {
    /// The models that match a descriptor, as a collection that loads them a batch at a time
    /// when they are used, as in SwiftData.
    ///
    /// Making the collection finds the matches and their order: rows are read in chunks with
    /// only the attributes the predicate and sort descriptors use, and only identifiers are
    /// kept (and, while sorting, those attributes). Each batch is then read in one transaction
    /// when one of its elements is first used.
    ///
    /// ```swift
    /// let all = try context.fetch(FetchDescriptor<Book>(), batchSize: 1_000)
    /// print(all.count)            // no model loaded yet
    /// print(all[0].title)         // loads the first 1,000
    /// ```
    /// - Parameters:
    ///   - descriptor: Which models, in what order (its limit, offset and pending-changes option apply).
    ///   - batchSize: How many models each batch loads; at least 1.
    /// - Throws: What ``fetch(_:)`` throws; ``FetchError`` with code `.invalidArgument` when
    ///   `batchSize` is less than 1.
    public func fetch<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<T> {
        guard batchSize > 0 else { throw FetchError.invalidBatchSize(batchSize, of: "fetch(_:batchSize:)") }
        try beginStoreAccess()
        let loader = BatchLoader(context: self, descriptor: descriptor)
        return FetchResultsCollection(
            storage: .init(loader: loader, entries: try loader.orderedMatches(), batchSize: batchSize))
    }

    /// Calls `block` with every model that matches a descriptor, in its order, loading them a
    /// batch at a time, as in SwiftData. Models of finished batches that nothing else holds are
    /// released, so memory stays that of one batch.
    ///
    /// Unless `allowEscapingMutations` is `true`, the block must leave the context as it found it
    /// (save inside it, or only read): after each batch, a context with different unsaved changes
    /// stops the enumeration with ``FetchError/Code-swift.struct/mutationsEscaped``. The changes
    /// are kept, never discarded.
    ///
    /// ```swift
    /// var total = 0
    /// try context.enumerate(FetchDescriptor<Book>(), batchSize: 500) { book in
    ///     total += book.pageCount
    /// }
    /// ```
    /// - Parameters:
    ///   - descriptor: Which models, in what order.
    ///   - batchSize: How many models each batch loads; at least 1 (5,000 by default).
    ///   - allowEscapingMutations: Whether the block may leave unsaved changes behind.
    ///   - block: Called with each model; what it throws ends the enumeration and is rethrown.
    /// - Throws: What ``fetch(_:)`` and `block` throw; ``FetchError`` when mutations escape, or
    ///   with code `.invalidArgument` when `batchSize` is less than 1.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        checkOwner()
        guard batchSize > 0 else {
            throw FetchError.invalidBatchSize(batchSize, of: "enumerate(_:batchSize:allowEscapingMutations:block:)")
        }
        let results = try fetch(descriptor, batchSize: batchSize)
        try results.enumerate(allowEscapingMutations: allowEscapingMutations, block: block)
    }
}

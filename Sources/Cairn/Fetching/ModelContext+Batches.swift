import Foundation

/// The models that match a descriptor, loaded a batch at a time as they are used, as
/// ``ModelContext/fetch(_:batchSize:)`` returns them.
///
/// The collection holds the matches' identifiers in the descriptor's order and, at any time, one
/// batch of loaded models: reading an element of another batch loads that whole batch in one read
/// transaction. Models of earlier batches that nothing else holds are released, so walking the
/// collection takes memory for one batch, not for every match.
///
/// ```swift
/// let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), batchSize: 500)
/// for book in books { print(book.title) }
/// ```
///
/// The collection belongs to the context's executor, like the context. A model whose row was
/// deleted from the store after the collection was made comes back unloaded, as
/// ``ModelContext/model(for:)`` returns it (``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``
/// skips such models).
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    final class Storage {
        let context: ModelContext
        let entries: [ModelContext.Match<Element>]
        let batchSize: Int
        let descriptor: FetchDescriptor<Element>
        var loadedBatch = -1
        var batch: [Element?] = []

        init(
            context: ModelContext, entries: [ModelContext.Match<Element>], batchSize: Int,
            descriptor: FetchDescriptor<Element>
        ) {
            self.context = context
            self.entries = entries
            self.batchSize = batchSize
            self.descriptor = descriptor
        }

        /// The model at `position`, or `nil` when its row is gone from the store.
        func loadedElement(at position: Int) -> Element? {
            let number = position / batchSize
            if number != loadedBatch {
                // The previous batch goes: the context lets go of the models only it still holds.
                let previous = batch.compactMap { $0?.persistentModelID }
                batch = []
                context.identity.releaseIfUnused(previous)
                let start = number * batchSize
                batch = context.loadBatch(entries[start..<Swift.min(start + batchSize, entries.count)], descriptor)
                loadedBatch = number
            }
            return batch[position - number * batchSize]
        }

        func element(at position: Int) -> Element {
            loadedElement(at: position) ?? context.model(for: entries[position].identifier) as! Element
        }
    }

    let storage: Storage

    /// The first position, 0.
    ///
    /// ```swift
    /// let first = books[books.startIndex]
    /// ```
    public var startIndex: Int { 0 }
    /// One past the last position: the number of matches.
    ///
    /// ```swift
    /// print(books.endIndex)
    /// ```
    public var endIndex: Int { storage.entries.count }

    /// The model at `position`, loading its batch when it is not the one in memory.
    ///
    /// ```swift
    /// let tenth = books[9]
    /// ```
    public subscript(position: Int) -> Element {
        precondition(
            position >= 0 && position < endIndex,
            "FetchResultsCollection: index \(position) is out of bounds (count \(endIndex))")
        return storage.element(at: position)
    }
}

extension ModelContext {
    /// One match of a fetch before its model is loaded: a stored model's identifier, or a
    /// model only in this context (inserted, not saved).
    enum Match<T: PersistentModel> {
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
    static let matchChunk = 1_024

    /// The descriptor's matches in its order, after its offset and limit, without keeping their
    /// models: rows are read `matchChunk` at a time with only the attributes the predicate and
    /// the sort use decoded; a model is kept only until the sort when there is one.
    func orderedMatches<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [Match<T>] {
        let tables = entityTables(of: T.self, for: "fetchIdentifiers(_:)")
        if !descriptor.includePendingChanges && hasChanges {
            var plain = descriptor
            plain.includePendingChanges = true
            let scratch = ModelContext(container)
            defer {
                statistics.readTransactions += scratch.statistics.readTransactions
                statistics.recordLoads += scratch.statistics.recordLoads
            }
            return try scratch.orderedMatches(plain).map { .stored($0.identifier) }
        }
        var lean = FetchRequest(descriptor, tables: tables)
        lean.propertiesToFetch = []
        let executor = FetchExecutor(lean, in: self)
        let used = executor.planner.tagsUsed(by: lean)
        func match(_ model: T) -> Match<T> {
            model.persistentModelID.isTemporary ? .pending(model) : .stored(model.persistentModelID)
        }
        // Reads about `limit` rows anyway.
        if let matches = try executor.matchesInIndexOrder(decoding: used) {
            return ordered(matches, by: executor, descriptor).map(match)
        }
        var sortable: [any PersistentModel] = []
        var entries: [Match<T>] = []
        var matchedStored = Set<ObjectIdentifier>()
        try executor.forEachStoredMatch(decoding: used, stopAfter: nil, chunkSize: Self.matchChunk) { models in
            for model in models {
                matchedStored.insert(ObjectIdentifier(model))
                if descriptor.sortBy.isEmpty {
                    entries.append(.stored(model.persistentModelID))
                } else {
                    sortable.append(model)
                }
            }
            return true
        }
        let pending = try executor.pendingMatches(excluding: matchedStored)
        if descriptor.sortBy.isEmpty { return executor.page(entries + Self.typed(pending, as: T.self).map(match)) }
        return ordered(sortable + pending, by: executor, descriptor).map(match)
    }

    /// The models of a batch of matches, loaded in one read transaction (the descriptor's
    /// `propertiesToFetch` apply): `nil` for a stored match whose row is gone and that the
    /// context does not hold.
    func loadBatch<T: PersistentModel>(_ matches: ArraySlice<Match<T>>, _ descriptor: FetchDescriptor<T>) -> [T?] {
        let tables = entityTables(of: T.self, for: "fetch(_:batchSize:)")
        let rowIDs = matches.compactMap { match -> UInt64? in
            if case .stored(let identifier) = match { return identifier.rowID }
            return nil
        }
        var loaded: [T] = []
        var present = Set<UInt64>()
        var readFailed = false
        if !rowIDs.isEmpty {
            statistics.readTransactions += 1
            do {
                let rows = try container.store.environment.read { txn in
                    try CandidateReader.records(of: rowIDs.sorted(), tables: tables, txn: txn)
                }
                present = Set(rows.map(\.0))
                var stored = FetchRequest(descriptor, tables: tables)
                stored.includePendingChanges = false
                loaded = Self.typed(try models(for: rows, of: stored), as: T.self)
            } catch {
                // The models stay unloaded: reading one reads its record, and reports what fails then.
                readFailed = true
            }
        }
        return withExtendedLifetime(loaded) {
            matches.map { match -> T? in
                switch match {
                case .stored(let identifier):
                    if let registered: T = registeredModel(for: identifier) { return registered }
                    guard readFailed || identifier.rowID.map(present.contains) == true else { return nil }
                    return registeredOrFault(identifier) as? T
                case .pending(let model):
                    return model
                }
            }
        }
    }

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
    /// - Throws: What ``fetch(_:)`` throws.
    public func fetch<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws
        -> FetchResultsCollection<T>
    {
        try beginStoreAccess()
        precondition(batchSize > 0, "ModelContext.fetch(_:batchSize:): batchSize must be at least 1, not \(batchSize)")
        return FetchResultsCollection(
            storage: .init(
                context: self, entries: try orderedMatches(descriptor), batchSize: batchSize, descriptor: descriptor))
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
    /// - Throws: What ``fetch(_:)`` and `block` throw; ``FetchError`` when mutations escape.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        checkOwner()
        let results = try fetch(descriptor, batchSize: batchSize)
        let before = changeSnapshot
        var position = 0
        while position < results.count {
            let end = min(position + batchSize, results.count)
            // A match deleted and saved since the enumeration began (by the block, say) is skipped.
            for index in position..<end {
                if let model = results.storage.loadedElement(at: index) { try block(model) }
            }
            position = end
            if !allowEscapingMutations && changeSnapshot != before {
                throw FetchError(
                    code: .mutationsEscaped,
                    message: "The block given to enumerate(_:batchSize:allowEscapingMutations:block:) over "
                        + "\(T.self) left unsaved changes in the context (after \(end) of \(results.count) models). "
                        + "Save inside the block, or pass allowEscapingMutations: true to keep the changes for a "
                        + "later save. The changes are still in the context.",
                    model: nil, underlying: "")
            }
        }
    }

    /// The identities of the context's unsaved inserts, changes and deletes.
    private var changeSnapshot: [Set<PersistentIdentifier>] {
        [
            Set(insertedModelsArray.map(\.persistentModelID)), Set(changedModelsArray.map(\.persistentModelID)),
            Set(deletedModelsArray.map(\.persistentModelID)),
        ]
    }
}

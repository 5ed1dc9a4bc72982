import Foundation

extension ModelContext {
    /// Computes aggregates over the models a descriptor matches, without making a model per row.
    ///
    /// The values are those of computing each aggregate over `try fetch(descriptor)`: the
    /// descriptor's predicate applies, and so do its ``FetchDescriptor/includePendingChanges``
    /// (unsaved inserts, changes and deletes count by default), and its
    /// ``FetchDescriptor/fetchLimit`` and ``FetchDescriptor/fetchOffset`` with its sort, when it
    /// has them. ``explain(_:computing:)`` says how they are computed: from an index or the row
    /// count, from stored records, or from models.
    ///
    /// ```swift
    /// let (count, pages, newest) = try context.aggregate(
    ///     FetchDescriptor<Book>(predicate: #Predicate { $0.genre == "Poetry" }),
    ///     computing: .count, .sum(\.pages), .maximum(\.year))
    /// ```
    /// - Returns: One value per aggregate, in order (a single value for one aggregate).
    /// - Throws: What ``fetch(_:)`` throws; ``FetchError`` `.aggregateOverflow` when a sum does not
    ///   fit its type.
    /// - Complexity: O(1) for a count without a predicate, O(log *n*) for a minimum or maximum
    ///   of an indexed attribute without a predicate; else O(*n*) in the candidate rows.
    public func aggregate<T: PersistentModel, each V>(
        _ descriptor: FetchDescriptor<T>, computing aggregates: repeat Aggregate<T, each V>
    ) throws -> (repeat each V) {
        let aggregator = try makeAggregator(descriptor, keys: [], values: Self.values(repeat each aggregates))
        let groups = try aggregator.run()
        var results = try AggregateResults(columns: aggregator.values.map(\.column), group: groups[0].number)
        return (repeat try results.next((each V).self))
    }

    /// Computes aggregates over each group of the models a descriptor matches, grouped by the
    /// values of one or more key paths: attributes, or an attribute of a to-one relationship's
    /// destination (`\.author?.name`).
    ///
    /// The groups come in ascending order of their keys (`nil` first), one per distinct key
    /// among the matching models; the values are those of computing each aggregate over the
    /// group's models, as ``aggregate(_:computing:)`` does over all of them.
    ///
    /// ```swift
    /// let byGenre = try context.aggregate(FetchDescriptor<Book>(), groupedBy: \.genre, computing: .count, .sum(\.pages))
    /// for group in byGenre {
    ///     let (books, pages) = group.values
    ///     print("\(group.key): \(books) books, \(pages) pages")
    /// }
    /// let byAuthorAndYear = try context.aggregate(
    ///     FetchDescriptor<Book>(), groupedBy: \.author?.name, \.year, computing: .average(\.rating))
    /// ```
    /// - Throws: What ``aggregate(_:computing:)`` throws.
    /// - Complexity: O(*n*) in the candidate rows (counts per value of an indexed attribute
    ///   without a predicate read the index only), plus O(*g* log *g*) for *g* groups.
    public func aggregate<T: PersistentModel, K: Hashable, each Key: Hashable, each V>(
        _ descriptor: FetchDescriptor<T>, groupedBy key: KeyPath<T, K>, _ keys: repeat KeyPath<T, each Key>,
        computing aggregates: repeat Aggregate<T, each V>
    ) throws -> [AggregateGroup<(K, repeat each Key), (repeat each V)>] {
        let groupKeys = Self.groupKeys(key, repeat each keys)
        let aggregator = try makeAggregator(descriptor, keys: groupKeys, values: Self.values(repeat each aggregates))
        let columns = aggregator.values.map(\.column)
        return try aggregator.run().map { group in
            var keyValues = AggregateResults(keys: group.key)
            var results = try AggregateResults(columns: columns, group: group.number)
            return AggregateGroup(
                key: (try keyValues.next(K.self), repeat try keyValues.next((each Key).self)),
                values: (repeat try results.next((each V).self)))
        }
    }

    /// The number of models a descriptor matches per group, grouped by the values of one or more
    /// key paths, in ascending order of their keys.
    ///
    /// ```swift
    /// for group in try context.fetchCount(FetchDescriptor<Book>(), groupedBy: \.genre) {
    ///     print(group.key, group.values)   // "Poetry 12"
    /// }
    /// ```
    /// - Throws: What ``aggregate(_:groupedBy:_:computing:)`` throws.
    public func fetchCount<T: PersistentModel, K: Hashable, each Key: Hashable>(
        _ descriptor: FetchDescriptor<T>, groupedBy key: KeyPath<T, K>, _ keys: repeat KeyPath<T, each Key>
    ) throws -> [AggregateGroup<(K, repeat each Key), Int>] {
        try aggregate(descriptor, groupedBy: key, repeat each keys, computing: .count)
    }

    /// How ``aggregate(_:computing:)`` computes aggregates: from the row count or an index's ends,
    /// from stored records (and by which fetch plan), or from models, and why.
    ///
    /// ```swift
    /// let plan = try context.explain(FetchDescriptor<Book>(), computing: .maximum(\.year))
    /// print(plan)   // "the ends of i/Book/year, reading a record at each"
    /// ```
    /// - Throws: `StorageError` when the store cannot be read.
    public func explain<T: PersistentModel, each V>(
        _ descriptor: FetchDescriptor<T>, computing aggregates: repeat Aggregate<T, each V>
    ) throws -> AggregatePlan {
        try explain(makeAggregator(descriptor, keys: [], values: Self.values(repeat each aggregates)))
    }

    /// How ``aggregate(_:groupedBy:_:computing:)`` computes grouped aggregates.
    ///
    /// ```swift
    /// let plan = try context.explain(FetchDescriptor<Book>(), groupedBy: \.genre, computing: .count)
    /// print(plan)   // "counts per key of i/Book/genre, reading no record but one per group"
    /// ```
    /// - Throws: `StorageError` when the store cannot be read.
    public func explain<T: PersistentModel, K: Hashable, each Key: Hashable, each V>(
        _ descriptor: FetchDescriptor<T>, groupedBy key: KeyPath<T, K>, _ keys: repeat KeyPath<T, each Key>,
        computing aggregates: repeat Aggregate<T, each V>
    ) throws -> AggregatePlan {
        let groupKeys = Self.groupKeys(key, repeat each keys)
        return try explain(makeAggregator(descriptor, keys: groupKeys, values: Self.values(repeat each aggregates)))
    }

    // MARK: Erasing the typed arguments

    private func makeAggregator<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, keys: [Aggregator.GroupKey], values: [Aggregator.Spec]
    ) throws -> Aggregator {
        try beginStoreAccess()
        let tables = store.entityTables(of: T.self, for: "aggregate(_:computing:)")
        return Aggregator(FetchRequest(descriptor, tables: tables), keys: keys, values: values, in: self)
    }

    private func explain(_ aggregator: Aggregator) throws -> AggregatePlan {
        let executor = try FetchExecutor(aggregator.request, in: self)
        let choice = AggregatePlanner(aggregator: aggregator, executor: executor).method()
        switch choice.method {
        case .records, .models:
            return AggregatePlan(method: choice.explained, fetchPlan: try FetchExplainer(executor: executor, store: store).plan())
        case .indexCount, .indexExtremes, .indexGroups, .indexEntries:
            return AggregatePlan(method: choice.explained, fetchPlan: nil)
        }
    }

    private static func values<T, each V>(_ aggregates: repeat Aggregate<T, each V>) -> [Aggregator.Spec] {
        var specs: [Aggregator.Spec] = []
        for aggregate in repeat each aggregates {
            specs.append(Aggregator.Spec(function: aggregate.function, keyPath: aggregate.keyPath, makeColumn: aggregate.makeColumn))
        }
        return specs
    }

    private static func groupKeys<T, K: Hashable, each Key: Hashable>(
        _ key: KeyPath<T, K>, _ keys: repeat KeyPath<T, each Key>
    ) -> [Aggregator.GroupKey] {
        var groupKeys = [groupKey(key)]
        for keyPath in repeat each keys {
            groupKeys.append(groupKey(keyPath))
        }
        return groupKeys
    }

    private static func groupKey<T, K: Hashable>(_ keyPath: KeyPath<T, K>) -> Aggregator.GroupKey {
        Aggregator.GroupKey(keyPath: keyPath, box: { AggregateResults.box($0, as: K.self) })
    }
}

/// Hands out a group's key values or aggregate values one after another, as the types the
/// caller's key paths and aggregates have.
struct AggregateResults {
    private var values: [Any] = []
    private var index = 0

    init(columns: [AggregateColumn], group: Int) throws {
        values = try columns.map { try $0.result(group) }
    }

    init(keys: [AnyHashable]) { values = keys.map(\.base) }

    /// The next value, as `type`.
    mutating func next<V>(_ type: V.Type) throws -> V {
        defer { index += 1 }
        guard index < values.count, let value = values[index] as? V else {
            throw FetchError(
                code: .ungroupable,
                message: "An aggregate's value is not of the type \(V.self) it was asked as. Please report this.",
                model: nil, underlying: "")
        }
        return value
    }

    /// `value` (`nil`: none) as `K`, hashable; `nil` when it is not a `K`.
    static func box<K: Hashable>(_ value: Any?, as _: K.Type) -> AnyHashable? {
        if let value = value as? K { return AnyHashable(value) }
        if value == nil, let none = (K.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ()) as? K {
            return AnyHashable(none)
        }
        return nil
    }
}

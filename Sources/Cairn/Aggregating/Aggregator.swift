import CairnStorage
import Foundation

/// Computes a request's aggregates, grouped or not, by the cheapest way that gives the same
/// values as computing them over the models `fetch` returns (``AggregatePlan/Method``):
///
/// - **From an index**, without a predicate or unsaved changes that count: a count from the
///   table's row count, a minimum or maximum from the first or last entries of an index on the
///   attribute, counts per group from an index on the grouping attribute, anything else from the
///   entries of an index whose keys hold every attribute read (``IndexEntryAggregation``).
/// - **From records**, when the access path and the record tests decide the whole predicate and
///   every value is a stored attribute (or a to-one relationship's target's, for a grouping):
///   each candidate's record is verified and the few fields needed are read, into groups
///   numbered by their fields' bytes (``FieldGroups``). No model is made, but for the context's
///   unsaved changes: rows with pending changes are left out and the pending models added.
/// - **From models**, otherwise: the executor's matches, each key path read of each.
///
/// The result is the groups in ascending key order, each with one value per grouping key path
/// and the group's number in the columns.
///
/// ```swift
/// let groups = try Aggregator(request, keys: keys, values: values, in: context).run()
/// ```
struct Aggregator {
    /// A key path the rows are grouped by, with what makes its values hashable (and typed).
    struct GroupKey {
        let keyPath: AnyKeyPath
        /// The key path's value, as read of a model or decoded from a field (`nil`: none), as
        /// the key path's type; `nil` when it is not of that type.
        let box: (Any?) -> AnyHashable?
    }

    /// One aggregate as the caller gives it, its types erased: what it computes, of which key
    /// path, and the maker of its column (given what an absent field of the attribute holds).
    struct Spec {
        let function: AggregateFunction
        let keyPath: AnyKeyPath?
        let makeColumn: (Any?) -> AggregateColumn
    }

    /// One aggregate: what it computes, the key path it reads (`nil` for a count) and its column.
    struct Value {
        let function: AggregateFunction
        let keyPath: AnyKeyPath?
        let column: AggregateColumn
    }

    /// A group of the result: its key (one value per grouping key path) and its number in the
    /// columns.
    struct Group {
        let key: [AnyHashable]
        let number: Int
    }

    let context: ModelContext
    let request: FetchRequest
    let keys: [GroupKey]
    let values: [Value]
    let keySources: [AggregateSource]
    let valueSources: [AggregateSource?]

    init(_ request: FetchRequest, keys: [GroupKey], values specs: [Spec], in context: ModelContext) {
        let tables = request.tables
        keySources = keys.map { AggregateSource($0.keyPath, tables: tables, store: context.store) }
        let valueSources = specs.map { spec in
            spec.keyPath.map { AggregateSource($0, tables: tables, store: context.store) }
        }
        // Each column knows what an absent field of its stored attribute holds.
        values = zip(specs, valueSources).map { spec, source in
            var absent: Any?
            if case .field(let field)? = source { absent = field.absent }
            return Value(function: spec.function, keyPath: spec.keyPath, column: spec.makeColumn(absent))
        }
        self.valueSources = valueSources
        (self.request, self.keys, self.context) = (request, keys, context)
    }

    /// The groups, in ascending key order (one group, with an empty key, when there are no
    /// grouping key paths, even over no rows).
    func run() throws -> [Group] {
        let executor = try FetchExecutor(request, in: context)
        let plan = AggregatePlanner(aggregator: self, executor: executor).method()
        var numbering = GroupNumbering(keys: keys)
        switch plan.method {
        case .records:
            try RecordAggregation(aggregator: self, executor: executor).run(into: &numbering)
        case .models:
            try aggregateModels(into: &numbering)
        case .indexCount, .indexExtremes, .indexGroups, .indexEntries:
            try IndexAggregation(aggregator: self, plan: plan).run(into: &numbering)
        }
        return numbering.groups(columns: values.map(\.column))
    }

    /// Adds `models` (of the fetched type) to their groups.
    func add(_ models: some Sequence<any PersistentModel>, to numbering: inout GroupNumbering) throws {
        let columns = values.map(\.column)
        for model in models {
            let key = keys.map { $0.box(model[keyPath: $0.keyPath]) }
            let group = try numbering.group(forKey: key, columns: columns)
            for value in values {
                value.column.addModel(to: group)
                if let keyPath = value.keyPath { value.column.add(value: model[keyPath: keyPath], to: group) }
            }
        }
    }

    /// Every model the request matches, through the executor (the stored rows' images when the
    /// request leaves pending changes out, so the values are the stored ones), or the page
    /// `fetch` would return when it has a limit or an offset.
    private func aggregateModels(into numbering: inout GroupNumbering) throws {
        let images = request.includePendingChanges || !context.hasChanges ? nil : StoredImages(of: context)
        defer { images?.close() }
        let executor = try FetchExecutor(request, in: context, images: images)
        if request.fetchLimit != nil || request.fetchOffset != nil {
            try add(FetchResults.ordered(executor.matches(), by: executor), to: &numbering)
        } else {
            var stored = Set<ObjectIdentifier>()
            try executor.forEachStoredMatch(decoding: nil, stopAfter: nil) { chunk in
                stored.formUnion(chunk.map(ObjectIdentifier.init))
                try add(chunk, to: &numbering)
                return true
            }
            try add(executor.pendingMatches(excluding: stored), to: &numbering)
        }
        images?.addStatistics(to: context)
        try images?.throwLoadError()
    }
}

/// Numbers groups by their keys, and merges the groups that turn out to have equal keys.
///
/// Groups come from two places: stored rows' fields (``FieldGroups``, numbered first, their keys
/// decoded once at the end) and models (numbered as they come, by their boxed key). At the end,
/// the groups with equal keys are merged into the first of them.
struct GroupNumbering {
    let keys: [Aggregator.GroupKey]
    /// The keys of groups made from models, by key.
    private var byKey: [[AnyHashable]: Int] = [:]
    /// Each group's key, where known (`nil` for a stored rows' group not decoded yet).
    private var groupKeys: [[AnyHashable]?] = []

    init(keys: [Aggregator.GroupKey]) { self.keys = keys }

    /// How many groups there are.
    var count: Int { groupKeys.count }

    /// Makes room for groups up to `count` whose keys are decoded later (``setKey(_:of:)``).
    mutating func reserveStored(upTo count: Int, columns: [AggregateColumn]) {
        guard count > groupKeys.count else { return }
        groupKeys += repeatElement(nil, count: count - groupKeys.count)
        for column in columns { column.grow(to: count) }
    }

    /// Sets the decoded key of a stored rows' group.
    mutating func setKey(_ key: [AnyHashable], of group: Int) { groupKeys[group] = key }

    /// The group of a model whose key is `key` (`nil` values: not of the key path's type).
    mutating func group(forKey boxed: [AnyHashable?], columns: [AggregateColumn]) throws -> Int {
        let key = boxed.compactMap { $0 }
        guard key.count == boxed.count else { throw FetchError.ungroupableKey(keys.map(\.keyPath)) }
        if let group = byKey[key] { return group }
        let group = groupKeys.count
        groupKeys.append(key)
        byKey[key] = group
        for column in columns { column.grow(to: group + 1) }
        return group
    }

    /// The groups, merged by key, in ascending key order; with no grouping key paths, exactly
    /// one group.
    func groups(columns: [AggregateColumn]) -> [Aggregator.Group] {
        var first: [[AnyHashable]: Int] = [:]
        var order: [Int] = []
        for (group, key) in groupKeys.enumerated() {
            guard let key else { continue }
            if let target = first[key] {
                for column in columns { column.merge(group, into: target) }
            } else {
                first[key] = group
                order.append(group)
            }
        }
        if keys.isEmpty && order.isEmpty {
            for column in columns { column.grow(to: 1) }
            return [Aggregator.Group(key: [], number: 0)]
        }
        let groups = order.map { Aggregator.Group(key: groupKeys[$0]!, number: $0) }
        return groups.sorted { GroupOrder.precedes($0.key, $1.key) }
    }
}

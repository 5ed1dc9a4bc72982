import Foundation

/// A ``FetchDescriptor`` without its model type: what the fetch executor, the planner and the
/// residual predicate work from.
///
/// The descriptor is erased once, where a fetch enters the context, and everything after runs as
/// ordinary compiled code. The erasing itself is inlinable (``FetchQuery``), so it is compiled in
/// the app for its model types: inside the library it would run as unspecialized generic code (a
/// metadata lookup for each generic type touched, value-witness copies of the optional predicate,
/// about 5,000 instructions a fetch). What needs the model type — evaluating the predicate and
/// comparing by the sort descriptors — is captured there in closures; a pending model's type is
/// checked against the fetched type's identifier.
///
/// ```swift
/// let request = FetchRequest(FetchQuery(descriptor), tables: tables)
/// ```
struct FetchRequest {
    typealias SortKey = FetchQuery.SortKey
    typealias Predicate = FetchQuery.Predicate

    let tables: Store.EntityTables
    /// The erased descriptor, held whole: copying it field by field retained each field again.
    let query: FetchQuery
    var predicate: Predicate? { query.predicate }
    var sortBy: [SortKey] { query.sortBy }
    /// Sorts models of the fetched type by the descriptor's sort descriptors; `nil` without any.
    var sort: FetchQuery.Sort? { query.sort }
    /// The comparison ``sort`` sorts by; `nil` without sort descriptors.
    var precedes: FetchQuery.Precedes? { query.precedes }
    var fetchLimit: Int? { query.fetchLimit }
    var fetchOffset: Int? { query.fetchOffset }
    var includePendingChanges: Bool
    var propertiesToFetch: [AnyKeyPath]
    /// The fetched model type (a class: `PersistentModel` requires one).
    let fetchedType: ObjectIdentifier

    /// Whether a model (a pending one, from the context's lists of all types) is of the fetched
    /// type or a subclass of it, as `model is T` says; without a closure made per fetch.
    func isFetchedType(_ model: any PersistentModel) -> Bool {
        var type: AnyClass? = Swift.type(of: model)
        while let current = type {
            if ObjectIdentifier(current) == fetchedType { return true }
            type = _getSuperclass(current)
        }
        return false
    }

    init(_ query: __owned FetchQuery, tables: Store.EntityTables) {
        self.tables = tables
        includePendingChanges = query.includePendingChanges
        propertiesToFetch = query.propertiesToFetch
        fetchedType = ObjectIdentifier(query.modelType)
        // Moved in last, after every read of it.
        self.query = query
    }

    init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, tables: Store.EntityTables) {
        self.init(FetchQuery(descriptor), tables: tables)
    }
}

/// A ``FetchDescriptor`` erased in the caller's module, where its model type is known: the part
/// of ``ModelContext/fetch(_:)`` that is compiled with the app (see ``FetchRequest``).
///
/// ```swift
/// let page = try context.fetchPage(FetchQuery(descriptor))
/// ```
@usableFromInline
struct FetchQuery {
    /// A stored attribute's sort key as the planner needs it: which attribute, in which direction,
    /// and whether a string comparator (not key order) compares it.
    @usableFromInline
    struct SortKey {
        let keyPath: AnyKeyPath?
        let isForward: Bool
        let hasStringComparator: Bool

        @usableFromInline
        init(keyPath: AnyKeyPath?, isForward: Bool, hasStringComparator: Bool) {
            self.keyPath = keyPath
            self.isForward = isForward
            self.hasStringComparator = hasStringComparator
        }
    }

    /// The predicate, with what needs its model type to evaluate it. A class: the request, the
    /// executor and the residual each hold it, and copying the value (an existential and a
    /// closure) cost a value-witness call each time. Made as a ``Bound`` for the fetched type,
    /// which keeps the predicate's variable: one object, where a closure capturing the variable
    /// would be a second allocation per fetch.
    @usableFromInline
    class Predicate {
        let expression: any PredicateExpression<Bool>

        @usableFromInline
        init(expression: __owned any PredicateExpression<Bool>) {
            self.expression = consume expression
        }

        /// Evaluates one `&&`-joined part of ``expression`` on a model of the fetched type.
        func evaluate(_ conjunct: any PredicateExpression<Bool>, _ model: any PersistentModel) throws -> Bool {
            preconditionFailure("FetchQuery.Predicate is made as a Bound<T>")
        }

        /// The predicate of a fetch of `T`, with its variable.
        @usableFromInline
        final class Bound<T: PersistentModel>: Predicate {
            let variable: PredicateExpressions.Variable<T>

            @usableFromInline
            init(expression: __owned any PredicateExpression<Bool>, variable: PredicateExpressions.Variable<T>) {
                self.variable = variable
                super.init(expression: expression)
            }

            override func evaluate(
                _ conjunct: any PredicateExpression<Bool>, _ model: any PersistentModel
            ) throws -> Bool {
                // The executor hands over models of the fetched entity's type only.
                let model = unsafeDowncast(model as AnyObject, to: T.self)
                let bindings = PredicateBindings((variable, model))
                return try FetchError.evaluating(conjunct, on: model) { try conjunct.evaluate(bindings) }
            }
        }
    }

    /// Sorts models of the fetched type in place, as `sort(using:)` with the descriptor's sort
    /// descriptors does.
    @usableFromInline typealias Sort = (inout [any PersistentModel]) -> Void
    /// Whether the first model of the fetched type comes before the second by the descriptor's
    /// sort descriptors (`false` for equals): the one comparison fetches sort by and live queries
    /// place a changed model by.
    @usableFromInline typealias Precedes = (any PersistentModel, any PersistentModel) -> Bool

    @usableFromInline let predicate: Predicate?
    @usableFromInline let sortBy: [SortKey]
    @usableFromInline let sort: Sort?
    @usableFromInline let precedes: Precedes?
    @usableFromInline let fetchLimit: Int?
    @usableFromInline let fetchOffset: Int?
    @usableFromInline let includePendingChanges: Bool
    @usableFromInline let propertiesToFetch: [AnyKeyPath]
    @usableFromInline let prefetching: [AnyKeyPath]
    @usableFromInline let modelType: any PersistentModel.Type

    @inlinable
    init<T: PersistentModel>(_ descriptor: __shared FetchDescriptor<T>) {
        if let predicate = descriptor.predicate {
            // The erased predicate keeps the expression and the variable only: keeping the
            // predicate copied it a second time (a value-witness copy of every node) per fetch.
            self.predicate = Predicate.Bound(expression: predicate.expression, variable: predicate.variable)
        } else {
            predicate = nil
        }
        var sortBy: [SortKey] = []
        if descriptor.sortBy.isEmpty {
            sort = nil
            precedes = nil
        } else {
            for sort in descriptor.sortBy {
                sortBy.append(
                    SortKey(
                        keyPath: sort.keyPath, isForward: sort.order == .forward,
                        hasStringComparator: sort.stringComparator != nil))
            }
            let descriptors = descriptor.sortBy
            // What `sort(using: descriptors)` compares, on the erased models.
            let precedes: Precedes = { lhs, rhs in
                let (lhs, rhs) = (
                    unsafeDowncast(lhs as AnyObject, to: T.self), unsafeDowncast(rhs as AnyObject, to: T.self)
                )
                for descriptor in descriptors {
                    switch descriptor.compare(lhs, rhs) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return false
            }
            self.precedes = precedes
            sort = { models in models.sort(by: precedes) }
        }
        self.sortBy = sortBy
        propertiesToFetch = descriptor.propertiesToFetch.isEmpty ? [] : descriptor.propertiesToFetch.map { $0 }
        prefetching =
            descriptor.relationshipKeyPathsForPrefetching.isEmpty
            ? [] : descriptor.relationshipKeyPathsForPrefetching.map { $0 }
        fetchLimit = descriptor.fetchLimit
        fetchOffset = descriptor.fetchOffset
        includePendingChanges = descriptor.includePendingChanges
        modelType = T.self
    }
}

extension FetchRequest {
    /// Throws when the predicate or a sort reads a `.codable` attribute: its stored value is
    /// opaque (SwiftData's rule), even though a model in memory could answer. Free for an entity
    /// without one; otherwise the predicate's key paths are collected at every depth.
    func checkOpaqueAttributes() throws(FetchError) {
        let opaque = tables.entity.opaqueAttributes
        guard !opaque.isEmpty else { return }
        let sorted = Set(sortBy.compactMap(\.keyPath))
        if let attribute = opaque.first(where: { sorted.contains($0.keyPath) }) {
            throw FetchError.opaque(attribute.name, of: tables.entity.name, inSort: true)
        }
        guard let predicate else { return }
        var read: Set<AnyKeyPath> = []
        PredicatePlanner.collectKeyPaths(predicate.expression, into: &read)
        if let attribute = opaque.first(where: { read.contains($0.keyPath) }) {
            throw FetchError.opaque(attribute.name, of: tables.entity.name, inSort: false)
        }
    }
}

import Foundation

/// A ``FetchDescriptor`` without its model type: what the fetch executor, the planner and the
/// residual predicate work from.
///
/// The descriptor is erased once, where a fetch enters the context; everything after runs as
/// ordinary compiled code. Kept generic, the pipeline ran as unspecialized generic code for every
/// model type (the library cannot be specialized for an app's models): metadata lookups and
/// value-witness copies of the optional predicate on every step, a fifth of a point lookup's
/// instructions. Only evaluating the predicate needs the model type, in a closure made here;
/// a pending model's type is checked against the fetched type's identifier. Sorting needs
/// `SortDescriptor<T>` and is done by the caller on the typed results.
struct FetchRequest {
    /// A stored attribute's sort key as the planner needs it: which attribute, in which direction,
    /// and whether a string comparator (not key order) compares it.
    struct SortKey {
        let keyPath: AnyKeyPath?
        let isForward: Bool
        let hasStringComparator: Bool
    }

    /// The predicate, with what needs its model type to evaluate it.
    struct Predicate {
        let expression: any PredicateExpression<Bool>
        /// Evaluates one `&&`-joined part of ``expression`` on a model of the fetched type.
        let evaluate: (any PredicateExpression<Bool>, any PersistentModel) throws -> Bool
    }

    let tables: Store.EntityTables
    let predicate: Predicate?
    let sortBy: [SortKey]
    let fetchLimit: Int?
    let fetchOffset: Int?
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

    init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, tables: Store.EntityTables) {
        self.tables = tables
        // `if let`, plain loops and emptiness tests by count: in this generic code every use of a
        // generic type costs a metadata lookup, and `Optional.map` or `Array.map` several.
        if let predicate = descriptor.predicate {
            self.predicate = Predicate(expression: predicate.expression) { conjunct, model in
                // The executor hands over models of the fetched entity's type only.
                let model = unsafeDowncast(model as AnyObject, to: T.self)
                let bindings = PredicateBindings((predicate.variable, model))
                return try FetchError.evaluating(predicate, on: model) { try conjunct.evaluate(bindings) }
            }
        } else {
            predicate = nil
        }
        var sortBy: [SortKey] = []
        if descriptor.sortBy.count > 0 {
            for sort in descriptor.sortBy {
                sortBy.append(
                    SortKey(
                        keyPath: sort.keyPath, isForward: sort.order == .forward,
                        hasStringComparator: sort.stringComparator != nil))
            }
        }
        self.sortBy = sortBy
        var properties: [AnyKeyPath] = []
        if descriptor.propertiesToFetch.count > 0 {
            for keyPath in descriptor.propertiesToFetch { properties.append(keyPath) }
        }
        propertiesToFetch = properties
        fetchLimit = descriptor.fetchLimit
        fetchOffset = descriptor.fetchOffset
        includePendingChanges = descriptor.includePendingChanges
        fetchedType = ObjectIdentifier(T.self)
    }
}

import Foundation

// Views of the `PredicateExpressions` nodes the planner understands. A `Predicate` stores its
// expression as an existential of deeply generic types; these conformances let the planner look
// inside without knowing the generic arguments.

/// One node of a predicate's expression as the planner sees it: one dynamic cast per node
/// (``init(_:)``) rather than one per view asked for in turn (a cast costs about 1,200
/// instructions, most of a simple fetch's planning).
enum PlannerNode {
    case equal(Any, Any)
    case comparison(PredicateExpressions.ComparisonOperator, Any, Any)
    case conjunction(any PredicateExpression<Bool>, any PredicateExpression<Bool>)
    /// `sequence.contains(element)`.
    case contains(sequence: Any, element: Any)
    /// A key path applied to the predicate's own variable (`$0.title`).
    case keyPath(AnyKeyPath)
    /// A captured constant.
    case value(Any)
    /// `$0 is Type`: whether the predicate's own variable is of a type.
    case typeCheck(Any.Type)
    /// `other.evaluate($0)`: another predicate applied to the predicate's own variable (its
    /// expression, whose variable then stands for the same model).
    case evaluate(any PredicateExpression<Bool>)
    /// Anything the planner does not use.
    case other

    init(_ expression: Any) {
        self = (expression as? any _PlannerNode)?.plannerNode ?? .other
    }

    /// The node as an operand: a key path on the variable or a captured value, else `nil`.
    var operand: PlannerOperand? {
        switch self {
        case .keyPath(let keyPath): .keyPath(keyPath)
        case .value(let value): .value(value)
        case .equal, .comparison, .conjunction, .contains, .typeCheck, .evaluate, .other: nil
        }
    }

    /// The operands of a binary node (for `contains`, the sequence then the element), each as a
    /// node; `nil` for other nodes.
    var operands: (PlannerNode, PlannerNode)? {
        switch self {
        case .equal(let lhs, let rhs), .comparison(_, let lhs, let rhs): (PlannerNode(lhs), PlannerNode(rhs))
        case .contains(let sequence, let element): (PlannerNode(sequence), PlannerNode(element))
        case .conjunction, .keyPath, .value, .typeCheck, .evaluate, .other: nil
        }
    }
}

protocol _PlannerNode {
    var plannerNode: PlannerNode { get }
}
extension PredicateExpressions.Equal: _PlannerNode {
    var plannerNode: PlannerNode { .equal(lhs, rhs) }
}
extension PredicateExpressions.Comparison: _PlannerNode {
    var plannerNode: PlannerNode { .comparison(op, lhs, rhs) }
}
extension PredicateExpressions.Conjunction: _PlannerNode {
    var plannerNode: PlannerNode { .conjunction(lhs, rhs) }
}
extension PredicateExpressions.SequenceContains: _PlannerNode {
    var plannerNode: PlannerNode { .contains(sequence: sequence, element: element) }
}
/// Only a key path on the variable itself is a node: `$0.author.name` applies a key path to
/// another key path's result, which no table of the fetched entity keys.
extension PredicateExpressions.KeyPath: _PlannerNode where Root: _PlannerVariable {
    var plannerNode: PlannerNode { .keyPath(keyPath) }
}
extension PredicateExpressions.Value: _PlannerNode {
    var plannerNode: PlannerNode { .value(value) }
}
extension PredicateExpressions.TypeCheck: _PlannerNode where Input: _PlannerVariable {
    var plannerNode: PlannerNode { .typeCheck(Desired.self) }
}

/// A predicate captured in another one (`other.evaluate($0)`): its expression, for the planner
/// and for the key paths a live query watches.
protocol _PlannerPredicate {
    var plannerExpression: any PredicateExpression<Bool> { get }
}
extension Predicate: _PlannerPredicate {
    var plannerExpression: any PredicateExpression<Bool> { expression }
}

#if canImport(Darwin)
// `#Predicate { kind.evaluate($0) && search.evaluate($0) }`, as SwiftData's inheritance article
// combines predicates: Foundation has `evaluate` in predicates on Apple platforms only.
@available(macOS 14.4, iOS 17.4, tvOS 17.4, watchOS 10.4, *)
extension PredicateExpressions.PredicateEvaluate: _PlannerNode {
    /// The captured predicate's expression, when it is applied to the predicate's own variable.
    var plannerNode: PlannerNode {
        guard (input as Any) is any _PlannerVariable, case .value(let value) = PlannerNode(predicate),
            let nested = value as? any _PlannerPredicate
        else { return .other }
        return .evaluate(nested.plannerExpression)
    }
}
#endif

protocol _PlannerVariable {}
extension PredicateExpressions.Variable: _PlannerVariable {}

/// An operand the planner reads by static dispatch: a key path on the predicate's variable, or a
/// captured value.
enum PlannerOperand {
    case keyPath(AnyKeyPath)
    case value(Any)
}

protocol _PlannerOperand {
    var plannerOperand: PlannerOperand { get }
}
extension PredicateExpressions.KeyPath: _PlannerOperand where Root: _PlannerVariable {
    var plannerOperand: PlannerOperand { .keyPath(keyPath) }
}
extension PredicateExpressions.Value: _PlannerOperand {
    var plannerOperand: PlannerOperand { .value(value) }
}

/// A part of a predicate made only of nodes the planner knows (`$0.id == id`, `$0.year > y`,
/// `ids.contains($0.id)`): one cast of the whole part reads it, where the node views above
/// take a cast per node (about 1,200 instructions each).
protocol _PlannerPart {
    var plannerForm: PredicatePlanner.Part.Form { get }
}

extension _PlannerPart {
    /// The form of `expression`, which is of this type (checked by the caller, which found this
    /// conformance for the expression's type): read without casting it again, where it lies
    /// (`inout`: a value's address would be a copy of the whole expression).
    static func plannerForm<Expression: PredicateExpression>(
        of expression: inout Expression
    ) -> PredicatePlanner.Part.Form {
        precondition(Expression.self == Self.self, "a planner part read as another type")
        return withUnsafeMutablePointer(to: &expression) {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: Self.self).pointee.plannerForm
        }
    }
}
extension PredicateExpressions.Equal: _PlannerPart where LHS: _PlannerOperand, RHS: _PlannerOperand {
    var plannerForm: PredicatePlanner.Part.Form {
        PredicatePlanner.Part.Form(.equal, lhs.plannerOperand, rhs.plannerOperand)
    }
}
extension PredicateExpressions.Comparison: _PlannerPart where LHS: _PlannerOperand, RHS: _PlannerOperand {
    var plannerForm: PredicatePlanner.Part.Form {
        PredicatePlanner.Part.Form(.comparison(op), lhs.plannerOperand, rhs.plannerOperand)
    }
}
extension PredicateExpressions.SequenceContains: _PlannerPart where LHS: _PlannerOperand, RHS: _PlannerOperand {
    var plannerForm: PredicatePlanner.Part.Form {
        PredicatePlanner.Part.Form(.contains, sequence.plannerOperand, element.plannerOperand)
    }
}

/// Any key path node, on the variable or not, and any captured value: what
/// ``PredicatePlanner/collectKeyPaths(_:into:)`` looks for at every depth.
protocol _PlannerKeyPath {
    var plannerKeyPath: AnyKeyPath { get }
}
extension PredicateExpressions.KeyPath: _PlannerKeyPath {
    var plannerKeyPath: AnyKeyPath { keyPath }
}

protocol _PlannerValue {}
extension PredicateExpressions.Value: _PlannerValue {}

/// Chooses how a fetch finds its candidates (see ``FetchPlan``).
struct PredicatePlanner {
    /// One condition on an attribute that the predicate requires (it is joined by `&&`).
    ///
    /// A class: a plan passes its conditions through lists, access paths and orders, and a copy
    /// of this value (an existential and two arrays) would cost about 200 instructions where a
    /// reference costs a retain.
    final class Condition {
        enum Kind {
            case equal
            case lower(inclusive: Bool)
            case upper(inclusive: Bool)
            /// One of several values (`values.contains($0.attribute)`); their keys are in `keys`.
            case oneOf
        }

        let attribute: Schema.Attribute
        let kind: Kind
        /// The value's key encoding (not finalized).
        let key: [UInt8]
        /// The value, described only when ``text`` is asked for: describing it costs more
        /// than planning the fetch.
        let value: Any
        /// For ``Kind/oneOf``: each value's key, finalized.
        let keys: KeyList
        /// The position of the `&&`-joined part of the predicate this condition is.
        let conjunct: Int
        /// Whether a key lookup finds exactly the values that satisfy the condition: every value
        /// equals itself (not NaN) and no key is long enough to be cut and hashed.
        let isExact: Bool

        init(
            attribute: Schema.Attribute, kind: Kind, key: [UInt8], value: Any, keys: KeyList = KeyList(),
            conjunct: Int = 0, isExact: Bool = false
        ) {
            self.attribute = attribute
            self.kind = kind
            self.key = key
            self.value = value
            self.keys = keys
            self.conjunct = conjunct
            self.isExact = isExact
        }

        /// The value as text, for ``FetchPlan``.
        var text: String {
            if case .oneOf = kind { return "\(keys.count) values" }
            return ErrorText.cut(String(describing: value), to: 200)
        }
    }

    /// A chosen access path, with what it needs to read its rows.
    enum Access {
        case fullScan
        case unique(Store.EntityTables.UniqueConstraint, key: [UInt8])
        case indexEquality(Store.EntityTables.UniqueConstraint, key: [UInt8])
        case indexRange(Store.EntityTables.UniqueConstraint, KeyRange, lower: Condition?, upper: Condition?)
        /// Several lookups in a unique or index table, one per value.
        case oneOf(Store.EntityTables.UniqueConstraint, keys: KeyList, isUnique: Bool)
        /// The rows of the identifiers the predicate names (`$0.persistentModelID == id`,
        /// `ids.contains($0.persistentModelID)`).
        case rows([UInt64])
        /// A scan of a compound unique or index table: equalities on its leading attributes, then
        /// optionally a range on the next one.
        case compound(
            Store.EntityTables.UniqueConstraint, KeyRange, equalities: [Condition], lower: Condition?,
            upper: Condition?)
    }

    /// An index that yields rows in the order of a descriptor's first sort key.
    struct IndexOrder {
        let index: Store.EntityTables.UniqueConstraint
        /// The keys to visit: all, or the planner's range on the same index.
        let range: KeyRange
        let direction: ScanDirection
        let lower: Condition?
        let upper: Condition?
    }

    /// An access path and what it guarantees of the predicate. A class, held by the executor
    /// and its residual predicate without copying the access path.
    final class Plan {
        let access: Access
        /// The predicate's `&&`-joined parts, left to right (``Part/expression``).
        let parts: [Part]
        /// The parts (by position) that every stored row the access path reads satisfies, as long
        /// as its model holds the stored values; each with how to check another model cheaply.
        @exclusivity(unchecked) var covered = CoveredChecks()
        /// The class a part asks the rows to be of (`$0 is Car`), when it is a subclass of the
        /// fetched entity: only its rows (and its subclasses') are candidates. `nil`: the
        /// fetched entity's rows.
        var rowTables: Store.EntityTables?
        /// The parts left to check that each candidate's stored record can answer, checked before
        /// a model is made for it (see ``RecordTests``).
        var recordTests: RecordTests?

        init(access: Access, parts: [Part]) {
            self.access = access
            self.parts = parts
        }
    }

    /// The covered parts of a plan by position. Most are covered by evaluating them (an exact
    /// key): those are bits, so that a plan for one key needs no dictionary (an allocation and a
    /// hash of the position for every point lookup).
    struct CoveredChecks {
        private var evaluated: UInt64 = 0
        private var others: [Int: CoveredCheck] = [:]

        /// How many parts are covered.
        var count: Int { evaluated.nonzeroBitCount + others.count }

        subscript(position: Int) -> CoveredCheck? {
            get {
                if position < 64 && evaluated & 1 << UInt64(position) != 0 { return .evaluate }
                return others.isEmpty ? nil : others[position]
            }
            set {
                if position < 64 { evaluated &= ~(1 << UInt64(position)) }
                if !others.isEmpty { others[position] = nil }
                guard let newValue else { return }
                if case .evaluate = newValue, position < 64 {
                    evaluated |= 1 << UInt64(position)
                } else {
                    others[position] = newValue
                }
            }
        }
    }

    /// How to check a covered part of the predicate on a model the access path did not vouch for
    /// (an inserted or changed one).
    enum CoveredCheck {
        /// Evaluate it: it is a comparison with one value.
        case evaluate
        /// The model's key in this unique or index table is one of these (`values.contains($0.x)`).
        case keyIn(Store.EntityTables.UniqueConstraint, KeySet)
        /// The model's identifier is one of these (`ids.contains($0.persistentModelID)`).
        case identifierIn(Set<PersistentIdentifier>)
    }

    /// The keys of a captured list, hashed when a model outside the access path is first
    /// checked: most fetches check none, and hashing a long list costs a hash and an entry per
    /// key.
    final class KeySet {
        private let keys: KeyList
        private lazy var set = Set(keys.arrays)

        init(_ keys: KeyList) { self.keys = keys }

        func contains(_ key: [UInt8]) -> Bool { set.contains(key) }
    }

    let tables: Store.EntityTables
    /// The store's identifier, interned: identifiers of other stores name none of its rows.
    /// `nil` for a planner that does not recognise identifier conditions. (A number, where a
    /// string and the identifier key path would be two more references to retain and release
    /// with every fetch.)
    let store: InternedName?

    init(tables: Store.EntityTables, store: InternedName? = nil) {
        self.tables = tables
        self.store = store
    }

    /// `\T.persistentModelID` for the fetched type, so identifier conditions can be recognised;
    /// `nil` without a store.
    var identifierKeyPath: AnyKeyPath? { store == nil ? nil : tables.identifierKeyPath }

    /// An index whose key order is `sortBy`'s first key, for a fetch that chose `access`: a
    /// single-attribute unique or index table on the sort attribute, used when the planner found
    /// nothing better than a full scan or a range on that same index. Only types whose key order
    /// is their `Comparable` order qualify, and strings only when compared with `<` (the
    /// descriptor has no `stringComparator`, as on this platform by default; a localized
    /// comparison is not key order).
    func order(for sortBy: [FetchRequest.SortKey], access: Access) -> IndexOrder? {
        guard let first = sortBy.first, !first.hasStringComparator, let keyPath = first.keyPath,
            let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }), !attribute.isTransient,
            Self.keyOrderIsComparableOrder(attribute.valueType),
            // Keyed hashes have no order.
            !tables.keys.hashedAttributes.contains(attribute.name)
        else { return nil }
        let direction: ScanDirection = first.isForward ? .forward : .backward
        let keyed = (tables.keys.uniques + tables.keys.indexes).filter { $0.names == [attribute.name] }
        switch access {
        case .fullScan:
            guard let index = keyed.first else { return nil }
            return IndexOrder(index: index, range: .all, direction: direction, lower: nil, upper: nil)
        case .indexRange(let index, let range, let lower, let upper) where index.names == [attribute.name]:
            return IndexOrder(index: index, range: range, direction: direction, lower: lower, upper: upper)
        default:
            return nil
        }
    }

    /// The record-field tags of the attributes a fetch reads into its models: `nil` (all) when
    /// the request lists no `propertiesToFetch`, else those, with the attributes its predicate
    /// and sort descriptors use.
    func tagsToDecode(_ request: FetchRequest) -> Set<UInt32>? {
        guard !request.propertiesToFetch.isEmpty else { return nil }
        return tagsUsed(by: request, plus: request.propertiesToFetch)
    }

    /// The record-field tags of the attributes the request's predicate and sort descriptors
    /// use, and of `plus`.
    func tagsUsed(by request: FetchRequest, plus: [AnyKeyPath] = []) -> Set<UInt32> {
        var keyPaths = Set<AnyKeyPath>(plus)
        keyPaths.formUnion(request.sortBy.compactMap(\.keyPath))
        if let expression = request.predicate?.expression { Self.collectKeyPaths(expression, into: &keyPaths) }
        return Set(
            tables.entity.attributes.filter { keyPaths.contains($0.keyPath) }.compactMap { tables.codec.tags[$0.name] })
    }

    /// Every key path an expression applies, at any depth (captured values are not searched,
    /// but a captured predicate's expression is: what `other.evaluate($0)` reads).
    static func collectKeyPaths(_ node: Any, into keyPaths: inout Set<AnyKeyPath>) {
        if node is any _PlannerValue {
            // A captured predicate (`other.evaluate($0)`) reads what its own expression reads.
            if case .value(let value) = PlannerNode(node), let nested = value as? any _PlannerPredicate {
                collectKeyPaths(nested.plannerExpression, into: &keyPaths)
            }
            return
        }
        if let keyPath = node as? any _PlannerKeyPath { keyPaths.insert(keyPath.plannerKeyPath) }
        for child in Mirror(reflecting: node).children { collectKeyPaths(child.value, into: &keyPaths) }
    }

    /// Whether keys of `type` order as its `Comparable` implementation does: the native types
    /// whose registry entry says so (``NativeValue/keyOrderIsValueOrder``), and optionals of
    /// them (nil first, as `SortDescriptor` orders it).
    static func keyOrderIsComparableOrder(_ type: Any.Type) -> Bool {
        NativeValues.type(of: type)?.native.keyOrderIsValueOrder ?? false
    }
}

import Foundation

// Views of the `PredicateExpressions` nodes the planner understands. A `Predicate` stores its
// expression as an existential of deeply generic types; these conformances let the planner look
// inside without knowing the generic arguments.

/// One node of a predicate's expression as the planner sees it: one dynamic cast per node
/// (``init(_:)``), where asking for each view in turn cost a cast each (about 1,200
/// instructions apiece, most of a simple fetch's planning).
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
    /// Anything the planner does not use.
    case other

    init(_ expression: Any) {
        self = (expression as? any _PlannerNode)?.plannerNode ?? .other
    }

    /// The operands of a binary node (for `contains`, the sequence then the element), each as a
    /// node; `nil` for other nodes.
    var operands: (PlannerNode, PlannerNode)? {
        switch self {
        case .equal(let lhs, let rhs), .comparison(_, let lhs, let rhs): (PlannerNode(lhs), PlannerNode(rhs))
        case .contains(let sequence, let element): (PlannerNode(sequence), PlannerNode(element))
        case .conjunction, .keyPath, .value, .other: nil
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

protocol _PlannerVariable {}
extension PredicateExpressions.Variable: _PlannerVariable {}

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
    struct Condition {
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
        /// For ``Kind/oneOf``: each value's key encoding.
        var keys: [[UInt8]] = []
        /// The position of the `&&`-joined part of the predicate this condition is.
        var conjunct = 0
        /// Whether a key lookup finds exactly the values that satisfy the condition: every value
        /// equals itself (not NaN) and no key is long enough to be cut and hashed.
        var isExact = false

        /// The value as text, for ``FetchPlan``.
        var text: String {
            if case .oneOf = kind { return "\(keys.count) values" }
            return String(describing: value)
        }
    }

    /// A chosen access path, with what it needs to read its rows.
    enum Access {
        case fullScan
        case unique(Store.EntityTables.UniqueConstraint, key: [UInt8])
        case indexEquality(Store.EntityTables.UniqueConstraint, key: [UInt8])
        case indexRange(Store.EntityTables.UniqueConstraint, KeyRange, lower: Condition?, upper: Condition?)
        /// Several lookups in a unique or index table, one per value.
        case oneOf(Store.EntityTables.UniqueConstraint, keys: [[UInt8]], isUnique: Bool)
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

    /// An access path and what it guarantees of the predicate.
    struct Plan {
        let access: Access
        /// The predicate's `&&`-joined parts, left to right.
        let conjuncts: [any PredicateExpression<Bool>]
        /// The parts (by position) that every stored row the access path reads satisfies, as long
        /// as its model holds the stored values; each with how to check another model cheaply.
        let covered: [Int: CoveredCheck]
    }

    /// How to check a covered part of the predicate on a model the access path did not vouch for
    /// (an inserted or changed one).
    enum CoveredCheck {
        /// Evaluate it: it is a comparison with one value.
        case evaluate
        /// The model's key in this unique or index table is one of these (`values.contains($0.x)`).
        case keyIn(Store.EntityTables.UniqueConstraint, Set<[UInt8]>)
        /// The model's identifier is one of these (`ids.contains($0.persistentModelID)`).
        case identifierIn(Set<PersistentIdentifier>)
    }

    let tables: Store.EntityTables
    /// `\T.persistentModelID` for the fetched type, so identifier conditions can be recognised.
    let identifierKeyPath: AnyKeyPath?
    /// The store's identifier: identifiers of other stores name none of its rows.
    let storeIdentifier: String?

    init(tables: Store.EntityTables, identifierKeyPath: AnyKeyPath? = nil, storeIdentifier: String? = nil) {
        self.tables = tables
        self.identifierKeyPath = identifierKeyPath
        self.storeIdentifier = storeIdentifier
    }

    /// A planner for fetches of `T` from `store`.
    static func `for`<T: PersistentModel>(
        _ type: T.Type, tables: Store.EntityTables, store: Store
    ) -> PredicatePlanner {
        PredicatePlanner(tables: tables, identifierKeyPath: tables.identifierKeyPath, storeIdentifier: store.identifier)
    }

    /// An index whose key order is `sortBy`'s first key, for a fetch that chose `access`: a
    /// single-attribute unique or index table on the sort attribute, used when the planner found
    /// nothing better than a full scan or a range on that same index. Only types whose key order
    /// is their `Comparable` order qualify, and strings only when compared with `<` (the
    /// descriptor has no `stringComparator`, as on this platform by default; a localized
    /// comparison is not key order).
    func order(for sortBy: [FetchRequest.SortKey], access: Access) -> IndexOrder? {
        guard let first = sortBy.first, !first.hasStringComparator, let keyPath = first.keyPath,
            let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }), !attribute.isTransient,
            Self.keyOrderIsComparableOrder(attribute.valueType)
        else { return nil }
        let direction: ScanDirection = first.isForward ? .forward : .backward
        let keyed = (tables.uniques + tables.indexes).filter { $0.names == [attribute.name] }
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
            tables.entity.attributes.filter { keyPaths.contains($0.keyPath) }.compactMap { tables.tags[$0.name] })
    }

    /// Every key path an expression applies, at any depth (captured values are not searched).
    static func collectKeyPaths(_ node: Any, into keyPaths: inout Set<AnyKeyPath>) {
        if node is any _PlannerValue { return }
        if let keyPath = node as? any _PlannerKeyPath { keyPaths.insert(keyPath.plannerKeyPath) }
        for child in Mirror(reflecting: node).children { collectKeyPaths(child.value, into: &keyPaths) }
    }

    /// Whether keys of `type` order as its `Comparable` implementation does: numbers, dates,
    /// strings (NFC bytes), and optionals of them (nil first, as `SortDescriptor` orders it).
    static func keyOrderIsComparableOrder(_ type: Any.Type) -> Bool {
        let ordered: [Any.Type] = [
            Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self,
            UInt64.self, Float.self, Double.self, Date.self, String.self,
        ]
        return ordered.contains { $0 == type || $0 == _optionalType(of: type) }
    }

    /// The best access path for `expression`, most selective first: equalities on every attribute
    /// of a uniqueness constraint; equalities on the most leading attributes of an index (a
    /// single-attribute one wins a tie), with a range on the next; a captured list on a unique or
    /// indexed attribute; a range on an indexed attribute or on an index's first attribute; else
    /// a full scan.
    func plan(for expression: (any PredicateExpression<Bool>)?) -> Plan {
        guard let expression else { return Plan(access: .fullScan, conjuncts: [], covered: [:]) }
        let analyzed = Self.analyzedConjuncts(of: expression)
        let conjuncts = analyzed.map(\.expression)
        // Each conjunct's node and its operands' nodes, made once for both passes below.
        let nodes = analyzed.map { ($0.node, $0.node.operands) }
        for (position, (node, operands)) in nodes.enumerated() {
            guard let (rows, identifiers) = identifierRows(in: node, operands) else { continue }
            return Plan(
                access: .rows(rows), conjuncts: conjuncts,
                covered: [position: identifiers.map { .identifierIn($0) } ?? .evaluate])
        }
        var conditions: [Condition] = []
        for (position, (node, operands)) in nodes.enumerated() {
            conditions += self.conditions(in: node, operands).map { condition in
                var condition = condition
                condition.conjunct = position
                return condition
            }
        }
        /// The plan for `access`, which finds exactly the rows that satisfy each of `exact` that is
        /// exact, unless its lookup `key` had to be cut and hashed.
        func plan(_ access: Access, exact: [Condition] = [], key: [UInt8] = []) -> Plan {
            var covered: [Int: CoveredCheck] = [:]
            if key.count < KeyBuilder.maximumLength {
                for condition in exact where condition.isExact { covered[condition.conjunct] = .evaluate }
            }
            return Plan(access: access, conjuncts: conjuncts, covered: covered)
        }
        func equality(_ name: String) -> Condition? {
            conditions.first { $0.attribute.name == name && $0.isEquality }
        }
        for unique in tables.uniques {
            let equalities = unique.names.compactMap(equality)
            if equalities.count == unique.names.count {
                let key = KeyBuilder.finalize(equalities.flatMap(\.key))
                return plan(.unique(unique, key: key), exact: equalities, key: key)
            }
        }
        // Equalities on leading attributes: the most win, then a range on the next attribute,
        // then a single-attribute index (its equality is an exact key).
        var ranked: [(keyed: Store.EntityTables.UniqueConstraint, equalities: [Condition], rank: Int)] = []
        for keyed in tables.indexes + tables.uniques.filter({ $0.names.count > 1 }) {
            var equalities: [Condition] = []
            for name in keyed.names {
                guard let condition = equality(name) else { break }
                equalities.append(condition)
            }
            guard !equalities.isEmpty else { continue }
            var hasRange = false
            if equalities.count < keyed.names.count {
                let (lower, upper) = bounds(on: keyed.names[equalities.count], in: conditions)
                hasRange = lower != nil || upper != nil
            }
            ranked.append(
                (keyed, equalities, equalities.count * 4 + (hasRange ? 2 : 0) + (keyed.names.count == 1 ? 1 : 0)))
        }
        // A compound range whose bounds are too long to scan gives way to the next best.
        for (keyed, equalities, _) in ranked.sorted(by: { $0.rank > $1.rank }) {
            if keyed.names.count == 1 {
                let key = KeyBuilder.finalize(equalities[0].key)
                return plan(.indexEquality(keyed, key: key), exact: equalities, key: key)
            }
            // A compound path's equalities make a key prefix shorter than the cut (see `compound`).
            if let compound = compound(keyed, equalities: equalities, conditions: conditions) {
                return plan(compound, exact: equalities)
            }
        }
        let singles = { (keyed: [Store.EntityTables.UniqueConstraint]) in keyed.filter { $0.names.count == 1 } }
        for condition in conditions {
            guard case .oneOf = condition.kind else { continue }
            let keys = condition.keys.map(KeyBuilder.finalize)
            let exact = condition.isExact && keys.allSatisfy { $0.count < KeyBuilder.maximumLength }
            for (keyed, isUnique) in [(singles(tables.uniques), true), (singles(tables.indexes), false)] {
                guard let table = keyed.first(where: { $0.names[0] == condition.attribute.name }) else { continue }
                // Any other model is checked by looking its key up, never by a scan of the values.
                return Plan(
                    access: .oneOf(table, keys: keys, isUnique: isUnique), conjuncts: conjuncts,
                    covered: exact ? [condition.conjunct: .keyIn(table, Set(keys))] : [:])
            }
        }
        for index in singles(tables.indexes) {
            let (lower, upper) = bounds(on: index.names[0], in: conditions)
            // A bound that long would be cut and hashed in the index, where hashes do not keep order.
            guard lower != nil || upper != nil,
                [lower, upper].allSatisfy({ ($0?.key.count ?? 0) < KeyBuilder.hashedPrefixLength })
            else { continue }
            let range = KeyRange(
                from: lower.map { if case .lower(true) = $0.kind { .inclusive($0.key) } else { .exclusive($0.key) } },
                to: upper.map { if case .upper(true) = $0.kind { .inclusive($0.key) } else { .exclusive($0.key) } })
            return plan(.indexRange(index, range, lower: lower, upper: upper))
        }
        for keyed in tables.indexes + tables.uniques where keyed.names.count > 1 {
            if let compound = compound(keyed, equalities: [], conditions: conditions) { return plan(compound) }
        }
        return plan(.fullScan)
    }

    /// The `&&`-joined parts of an expression, left to right.
    static func conjuncts(of expression: any PredicateExpression<Bool>) -> [any PredicateExpression<Bool>] {
        analyzedConjuncts(of: expression).map(\.expression)
    }

    /// The `&&`-joined parts of an expression, left to right, each with its node.
    private static func analyzedConjuncts(
        of expression: any PredicateExpression<Bool>
    ) -> [(expression: any PredicateExpression<Bool>, node: PlannerNode)] {
        let node = PlannerNode(expression)
        guard case .conjunction(let lhs, let rhs) = node else { return [(expression, node)] }
        return analyzedConjuncts(of: lhs) + analyzedConjuncts(of: rhs)
    }

    /// The tightest lower and upper bound the conditions put on one attribute.
    private func bounds(on name: String, in conditions: [Condition]) -> (lower: Condition?, upper: Condition?) {
        let on = conditions.filter { $0.attribute.name == name }
        return (
            on.last { if case .lower = $0.kind { true } else { false } },
            on.last { if case .upper = $0.kind { true } else { false } }
        )
    }

    /// A scan of a compound table for equalities on its leading attributes and a range on the
    /// next, or `nil` when that selects nothing narrower than the whole table or a bound is too
    /// long to keep its order (the table cuts and hashes long keys).
    ///
    /// With `P` the equalities' key bytes and `enc(x)` a value's, a key whose next attribute is
    /// `x` starts with `P + enc(x)` and continues with the later attributes, so: `>= x` is
    /// `>= P + enc(x)`, `> x` is `>= successor(P + enc(x))`, `<= x` is `< successor(P + enc(x))`,
    /// `< x` is `< P + enc(x)`, and no bound is `P` or `< successor(P)`.
    private func compound(
        _ keyed: Store.EntityTables.UniqueConstraint, equalities: [Condition], conditions: [Condition]
    ) -> Access? {
        let prefix = equalities.flatMap(\.key)
        var lower: Condition?
        var upper: Condition?
        if equalities.count < keyed.names.count {
            (lower, upper) = bounds(on: keyed.names[equalities.count], in: conditions)
        }
        guard !prefix.isEmpty || lower != nil || upper != nil else { return nil }
        let lowerKey = lower.map { prefix + $0.key }
        let upperKey = upper.map { prefix + $0.key }
        guard [prefix, lowerKey ?? [], upperKey ?? []].allSatisfy({ $0.count < KeyBuilder.hashedPrefixLength })
        else { return nil }
        let from: KeyRange.Bound? =
            if let lower, let lowerKey {
                if case .lower(true) = lower.kind {
                    .inclusive(lowerKey)
                } else {
                    KeyBuilder.successor(of: lowerKey).map { .inclusive($0) }
                }
            } else {
                prefix.isEmpty ? nil : .inclusive(prefix)
            }
        let to: KeyRange.Bound? =
            if let upper, let upperKey {
                if case .upper(true) = upper.kind {
                    KeyBuilder.successor(of: upperKey).map { .exclusive($0) }
                } else {
                    .exclusive(upperKey)
                }
            } else {
                KeyBuilder.successor(of: prefix).map { .exclusive($0) }
            }
        return .compound(keyed, KeyRange(from: from, to: to), equalities: equalities, lower: lower, upper: upper)
    }

    /// The stored rows an identifier condition allows (`$0.persistentModelID == id`,
    /// `ids.contains($0.persistentModelID)`), with the identifiers of a `contains`; `nil` when
    /// `expression` is no such condition. Identifiers of other entities or stores, and temporary
    /// ones, name no stored row.
    private func identifierRows(
        in node: PlannerNode, _ operands: (PlannerNode, PlannerNode)?
    ) -> (rows: [UInt64], identifiers: Set<PersistentIdentifier>?)? {
        guard let identifierKeyPath, let (first, second) = operands else { return nil }
        func isIdentifier(_ node: PlannerNode) -> Bool {
            guard case .keyPath(let keyPath) = node else { return false }
            return keyPath == identifierKeyPath
        }
        func row(_ value: Any) -> UInt64?? {
            guard let identifier = value as? PersistentIdentifier else { return nil }
            guard identifier.entityName == tables.entity.name, identifier.storeIdentifier == storeIdentifier,
                let row = identifier.rowID
            else { return .some(nil) }
            return .some(row)
        }
        switch node {
        case .equal:
            // Either side may be the identifier; no array of the two orders (it copied both nodes).
            let valueSide: PlannerNode
            if isIdentifier(first) {
                valueSide = second
            } else if isIdentifier(second) {
                valueSide = first
            } else {
                return nil
            }
            guard case .value(let value) = valueSide, let row = row(value) else { return nil }
            return (row.map { [$0] } ?? [], nil)
        case .contains:
            guard isIdentifier(second), case .value(let sequence) = first, let values = sequence as? any Sequence
            else { return nil }
            var rows = Set<UInt64>()
            var identifiers = Set<PersistentIdentifier>()
            for value in values {
                guard let found = row(value), let identifier = value as? PersistentIdentifier else { return nil }
                identifiers.insert(identifier)
                if let found { rows.insert(found) }
            }
            return (rows.sorted(), identifiers)
        case .comparison, .conjunction, .keyPath, .value, .other:
            return nil
        }
    }

    /// The conditions on stored attributes that one `&&`-joined part of a predicate states.
    private func conditions(in node: PlannerNode, _ operands: (PlannerNode, PlannerNode)?) -> [Condition] {
        guard let (first, second) = operands else { return [] }
        switch node {
        case .equal:
            return [condition(first, second, .equal) ?? condition(second, first, .equal)].compactMap { $0 }
        case .contains:
            guard case .keyPath(let keyPath) = second, case .value(let sequence) = first,
                let values = sequence as? any Sequence,
                let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }),
                !attribute.isTransient
            else { return [] }
            // A captured collection of values: every element must be of the attribute's type.
            var keys: [[UInt8]] = []
            var isExact = true
            for value in values {
                guard type(of: value) == attribute.valueType, let component = value as? any KeyComponent else {
                    return []
                }
                var builder = KeyBuilder()
                component.appendKey(to: &builder)
                keys.append(builder.bytes)
                isExact = isExact && component.equalsItself()
            }
            return [
                Condition(
                    attribute: attribute, kind: .oneOf, key: [], value: keys.count, keys: keys,
                    isExact: isExact)
            ]
        case .comparison(let comparison, _, _):
            // attribute OP value, or value OP attribute (the operator then faces the other way).
            let (forward, backward): (Condition.Kind, Condition.Kind) =
                switch comparison {
                case .lessThan: (.upper(inclusive: false), .lower(inclusive: false))
                case .lessThanOrEqual: (.upper(inclusive: true), .lower(inclusive: true))
                case .greaterThan: (.lower(inclusive: false), .upper(inclusive: false))
                case .greaterThanOrEqual: (.lower(inclusive: true), .upper(inclusive: true))
                @unknown default: (.equal, .equal)
                }
            if case .equal = forward { return [] }
            return [condition(first, second, forward) ?? condition(second, first, backward)].compactMap { $0 }
        case .conjunction, .keyPath, .value, .other:
            return []
        }
    }

    /// `keyPathSide` names a stored attribute of the fetched model and `valueSide` is a constant
    /// of exactly the attribute's type with a key encoding.
    private func condition(_ keyPathSide: PlannerNode, _ valueSide: PlannerNode, _ kind: Condition.Kind) -> Condition? {
        guard case .keyPath(let keyPath) = keyPathSide, case .value(let value) = valueSide,
            let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }),
            !attribute.isTransient, type(of: value) == attribute.valueType,
            let component = value as? any KeyComponent
        else { return nil }
        var builder = KeyBuilder()
        component.appendKey(to: &builder)
        return Condition(
            attribute: attribute, kind: kind, key: builder.bytes, value: value,
            isExact: component.equalsItself())
    }
}

extension PredicatePlanner.Condition {
    var isEquality: Bool {
        if case .equal = kind { return true }
        return false
    }
}

/// The wrapped type of `Optional<Wrapped>.Type`, else `nil`.
private func _optionalType(of type: Any.Type) -> Any.Type? {
    (type as? any _PlannerOptional.Type)?.plannerWrapped
}

private protocol _PlannerOptional {
    static var plannerWrapped: Any.Type { get }
}
extension Optional: _PlannerOptional {
    static var plannerWrapped: Any.Type { Wrapped.self }
}

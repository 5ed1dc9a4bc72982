import Foundation

// Planning in two stages, so that a fetch repeated with other values plans in a few thousand
// instructions instead of about 20,000.
//
// 1. The shape (``PredicatePlanner/Shape``): which `&&`-joined part states which condition on
//    which attribute, and the access paths those conditions allow, most selective first. It
//    depends on the predicate's structure, key paths and value types only, never on the values.
// 2. The binding (`PredicatePlanner+Binding.swift`): the values' keys, and the first access path
//    in the shape's order whose checks on those keys pass (a range whose bound is too long to
//    keep its order gives way to the next path, as does a list whose elements are not all of
//    the attribute's type).
//
// Every fetch binds; the shape is made only when the context has none for it yet (``PlanCache``,
// keyed by what a shape depends on, ``PredicatePlanner/ShapeKey``). The SwiftData loop "fetch by
// key, update" makes its shape once and binds each fetch.

extension PredicatePlanner {
    /// One `&&`-joined part of a predicate as the planner reads it.
    struct Part {
        enum Form {
            /// `keyPath == value`, in either order.
            case equal(AnyKeyPath, Any)
            /// `keyPath OP value` as seen from the key path (`value < $0.x` is a lower bound).
            case compare(AnyKeyPath, Condition.Kind, Any)
            /// `sequence.contains(keyPath)` with a captured sequence.
            case contains(AnyKeyPath, Any)
            /// `$0 is Type`: the fetched entity's rows of one class and its subclasses.
            case isA(Any.Type)
            /// Anything else: evaluated on each candidate, never used to find candidates.
            case other

            /// What `first OP second` states: a key path on the variable on one side and a
            /// captured value on the other, or nothing the planner uses.
            init(_ binary: Operator, _ first: PlannerOperand?, _ second: PlannerOperand?) {
                switch (binary, first, second) {
                case (.equal, .keyPath(let keyPath), .value(let value)),
                    (.equal, .value(let value), .keyPath(let keyPath)):
                    self = .equal(keyPath, value)
                case (.comparison(let comparison), .keyPath(let keyPath), .value(let value)):
                    self = Self.bound(comparison, keyPathFirst: true).map { .compare(keyPath, $0, value) } ?? .other
                case (.comparison(let comparison), .value(let value), .keyPath(let keyPath)):
                    self = Self.bound(comparison, keyPathFirst: false).map { .compare(keyPath, $0, value) } ?? .other
                case (.contains, .value(let sequence), .keyPath(let keyPath)):
                    self = .contains(keyPath, sequence)
                default:
                    self = .other
                }
            }

            /// The bound a comparison puts on its key path: `x < v` is an upper bound, `v < x` a
            /// lower one.
            private static func bound(
                _ comparison: PredicateExpressions.ComparisonOperator, keyPathFirst: Bool
            ) -> Condition.Kind? {
                switch comparison {
                case .lessThan: keyPathFirst ? .upper(inclusive: false) : .lower(inclusive: false)
                case .lessThanOrEqual: keyPathFirst ? .upper(inclusive: true) : .lower(inclusive: true)
                case .greaterThan: keyPathFirst ? .lower(inclusive: false) : .upper(inclusive: false)
                case .greaterThanOrEqual: keyPathFirst ? .lower(inclusive: true) : .upper(inclusive: true)
                @unknown default: nil
                }
            }
        }

        /// A binary node's operator.
        enum Operator {
            case equal
            case comparison(PredicateExpressions.ComparisonOperator)
            /// `sequence.contains(element)`: the sequence is the first operand.
            case contains
        }

        let expression: any PredicateExpression<Bool>
        let form: Form
        /// A part of a predicate captured in this one (`other.evaluate($0)`): its form plans, but
        /// the access path never vouches for it, since ``expression`` is the whole captured
        /// predicate (evaluated once, with the first of its parts) or `true`.
        var isNested = false

        var keyPath: AnyKeyPath? {
            switch form {
            case .equal(let keyPath, _), .compare(let keyPath, _, _), .contains(let keyPath, _): keyPath
            case .isA, .other: nil
            }
        }

        var value: Any? {
            switch form {
            case .equal(_, let value), .compare(_, _, let value), .contains(_, let value): value
            case .isA, .other: nil
            }
        }
    }

    /// What a shape depends on: the fetched entity and, for each part, its form, key path and the
    /// dynamic type of its value.
    struct ShapeKey: Hashable {
        struct PartKey: Hashable {
            /// 0 other, 1 equal, 2 contains, 3…6 lower/upper, exclusive/inclusive, 7 a type check.
            let form: UInt8
            /// The key path's object, not its value: a key path literal is one object however
            /// often its predicate is made, and hashing a key path's components cost more than
            /// the rest of the lookup. Two equal key paths that are different objects make two
            /// shapes, both right. (Held, so the identifier stays unique while the key is kept.)
            let keyPath: AnyKeyPath?
            let valueType: ObjectIdentifier?

            init(_ part: borrowing Part) { self.init(form: part.form) }

            init(form: Part.Form) {
                (self.form, keyPath, valueType) = Self.fields(of: form)
            }

            private static func fields(of form: Part.Form) -> (UInt8, AnyKeyPath?, ObjectIdentifier?) {
                switch form {
                case .other: (0, nil, nil)
                case .isA(let type): (7, nil, ObjectIdentifier(type))
                case .equal(let keyPath, let value): (1, keyPath, ObjectIdentifier(type(of: value)))
                case .contains(let keyPath, let value): (2, keyPath, ObjectIdentifier(type(of: value)))
                case .compare(let keyPath, let kind, let value):
                    switch kind {
                    case .lower(let inclusive): (inclusive ? 4 : 3, keyPath, ObjectIdentifier(type(of: value)))
                    case .upper(let inclusive): (inclusive ? 6 : 5, keyPath, ObjectIdentifier(type(of: value)))
                    case .equal, .oneOf: (0, keyPath, ObjectIdentifier(type(of: value)))
                    }
                }
            }

            /// Whether this is the key of a part of form `form`: what `self == PartKey(form: form)`
            /// says, without making that key (which retained its key path), with the numbers
            /// `fields(of:)` gives each form. (One table of numbers for both would switch twice per
            /// comparison and copy the form, with a retain.)
            func matches(_ form: Part.Form) -> Bool {
                switch form {
                case .other: return self.form == 0 && keyPath == nil
                case .isA(let type): return self.form == 7 && valueType == ObjectIdentifier(type)
                case .equal(let keyPath, let value): return matches(1, keyPath, value)
                case .contains(let keyPath, let value): return matches(2, keyPath, value)
                case .compare(let keyPath, let kind, let value):
                    switch kind {
                    case .lower(let inclusive): return matches(inclusive ? 4 : 3, keyPath, value)
                    case .upper(let inclusive): return matches(inclusive ? 6 : 5, keyPath, value)
                    case .equal, .oneOf: return matches(0, keyPath, value)
                    }
                }
            }

            private func matches(_ form: UInt8, _ keyPath: AnyKeyPath, _ value: Any) -> Bool {
                self.form == form && self.keyPath === keyPath && valueType == ObjectIdentifier(type(of: value))
            }

            static func == (lhs: PartKey, rhs: PartKey) -> Bool {
                lhs.form == rhs.form && lhs.keyPath === rhs.keyPath && lhs.valueType == rhs.valueType
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(form)
                hasher.combine(keyPath.map(ObjectIdentifier.init))
                hasher.combine(valueType)
            }
        }

        let entity: Int
        let parts: [PartKey]

        init(entity: Int, parts: [Part]) {
            self.entity = entity
            self.parts = parts.map(PartKey.init)
        }

        /// Whether this is the key of `parts` of `entity`, without making that key.
        func matches(entity: Int, parts: [Part]) -> Bool {
            guard entity == self.entity, parts.count == self.parts.count else { return false }
            // Each part's form read in place: `parts[index]` copied the part (its expression too),
            // and a key made of it to compare retained its key path.
            return parts.withUnsafeBufferPointer { parts in
                for index in parts.indices where !self.parts[index].matches(parts[index].form) { return false }
                return true
            }
        }
    }

    /// A condition a part states on a stored attribute, before its value is encoded. A class:
    /// every fetch of the shape reads its slots, and a copy of the value retained its attribute
    /// and both closures each time.
    final class Slot {
        let attribute: Schema.Attribute
        let kind: Condition.Kind
        /// The part (by position) that states it.
        let part: Int
        /// Appends a value's key and says whether the value equals itself (not NaN), for values of
        /// the type the shape was made with (all but a list's elements): a cast to that type, where
        /// asking for the key encoding as a protocol cost a conformance lookup per fetch.
        let encode: ((Any, inout KeyBuilder) -> Bool)?
        /// For a captured list (`ids.contains($0.id)`): each element's key and whether every
        /// element equals itself, for an array of exactly the attribute's type (one cast for
        /// the array, where casting each element costs about 1,000 instructions); `nil` for a
        /// value of another kind, which is read element by element.
        let encodeList: ((Any) -> (keys: KeyList, isExact: Bool)?)?
        /// For an attribute keyed by its keyed hash (an encrypted store's sensitive attribute),
        /// the hasher: each value's key is hashed, and only equalities and lists are slots.
        let hasher: KeyHasher?

        init(
            attribute: Schema.Attribute, kind: Condition.Kind, part: Int,
            encode: ((Any, inout KeyBuilder) -> Bool)? = nil,
            encodeList: ((Any) -> (keys: KeyList, isExact: Bool)?)? = nil, hasher: KeyHasher? = nil
        ) {
            self.attribute = attribute
            self.kind = kind
            self.part = part
            self.encode = encode
            self.encodeList = encodeList
            self.hasher = hasher
        }
    }

    /// A ``Slot/encode`` for values of `component`'s type, keyed by hash with a `hasher`.
    static func encoder<Value: KeyComponent>(
        _ component: Value, hasher: KeyHasher? = nil
    ) -> (Any, inout KeyBuilder) -> Bool {
        { value, builder in
            let value = value as! Value
            builder.appendComponent(hashedWith: hasher) { value.appendKey(to: &$0) }
            return value.equalsItself()
        }
    }

    /// A ``Slot/encodeList`` for arrays of `Value`, keyed by hash with a `hasher`.
    static func listEncoder<Value: KeyComponent>(
        _: Value.Type, hasher: KeyHasher? = nil
    ) -> (Any) -> (keys: KeyList, isExact: Bool)? {
        { value in
            guard let values = value as? [Value] else { return nil }
            // End to end and finalized, in one reused builder: an array per key would be an allocation
            // and, for each later pass over a hundred thousand of them, a cache miss per key.
            var keys = KeyList(reservingCapacity: values.count)
            var builder = KeyBuilder()
            var isExact = true
            for value in values {
                builder.removeAll()
                builder.appendComponent(hashedWith: hasher) { value.appendKey(to: &$0) }
                keys.append(builder)
                isExact = isExact && value.equalsItself()
            }
            return (keys, isExact)
        }
    }

    /// An access path the conditions allow, by the positions of the slots it uses.
    enum Candidate {
        /// Equalities on every attribute of a uniqueness constraint.
        case unique(Store.EntityTables.UniqueConstraint, equalities: [Int])
        /// An equality on a single-attribute index.
        case indexEquality(Store.EntityTables.UniqueConstraint, equality: Int)
        /// Equalities on leading attributes of a compound table, and bounds on the next.
        case compound(Store.EntityTables.UniqueConstraint, equalities: [Int], lower: Int?, upper: Int?)
        /// A captured list on a single-attribute unique or index table.
        case oneOf(Store.EntityTables.UniqueConstraint, slot: Int, isUnique: Bool)
        /// Bounds on a single-attribute index.
        case indexRange(Store.EntityTables.UniqueConstraint, lower: Int?, upper: Int?)
        case fullScan
    }

    /// The planner's decisions that do not depend on a predicate's values. A class: the cache
    /// hands the same shape to every fetch of that predicate, where a copy of the value retained
    /// its three arrays each time.
    final class Shape {
        /// The parts (by position) that name identifiers (`$0.persistentModelID == id`,
        /// `ids.contains($0.persistentModelID)`), in order: the first whose value holds
        /// identifiers decides the plan.
        let identifierParts: [Int]
        let slots: [Slot]
        /// The access paths to try, most selective first; the last always applies.
        let candidates: [Candidate]

        init(identifierParts: [Int], slots: [Slot], candidates: [Candidate]) {
            self.identifierParts = identifierParts
            self.slots = slots
            self.candidates = candidates
        }
    }

    /// The predicate's `&&`-joined parts, left to right, each read as a condition where it is one.
    static func parts(of expression: any PredicateExpression<Bool>, readers: PlanCache? = nil) -> [Part] {
        // Whether the node's type is a condition the planner reads, asked of its type once per
        // cache (a conditional conformance: a dynamic cast costs about 1,200 instructions a fetch).
        let reader =
            readers.map { $0.partReader(for: type(of: expression)) }
            ?? (type(of: expression) as? any _PlannerPart.Type)
        if let reader {
            // The part keeps a copy; its form is read from that copy.
            var kept = expression
            let form = reader.plannerForm(of: &kept)
            return [Part(expression: consume kept, form: form)]
        }
        let node = PlannerNode(expression)
        if case .conjunction(let lhs, let rhs) = node {
            return parts(of: lhs, readers: readers) + parts(of: rhs, readers: readers)
        }
        if case .evaluate(let nested) = node {
            // The captured predicate's variable is bound when `expression` is evaluated, not when
            // one of its parts is: the first part evaluates the whole, the others nothing.
            return parts(of: nested, readers: readers).enumerated().map { position, part in
                var part = Part(
                    expression: position == 0 ? expression : PredicateExpressions.Value(true), form: part.form)
                part.isNested = true
                return part
            }
        }
        let binary: Part.Operator
        switch node {
        case .equal: binary = .equal
        case .comparison(let comparison, _, _): binary = .comparison(comparison)
        case .contains: binary = .contains
        case .typeCheck(let type): return [Part(expression: expression, form: .isA(type))]
        case .conjunction, .keyPath, .value, .evaluate, .other: return [Part(expression: expression, form: .other)]
        }
        guard let (first, second) = node.operands else { return [Part(expression: expression, form: .other)] }
        return [Part(expression: expression, form: Part.Form(binary, first.operand, second.operand))]
    }

    /// The shape of a predicate made of `parts`: the conditions on stored attributes, and the
    /// access paths they allow, most selective first. Equalities on every attribute of a
    /// uniqueness constraint; equalities on the most leading attributes of an index (a
    /// single-attribute one wins a tie), with a range on the next; a captured list on a unique or
    /// indexed attribute; a range on an indexed attribute or on an index's first attribute; else
    /// a full scan.
    func shape(of parts: [Part]) -> Shape {
        var identifierParts: [Int] = []
        var slots: [Slot] = []
        for (position, part) in parts.enumerated() {
            guard let keyPath = part.keyPath, let value = part.value else { continue }
            if keyPath == identifierKeyPath {
                if case .compare = part.form { continue }
                identifierParts.append(position)
                continue
            }
            guard let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }),
                !attribute.isTransient
            else { continue }
            // A hashed attribute's keys keep equality, not order: its bounds are no slots.
            let hasher = tables.keys.hashedAttributes.contains(attribute.name) ? tables.keys.hasher : nil
            switch part.form {
            case .equal, .compare:
                // A constant of exactly the attribute's type, with a key encoding.
                guard type(of: value) == attribute.valueType, let component = value as? any KeyComponent else {
                    continue
                }
                let kind: Condition.Kind
                if case .compare(_, let bound, _) = part.form { kind = bound } else { kind = .equal }
                if hasher != nil && !kind.isEquality { continue }
                slots.append(
                    Slot(
                        attribute: attribute, kind: kind, part: position,
                        encode: Self.encoder(component, hasher: hasher), hasher: hasher))
            case .contains:
                // Whether every element is of the attribute's type is known from the values only.
                guard value is any Sequence else { continue }
                slots.append(
                    Slot(
                        attribute: attribute, kind: .oneOf, part: position,
                        encodeList: (attribute.valueType as? any KeyComponent.Type).map {
                            Self.listEncoder($0, hasher: hasher)
                        }, hasher: hasher))
            case .isA, .other:
                continue
            }
        }
        return Shape(identifierParts: identifierParts, slots: slots, candidates: candidates(slots))
    }

    /// The access paths `slots` allow, most selective first, ending with a full scan.
    private func candidates(_ slots: [Slot]) -> [Candidate] {
        func equality(_ name: String) -> Int? {
            slots.firstIndex { $0.attribute.name == name && $0.kind.isEquality }
        }
        func bounds(on name: String) -> (lower: Int?, upper: Int?) {
            (
                slots.lastIndex { $0.attribute.name == name && $0.kind.isLower },
                slots.lastIndex { $0.attribute.name == name && $0.kind.isUpper }
            )
        }
        var candidates: [Candidate] = []
        for unique in tables.keys.uniques {
            let equalities = unique.names.compactMap(equality)
            // Always applies: nothing after it is tried.
            if equalities.count == unique.names.count { return [.unique(unique, equalities: equalities)] }
        }
        // Equalities on leading attributes: the most win, then a range on the next attribute,
        // then a single-attribute index (its equality is an exact key).
        var ranked: [(keyed: Store.EntityTables.UniqueConstraint, equalities: [Int], rank: Int)] = []
        for keyed in tables.keys.indexes + tables.keys.uniques.filter({ $0.names.count > 1 }) {
            var equalities: [Int] = []
            for name in keyed.names {
                guard let slot = equality(name) else { break }
                equalities.append(slot)
            }
            guard !equalities.isEmpty else { continue }
            var hasRange = false
            if equalities.count < keyed.names.count {
                let (lower, upper) = bounds(on: keyed.names[equalities.count])
                hasRange = lower != nil || upper != nil
            }
            ranked.append(
                (keyed, equalities, equalities.count * 4 + (hasRange ? 2 : 0) + (keyed.names.count == 1 ? 1 : 0)))
        }
        for (keyed, equalities, _) in ranked.sorted(by: { $0.rank > $1.rank }) {
            if keyed.names.count == 1 {
                candidates.append(.indexEquality(keyed, equality: equalities[0]))
                return candidates + [.fullScan]
            }
            // A compound range whose bounds are too long to scan gives way to the next best.
            var (lower, upper): (Int?, Int?) = (nil, nil)
            if equalities.count < keyed.names.count { (lower, upper) = bounds(on: keyed.names[equalities.count]) }
            candidates.append(.compound(keyed, equalities: equalities, lower: lower, upper: upper))
        }
        let singles = { (keyed: [Store.EntityTables.UniqueConstraint]) in keyed.filter { $0.names.count == 1 } }
        for (position, slot) in slots.enumerated() {
            guard case .oneOf = slot.kind else { continue }
            for (keyed, isUnique) in [(singles(tables.keys.uniques), true), (singles(tables.keys.indexes), false)] {
                guard let table = keyed.first(where: { $0.names[0] == slot.attribute.name }) else { continue }
                candidates.append(.oneOf(table, slot: position, isUnique: isUnique))
                break
            }
        }
        for index in singles(tables.keys.indexes) {
            let (lower, upper) = bounds(on: index.names[0])
            guard lower != nil || upper != nil else { continue }
            candidates.append(.indexRange(index, lower: lower, upper: upper))
        }
        for keyed in tables.keys.indexes + tables.keys.uniques where keyed.names.count > 1 {
            let (lower, upper) = bounds(on: keyed.names[0])
            guard lower != nil || upper != nil else { continue }
            candidates.append(.compound(keyed, equalities: [], lower: lower, upper: upper))
        }
        return candidates + [.fullScan]
    }
}

extension PredicatePlanner.Condition.Kind {
    var isEquality: Bool {
        if case .equal = self { return true }
        return false
    }

    var isLower: Bool {
        if case .lower = self { return true }
        return false
    }

    var isUpper: Bool {
        if case .upper = self { return true }
        return false
    }
}

/// The shapes a context's fetches planned (see `PredicatePlanner+Shape.swift`), kept for the
/// next fetch of the same shape. Owned by one context, so used from one executor, and no access
/// to its properties outlives the statement that makes it: no runtime exclusivity checks (one
/// per property read, about 80 instructions each).
final class PlanCache {
    /// More distinct shapes than this in one context is unusual (each is a predicate written in
    /// the app's code): the cache starts over rather than grow.
    static let capacity = 256

    @exclusivity(unchecked) private var shapes: [PredicatePlanner.ShapeKey: PredicatePlanner.Shape] = [:]
    /// The shape asked for last, compared part by part before the dictionary is hashed: a loop
    /// of fetches asks for the same one each time.
    @exclusivity(unchecked) private var last: (key: PredicatePlanner.ShapeKey, shape: PredicatePlanner.Shape)?
    /// Each predicate node type met, with its conformance to `_PlannerPart` (`nil`: none).
    @exclusivity(unchecked) private var readers: [ObjectIdentifier: (any _PlannerPart.Type)?] = [:]
    /// The node type asked for last and its reader: compared before the dictionary is hashed.
    @exclusivity(unchecked) private var lastReader: (type: ObjectIdentifier, reader: (any _PlannerPart.Type)?)?

    /// The shape of `parts` of `entity`, made by `make` when not kept yet.
    func shape(
        entity: Int, parts: [PredicatePlanner.Part], _ make: () -> PredicatePlanner.Shape
    ) -> PredicatePlanner.Shape {
        // Compared where it lies: unwrapping `last` copied the key's list of parts.
        if last?.key.matches(entity: entity, parts: parts) == true { return last.unsafelyUnwrapped.shape }
        let key = PredicatePlanner.ShapeKey(entity: entity, parts: parts)
        let shape: PredicatePlanner.Shape
        if let kept = shapes[key] {
            shape = kept
        } else {
            shape = make()
            if shapes.count >= Self.capacity { shapes.removeAll(keepingCapacity: true) }
            shapes[key] = shape
        }
        last = (key, shape)
        return shape
    }

    /// How a predicate node of `type` reads as a condition, when it is one the planner reads.
    func partReader(for type: Any.Type) -> (any _PlannerPart.Type)? {
        let key = ObjectIdentifier(type)
        if let lastReader, lastReader.type == key { return lastReader.reader }
        let reader: (any _PlannerPart.Type)?
        if let known = readers[key] {
            reader = known
        } else {
            reader = type as? any _PlannerPart.Type
            if readers.count >= Self.capacity { readers.removeAll(keepingCapacity: true) }
            readers[key] = reader
        }
        lastReader = (key, reader)
        return reader
    }

    /// How many shapes are kept.
    var count: Int { shapes.count }
}

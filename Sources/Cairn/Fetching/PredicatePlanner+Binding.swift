import Foundation

// The second stage of planning (see `PredicatePlanner+Shape.swift`): a shape's conditions get
// their values' keys, and the first access path whose checks on those keys pass is the plan.

extension PredicatePlanner {
    /// The best access path for `predicate` (see ``shape(of:)`` for the order of preference).
    /// Takes the predicate object, not its expression: the expression is read where it lies (an
    /// optional expression unwrapped into a local would be a copy of every node).
    ///
    /// - Parameter cache: Where the shapes of earlier fetches are kept; `nil` makes the shape anew.
    func plan(for predicate: FetchQuery.Predicate?, cache: PlanCache? = nil) -> Plan {
        guard let predicate else { return Plan(access: .fullScan, parts: []) }
        let parts = Self.parts(of: predicate.expression, readers: cache)
        let shape = cache?.shape(entity: tables.ordinal, parts: parts) { self.shape(of: parts) } ?? shape(of: parts)
        let plan = plan(parts, shape: shape)
        plan.rowTables = subclassTables(askedBy: parts)
        for position in parts.indices where parts[position].isNested { plan.covered[position] = nil }
        // (A hierarchy's rows share one table under each class's own record layout: not tested.)
        if !shape.slots.isEmpty && tables.lineage.hierarchy == nil {
            plan.recordTests = RecordTests(slots: shape.slots, parts: parts, covered: plan.covered, tables: tables)
        }
        return plan
    }

    /// The tables of the narrowest subclass of the fetched entity that a part asks the rows to be
    /// of (`$0 is Car`), or `nil`. A type check for the entity itself or a superclass holds for
    /// every row, and one for a class outside the hierarchy for none: both are left to the
    /// residual predicate, as every type check is (it is cheap on a loaded model).
    func subclassTables(askedBy parts: [Part]) -> Store.EntityTables? {
        guard let hierarchy = tables.lineage.hierarchy else { return nil }
        var narrowest: Store.EntityTables?
        for part in parts {
            guard case .isA(let type) = part.form else { continue }
            for case let member? in hierarchy.members
            where ObjectIdentifier(member.tables.modelType) == ObjectIdentifier(type) {
                let subclass = member.tables
                guard subclass.lineage.classNumber != tables.lineage.classNumber,
                    tables.lineage.descendantClasses.contains(subclass.lineage.classNumber)
                else { continue }
                if narrowest.map({ subclass.lineage.descendantClasses.count < $0.lineage.descendantClasses.count })
                    ?? true
                {
                    narrowest = subclass
                }
            }
        }
        return narrowest
    }

    /// The plan for `parts`, whose shape is `shape`.
    func plan(_ parts: [Part], shape: Shape) -> Plan {
        for position in shape.identifierParts {
            guard let (rows, identifiers) = identifierRows(parts[position]) else { continue }
            let plan = Plan(access: .rows(rows), parts: parts)
            plan.covered[position] = identifiers.map { .identifierIn($0) } ?? .evaluate
            return plan
        }
        // Each slot's condition is made when a candidate path asks for it: most plans are one
        // key lookup, which needs its key bytes only (a list of every slot's condition objects
        // would be two allocations and their releases per fetch). A list's condition is missing when
        // an element is not of the attribute's type.
        func condition(at slot: Int) -> Condition? { self.condition(shape.slots[slot], parts[shape.slots[slot].part]) }
        /// The plan for `access`, which finds exactly the rows that satisfy each of `exact` that is
        /// exact, unless its lookup `key` had to be cut and hashed.
        func plan(_ access: Access, exact: some Sequence<Condition>, key: [UInt8] = []) -> Plan {
            let plan = Plan(access: access, parts: parts)
            if key.count < KeyBuilder.maximumLength {
                for condition in exact where condition.isExact { plan.covered[condition.conjunct] = .evaluate }
            }
            return plan
        }
        /// The plan for a lookup of one equality's key (`access` made from the finished key).
        func lookup(_ slot: Int, _ access: ([UInt8]) -> Access) -> Plan {
            let (bytes, isExact) = equalityKey(shape.slots[slot], value: parts[shape.slots[slot].part].value!)
            let key = KeyBuilder.finalize(bytes)
            let plan = Plan(access: access(key), parts: parts)
            if isExact && key.count < KeyBuilder.maximumLength { plan.covered[shape.slots[slot].part] = .evaluate }
            return plan
        }
        for candidate in shape.candidates {
            switch candidate {
            case .unique(let unique, let slots):
                // One attribute's key as it is (joining one key made two arrays per point lookup).
                if slots.count == 1 { return lookup(slots[0]) { .unique(unique, key: $0) } }
                let equalities = slots.compactMap { condition(at: $0) }
                let key = KeyBuilder.finalize(equalities.flatMap(\.key))
                return plan(.unique(unique, key: key), exact: equalities, key: key)
            case .indexEquality(let index, let slot):
                return lookup(slot) { .indexEquality(index, key: $0) }
            case .compound(let keyed, let slots, let lower, let upper):
                let equalities = slots.compactMap { condition(at: $0) }
                guard
                    let access = compound(
                        keyed, equalities: equalities, lower: lower.flatMap { condition(at: $0) },
                        upper: upper.flatMap { condition(at: $0) })
                else { continue }
                return plan(access, exact: equalities)
            case .oneOf(let keyed, let slot, let isUnique):
                guard let condition = condition(at: slot) else { continue }
                let keys = condition.keys
                let exact = condition.isExact && keys.allShorter(than: KeyBuilder.maximumLength)
                // Any other model is checked by looking its key up, never by a scan of the values.
                let plan = Plan(access: .oneOf(keyed, keys: keys, isUnique: isUnique), parts: parts)
                if exact { plan.covered[condition.conjunct] = .keyIn(keyed, KeySet(keys)) }
                return plan
            case .indexRange(let index, let lowerSlot, let upperSlot):
                let (lower, upper) = (lowerSlot.flatMap { condition(at: $0) }, upperSlot.flatMap { condition(at: $0) })
                // A bound that long would be cut and hashed in the index, where hashes do not keep order.
                guard [lower, upper].allSatisfy({ ($0?.key.count ?? 0) < KeyBuilder.hashedPrefixLength }) else {
                    continue
                }
                let range = KeyRange(
                    from: lower.map {
                        if case .lower(true) = $0.kind { .inclusive($0.key) } else { .exclusive($0.key) }
                    },
                    to: upper.map { if case .upper(true) = $0.kind { .inclusive($0.key) } else { .exclusive($0.key) } })
                return plan(.indexRange(index, range, lower: lower, upper: upper), exact: EmptyCollection())
            case .fullScan:
                return plan(.fullScan, exact: EmptyCollection())
            }
        }
        return plan(.fullScan, exact: EmptyCollection())
    }

    /// The condition `slot` states with `part`'s value: its key (or, for a list, each element's),
    /// or `nil` when a list holds an element that is not of the attribute's type.
    private func condition(_ slot: Slot, _ part: Part) -> Condition? {
        guard let value = part.value else { return nil }
        if case .oneOf = slot.kind {
            if let encoded = slot.encodeList?(value) {
                return Condition(
                    attribute: slot.attribute, kind: .oneOf, key: [], value: encoded.keys.count, keys: encoded.keys,
                    conjunct: slot.part, isExact: encoded.isExact)
            }
            guard let values = value as? any Sequence else { return nil }
            var keys = KeyList()
            var builder = KeyBuilder()
            var isExact = true
            for value in values {
                guard type(of: value) == slot.attribute.valueType, let component = value as? any KeyComponent else {
                    return nil
                }
                builder.removeAll()
                builder.appendComponent(hashedWith: slot.hasher) { component.appendKey(to: &$0) }
                keys.append(builder)
                isExact = isExact && component.equalsItself()
            }
            return Condition(
                attribute: slot.attribute, kind: .oneOf, key: [], value: keys.count, keys: keys, conjunct: slot.part,
                isExact: isExact)
        }
        let (key, equalsItself) = equalityKey(slot, value: value)
        return Condition(
            attribute: slot.attribute, kind: slot.kind, key: key, value: value, conjunct: slot.part,
            isExact: equalsItself)
    }

    /// The key encoding (not finalized) of `value`, which a part compares a slot's attribute
    /// with, and whether the value equals itself (not NaN). The shape holds only parts with a
    /// value of the attribute's type that has a key encoding. (The value, not its part: a part
    /// passed would be a copy of the part's whole expression.)
    private func equalityKey(_ slot: Slot, value: Any) -> (key: [UInt8], isExact: Bool) {
        var builder = KeyBuilder()
        let equalsItself = slot.encode!(value, &builder)
        return (builder.bytes, equalsItself)
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
        _ keyed: Store.EntityTables.UniqueConstraint, equalities: [Condition], lower: Condition?, upper: Condition?
    ) -> Access? {
        let prefix = equalities.flatMap(\.key)
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

    /// The stored rows an identifier part allows (`$0.persistentModelID == id`,
    /// `ids.contains($0.persistentModelID)`), with the identifiers of a `contains`; `nil` when its
    /// value holds something other than identifiers. Identifiers of other entities or stores,
    /// and temporary ones, name no stored row.
    private func identifierRows(_ part: Part) -> (rows: [UInt64], identifiers: Set<PersistentIdentifier>?)? {
        func row(_ value: Any) -> UInt64?? {
            guard let identifier = value as? PersistentIdentifier else { return nil }
            guard identifier.entity == tables.entityName, identifier.store?.number == store?.number,
                let row = identifier.rowID
            else { return .some(nil) }
            return .some(row)
        }
        switch part.form {
        case .equal(_, let value):
            guard let row = row(value) else { return nil }
            return (row.map { [$0] } ?? [], nil)
        case .contains(_, let sequence):
            guard let values = sequence as? any Sequence else { return nil }
            var rows = Set<UInt64>()
            var identifiers = Set<PersistentIdentifier>()
            for value in values {
                guard let found = row(value), let identifier = value as? PersistentIdentifier else { return nil }
                identifiers.insert(identifier)
                if let found { rows.insert(found) }
            }
            return (rows.sorted(), identifiers)
        case .compare, .isA, .other:
            return nil
        }
    }
}

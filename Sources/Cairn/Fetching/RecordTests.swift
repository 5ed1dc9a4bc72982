import Foundation

/// The parts of a fetch's predicate that are checked on each candidate's stored record, before
/// any model is made for it: comparisons of a stored attribute with a captured value
/// (`$0.firstName == name`, `$0.age >= 18`) that the access path does not already guarantee.
///
/// A scan for the few rows that match then reads and checks each record, where it made, loaded
/// and registered a model for every row and evaluated the predicate on it: the rows that fail
/// cost a field decode and a comparison. Each test decodes the field by the attribute's native
/// type and compares with that type's own `==` and comparison operators, as the predicate does,
/// so a record passes exactly when its model would.
///
/// A record a test cannot read (a field that is damaged, or of another type) is kept: its model's
/// load reports the damage, as it did before. A row whose model in the context has unsaved
/// changes is kept too (the caller's ``CandidateReader`` asks): its model, not its record, is
/// what the predicate is about.
///
/// ```swift
/// let tests = RecordTests(slots: shape.slots, parts: parts, covered: plan.covered, tables: tables)
/// if tests?.admit({ tag in reader.payload(tag: tag) }) == false { /* the row cannot match */ }
/// ```
struct RecordTests {
    /// One comparison of a record's field.
    struct Test {
        let tag: UInt32
        /// Whether the field (or its absence) satisfies the comparison; `nil` when it cannot be read.
        let holds: (FieldPayload?) -> Bool?
    }

    let tests: [Test]
    /// The parts of the predicate (by position) the tests check.
    let parts: Set<Int>

    /// The tests for the comparisons among `slots` whose parts `covered` leaves to check; `nil`
    /// when there are none.
    init?(slots: [PredicatePlanner.Slot], parts: [PredicatePlanner.Part], covered: PredicatePlanner.CoveredChecks,
          tables: Store.EntityTables) {
        var tests: [Test] = []
        var tested = Set<Int>()
        for slot in slots where covered[slot.part] == nil && !parts[slot.part].isNested {
            guard let value = parts[slot.part].value, let test = Self.test(slot, value: value, tables: tables) else {
                continue
            }
            tests.append(test)
            tested.insert(slot.part)
        }
        guard !tests.isEmpty else { return nil }
        self.tests = tests
        self.parts = tested
    }

    /// Whether a record may match: `false` when a test fails on it. `field` reads the record's
    /// field by tag; one that cannot be read keeps the record (its model's load reports why).
    func admit(_ field: (UInt32) throws(StorageError) -> FieldPayload?) -> Bool {
        for test in tests {
            let payload: FieldPayload?
            do { payload = try field(test.tag) } catch { return true }
            if test.holds(payload) == false { return false }
        }
        return true
    }

    /// The test of `slot`'s comparison with `value`, when its attribute is stored in the record
    /// as its native type (what a key of it is made from); `nil` otherwise.
    private static func test(_ slot: PredicatePlanner.Slot, value: Any, tables: Store.EntityTables) -> Test? {
        let attribute = slot.attribute
        guard let comparison = FieldComparison(slot.kind), !attribute.isTransient,
            !attribute.options.contains(.externalStorage), attribute.access?.appendKey != nil,
            let tag = tables.codec.tags[attribute.name], let native = NativeValues.type(of: attribute.valueType)
        else { return nil }
        let defaultValue = native.isOptional ? nil : attribute.defaultValue
        let holds = native.native.fieldTest(
            comparison, value: value, isOptional: native.isOptional, defaultValue: defaultValue)
        return holds.map { Test(tag: tag, holds: $0) }
    }
}

extension FieldComparison {
    /// The comparison a planner condition of `kind` states (`.lower(inclusive: true)` is
    /// `field >= value`); `nil` for a list.
    init?(_ kind: PredicatePlanner.Condition.Kind) {
        switch kind {
        case .equal: self = .equal
        case .lower(let inclusive): self = .ordered(inclusive ? .greaterThanOrEqual : .greaterThan)
        case .upper(let inclusive): self = .ordered(inclusive ? .lessThanOrEqual : .lessThan)
        case .oneOf: return nil
        }
    }
}

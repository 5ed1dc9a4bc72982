import Cairn
import Foundation
import PropertyBased
import Testing

// Aggregates equal computing them over the models `fetch` returns: random data and random
// predicates (PredicateProperties' scenario, with unsaved changes in the context), grouped by
// indexed and unindexed attributes, an optional, a Bool, a to-one relationship's attribute and a
// computed property, with and without the pending changes, and with limits and offsets.

/// The reference: one group's aggregates, computed over models in memory.
struct AggregateReference: Equatable, CustomStringConvertible {
    var count = 0
    var scoreSum = 0
    var pointsSum = 0
    var ratingSum = 0.0
    var ratingMagnitude = 0.0
    var ratingCount = 0
    var firstName: String?
    var lastBorn: Date?
    var firstNickname: String?

    init() {}

    init(_ members: [PredMember]) {
        for member in members {
            count += 1
            scoreSum += member.score
            pointsSum += member.points
            ratingSum += member.rating
            ratingMagnitude += abs(member.rating)
            ratingCount += 1
            firstName = firstName.map { min($0, member.name) } ?? member.name
            lastBorn = lastBorn.map { max($0, member.born) } ?? member.born
            if let nickname = member.nickname { firstNickname = firstNickname.map { min($0, nickname) } ?? nickname }
        }
    }

    /// The same aggregates as the store computed them.
    init(_ values: (Int, Int, Int, Double?, String?, Date?, String?)) {
        (count, scoreSum, pointsSum) = (values.0, values.1, values.2)
        ratingSum = (values.3 ?? 0) * Double(values.0)
        ratingCount = values.3 == nil ? 0 : values.0
        (firstName, lastBorn, firstNickname) = (values.4, values.5, values.6)
    }

    /// Whether `computed` agrees: exactly, but for the mean of ratings, whose sum's rounding
    /// depends on the order of the rows.
    func matches(_ computed: AggregateReference) -> Bool {
        let tolerance = 1e-9 * max(1, ratingMagnitude)
        return count == computed.count && scoreSum == computed.scoreSum && pointsSum == computed.pointsSum
            && ratingCount == computed.ratingCount && abs(ratingSum - computed.ratingSum) <= tolerance
            && firstName == computed.firstName && lastBorn == computed.lastBorn
            && firstNickname == computed.firstNickname
    }

    var description: String {
        "count \(count) score \(scoreSum) points \(pointsSum) rating \(ratingSum)/\(ratingCount) "
            + "name \(firstName ?? "nil") born \(lastBorn.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil") "
            + "nickname \(firstNickname ?? "nil")"
    }
}

extension PredMember {
    /// A computed property: grouped by, it is read of models.
    var scoreSign: Int { score.signum() }
}

@Suite struct AggregateProperties {
    typealias Descriptor = FetchDescriptor<PredMember>

    /// The method's kind, for the tally of methods reached.
    static func kind(_ plan: AggregatePlan) -> String {
        switch plan.method {
        case .rowCount: "rowCount"
        case .indexEnds: "indexEnds"
        case .indexGroups: "indexGroups"
        case .indexEntries: "indexEntries"
        case .records: "records"
        case .models: "models"
        }
    }

    /// The seven aggregates the reference computes, as the store computes them.
    static func aggregate(_ context: ModelContext, _ descriptor: Descriptor) throws -> AggregateReference {
        AggregateReference(
            try context.aggregate(
                descriptor, computing: .count, .sum(\.score), .sum(\.points), .average(\.rating), .minimum(\.name),
                .maximum(\.born), .minimum(\.nickname)))
    }

    /// The same per group of `key`, as `[String(describing: key): aggregates]`.
    static func grouped<K: Hashable>(
        _ context: ModelContext, _ descriptor: Descriptor, by key: KeyPath<PredMember, K>
    ) throws -> [(String, AggregateReference)] {
        try context.aggregate(
            descriptor, groupedBy: key,
            computing: .count, .sum(\.score), .sum(\.points), .average(\.rating), .minimum(\.name), .maximum(\.born),
            .minimum(\.nickname)
        ).map { ("\($0.key)", AggregateReference($0.values)) }
    }

    /// The reference groups of `members` by `key`, in the order the store gives (by the key's
    /// description here: the caller compares sorted lists).
    static func referenceGroups<K: Hashable>(
        _ members: [PredMember], by key: KeyPath<PredMember, K>
    ) -> [(String, AggregateReference)] {
        Dictionary(grouping: members) { $0[keyPath: key] }
            .map { ("\($0.key)", AggregateReference($0.value)) }
    }

    static func check(
        _ computed: [(String, AggregateReference)], _ expected: [(String, AggregateReference)], _ shape: String
    ) {
        let computedByKey = Dictionary(computed, uniquingKeysWith: { first, _ in first })
        #expect(computed.count == expected.count, "groups: \(shape): \(computed.map(\.0)) vs \(expected.map(\.0))")
        for (key, reference) in expected {
            guard let found = computedByKey[key] else {
                Issue.record("group \(key) missing: \(shape)")
                continue
            }
            #expect(reference.matches(found), "group \(key): \(found) vs \(reference): \(shape)")
        }
    }

    @Test func aggregatesAgreeWithComputingThemOverFetchedModels() async {
        let input = zip(Gen.int(in: 0...40), Gen.int(in: 0...2), Gen.int(in: 0...Int(Int32.max)))
        let methods = KindTally()
        await propertyCheck(count: PropertyScale.count(40), input: input) { count, depth, seed in
            var random = SeededGenerator(seed: UInt64(seed))
            // `fresh` sees the stored values: what aggregates leaving pending changes out count.
            let (context, fresh) = try PredicateProperties.scenario(count: count, &random)
            let everyone = try context.fetch(Descriptor())
            for _ in 0..<6 {
                let form = PredForm.random(depth: depth, codes: count, members: everyone, &random)
                var descriptor = Descriptor(predicate: Bool.random(using: &random) ? form.predicate : nil)
                if Int.random(in: 0..<4, using: &random) == 0 {
                    descriptor.sortBy = [SortDescriptor(\.code)]
                    descriptor.fetchLimit = Int.random(in: 0...10, using: &random)
                    descriptor.fetchOffset = Bool.random(using: &random) ? Int.random(in: 0...4, using: &random) : nil
                }
                descriptor.includePendingChanges = Int.random(in: 0..<4, using: &random) > 0
                var reading = descriptor
                reading.includePendingChanges = true
                let models = try (descriptor.includePendingChanges ? context : fresh).fetch(reading)
                let shape = "\(descriptor.predicate == nil ? "no predicate" : "\(form)") limit "
                    + "\(descriptor.fetchLimit.map(String.init) ?? "-") offset \(descriptor.fetchOffset.map(String.init) ?? "-") "
                    + "pending \(descriptor.includePendingChanges) [seed \(seed)]"
                methods.record(Self.kind(try context.explain(descriptor, groupedBy: \.name, computing: .count, .sum(\.score))))
                methods.record(Self.kind(try context.explain(descriptor, groupedBy: \.score, computing: .count)))
                methods.record(Self.kind(try context.explain(descriptor, computing: .count, .maximum(\.name))))
                let whole = try Self.aggregate(context, descriptor)
                #expect(AggregateReference(models).matches(whole), "\(whole) vs \(AggregateReference(models)): \(shape)")
                Self.check(try Self.grouped(context, descriptor, by: \.name), Self.referenceGroups(models, by: \.name), "by name: \(shape)")
                Self.check(try Self.grouped(context, descriptor, by: \.alias), Self.referenceGroups(models, by: \.alias), "by alias: \(shape)")
                Self.check(
                    try Self.grouped(context, descriptor, by: \.nickname), Self.referenceGroups(models, by: \.nickname),
                    "by nickname: \(shape)")
                Self.check(try Self.grouped(context, descriptor, by: \.active), Self.referenceGroups(models, by: \.active), "by active: \(shape)")
                Self.check(
                    try Self.grouped(context, descriptor, by: \.team?.name), Self.referenceGroups(models, by: \.team?.name),
                    "by team name: \(shape)")
                Self.check(
                    try Self.grouped(context, descriptor, by: \.scoreSign), Self.referenceGroups(models, by: \.scoreSign),
                    "by a computed property: \(shape)")
                // Counts per group of an indexed attribute, and by two key paths.
                let counts = try context.fetchCount(descriptor, groupedBy: \.score).map { ("\($0.key)", $0.values) }
                let expectedCounts = Dictionary(grouping: models, by: \.score).map { ("\($0.key)", $0.value.count) }
                #expect(Dictionary(uniqueKeysWithValues: counts) == Dictionary(uniqueKeysWithValues: expectedCounts), "\(shape)")
                let pairs = try context.fetchCount(descriptor, groupedBy: \.active, \.score).map { "\($0.key)=\($0.values)" }
                let expectedPairs = Dictionary(grouping: models) { "\(($0.active, $0.score))" }.map { "\($0.key)=\($0.value.count)" }
                #expect(pairs.sorted() == expectedPairs.sorted(), "\(shape)")
                let (count, firstName) = try context.aggregate(descriptor, computing: .count, .maximum(\.name))
                #expect(count == models.count && firstName == models.map(\.name).max(), "\(shape)")
            }
        }
        #expect(methods.kinds == ["indexEnds", "indexGroups", "indexEntries", "records", "models"], "methods seen: \(methods.kinds)")
    }
}

import Foundation
import Testing

@testable import Cairn

@Model final class Gauge {
    #Index<Gauge>([\.reading])

    @Attribute(.unique) var code: Int
    var reading: Double
    var label: String

    init(code: Int, reading: Double, label: String = "") {
        self.code = code
        self.reading = reading
        self.label = label
    }
}

/// A captured list of codes that counts how many elements anything iterates over, so a test can
/// tell a hashed lookup from a scan of the list per candidate.
final class CountingCodes: Sequence, Codable, @unchecked Sendable {
    // `@unchecked Sendable`: `visitedCount` is only touched under `lock`.
    private let codes: [Int]
    private let lock = NSLock()
    private var visitedCount = 0

    init(_ codes: [Int]) { self.codes = codes }

    // A captured value of a predicate is `Codable`; only the codes are.
    private enum CodingKeys: CodingKey { case codes }

    var visited: Int { lock.withLock { visitedCount } }

    struct Iterator: IteratorProtocol {
        let owner: CountingCodes
        var position = 0

        mutating func next() -> Int? {
            guard position < owner.codes.count else { return nil }
            owner.lock.withLock { owner.visitedCount += 1 }
            position += 1
            return owner.codes[position - 1]
        }
    }

    func makeIterator() -> Iterator { Iterator(owner: self) }
}

/// The fetch pipeline evaluates only what the access path does not guarantee: SwiftData's
/// fetch-then-update (`ids.contains($0.id)`) must be linear, not a scan of the list per row.
@Suite struct ResidualPredicateTests {
    func gauges(_ count: Int) throws -> ModelContext {
        let container = try makeContainer(inMemory: Gauge.self)
        let context = ModelContext(container)
        for code in 0..<count { context.insert(Gauge(code: code, reading: Double(code % 10), label: "g\(code)")) }
        try context.save()
        return context
    }

    @Test func aCapturedListIsHashedOnceNotScannedPerCandidate() throws {
        let context = try gauges(2_000)
        let codes = CountingCodes(Array(0..<2_000).reversed())
        let fetched = try context.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { codes.contains($0.code) }))
        #expect(fetched.count == 2_000)
        // The planner reads the list once; a scan per candidate would visit about 2,000,000.
        #expect(codes.visited <= 2 * 2_000)
        // The list's order is the lookups' order.
        #expect(fetched.prefix(3).map(\.code) == [1_999, 1_998, 1_997])
    }

    @Test func pendingModelsAreJudgedByTheirUnsavedValuesAgainstTheHashedList() throws {
        let context = try gauges(50)
        let all = try context.fetch(FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.code)]))
        all[3].code = 1_003  // leaves the list
        all[4].code = 7_000  // joins it
        context.insert(Gauge(code: 7_001, reading: 1))  // inserted, in the list
        context.insert(Gauge(code: 9_999, reading: 1))  // inserted, not in the list
        context.delete(all[5])  // deleted, in the list
        let codes = CountingCodes([1, 2, 3, 4, 5, 7_000, 7_001])
        let descriptor = FetchDescriptor<Gauge>(
            predicate: #Predicate { codes.contains($0.code) }, sortBy: [SortDescriptor(\.code)])
        #expect(try context.fetch(descriptor).map(\.code) == [1, 2, 7_000, 7_001])
        #expect(try context.fetchCount(descriptor) == 4)
        #expect(codes.visited <= 4 * 7)
    }

    @Test func anExactLookupAndTheRestOfThePredicateBothHold() throws {
        let context = try gauges(100)
        let codes = Array(0..<100)
        let matches = try context.fetch(
            FetchDescriptor<Gauge>(
                predicate: #Predicate { codes.contains($0.code) && $0.reading >= 8 }, sortBy: [SortDescriptor(\.code)]))
        #expect(matches.map(\.code) == (0..<100).filter { $0 % 10 >= 8 })
        let plan = try context.explain(FetchDescriptor<Gauge>(predicate: #Predicate { codes.contains($0.code) }))
        #expect(!plan.evaluatesPredicate)
        let partial = try context.explain(
            FetchDescriptor<Gauge>(predicate: #Predicate { codes.contains($0.code) && $0.label != "" }))
        #expect(partial.evaluatesPredicate)
    }

    @Test func aFetchLimitWithoutASortStopsReading() throws {
        let context = try gauges(500)
        let fresh = ModelContext(context.container)
        var first = FetchDescriptor<Gauge>()
        first.fetchLimit = 3
        #expect(try fresh.fetch(first).map(\.code) == [0, 1, 2])
        #expect(fresh.statistics.recordLoads == 3)
        var selective = FetchDescriptor<Gauge>(predicate: #Predicate { $0.label.contains("7") })
        selective.fetchLimit = 2
        selective.fetchOffset = 1
        let before = fresh.statistics.recordLoads
        #expect(try fresh.fetch(selective).map(\.code) == [17, 27])
        #expect(fresh.statistics.recordLoads - before < 500)
        // Pending inserts follow the stored matches, as in a fetch without a limit.
        fresh.insert(Gauge(code: 10_000, reading: 0, label: "7"))
        selective.fetchLimit = 1_000
        selective.fetchOffset = 0
        let everything = try fresh.fetch(selective)
        #expect(everything.last?.code == 10_000 && everything.count == (0..<500).count { "g\($0)".contains("7") } + 1)
    }

    @Test func notANumberMatchesNothingThroughAnIndex() throws {
        let context = ModelContext(
            try makeContainer(inMemory: Gauge.self))
        context.insert(Gauge(code: 1, reading: .nan))
        context.insert(Gauge(code: 2, reading: 1))
        try context.save()
        let notANumber = Double("nan")!
        // `==` never holds for NaN, though every NaN has the same index key.
        #expect(try context.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { $0.reading == notANumber })).isEmpty)
        let readings = [notANumber, 1]
        #expect(
            try context.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { readings.contains($0.reading) })).map(
                \.code) == [2])
    }

    @Test func anIdentifierOfAnotherStoreNamesNoRow() throws {
        let first = try gauges(3)
        let second = try gauges(3)
        let foreign = try first.fetch(FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.code)]))[1].persistentModelID
        #expect(
            try second.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { $0.persistentModelID == foreign }))
                .isEmpty)
        let ids = [foreign]
        #expect(
            try second.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { ids.contains($0.persistentModelID) }))
                .isEmpty)
        let own = try second.fetch(FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.code)]))[1].persistentModelID
        let mixed = [foreign, own]
        #expect(
            try second.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { mixed.contains($0.persistentModelID) }))
                .map(\.code) == [1])
    }
}

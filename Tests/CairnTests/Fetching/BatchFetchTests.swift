import Foundation
import Testing

@testable import Cairn

/// `propertiesToFetch`, `fetch(_:batchSize:)`, `enumerate` and `fetchIdentifiers`: how much they
/// load, and when.
@Suite struct BatchFetchTests {
    static let count = 1_000

    func container() throws -> ModelContainer {
        let container = try makeContainer(RankedItem.self, in: TemporaryDirectory(), named: "Batch.store")
        let context = ModelContext(container)
        for n in 0..<Self.count { context.insert(RankedItem(rank: n, group: n % 4, label: "item \(n)")) }
        try context.save()
        return container
    }

    func isLoaded(_ attribute: String, _ model: RankedItem, _ container: ModelContainer) -> Bool {
        container.store.entities["RankedItem"]!.entity.attributesByName[attribute]!.access!.isLoaded(model)
    }

    @Test func propertiesToFetchDecodesOnlyThoseAndThePredicates() throws {
        let container = try container()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<RankedItem>(predicate: #Predicate { $0.group == 1 })
        descriptor.propertiesToFetch = [\.label]
        let items = try context.fetch(descriptor)
        #expect(items.count == Self.count / 4)
        #expect(items.allSatisfy { isLoaded("label", $0, container) && isLoaded("group", $0, container) })
        #expect(items.allSatisfy { !isLoaded("rank", $0, container) })
        let before = context.statistics
        let ranks = items.prefix(3).map(\.rank)  // faults the rest in, one read each
        #expect(ranks == [1, 5, 9])
        #expect(context.statistics.recordLoads == before.recordLoads + 3)
        #expect(isLoaded("rank", items[0], container) && !isLoaded("rank", items[3], container))
        // A partly loaded model saves whole.
        items[3].label = "changed"
        try context.save()
        let stored = try ModelContext(container).fetch(
            FetchDescriptor<RankedItem>(predicate: #Predicate { $0.label == "changed" }))
        #expect(stored.map(\.rank) == [13] && stored.map(\.group) == [1])
    }

    @Test func aBatchedFetchLoadsOneBatchAtATime() throws {
        let container = try container()
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank, order: .reverse)])
        let items = try context.fetch(descriptor, batchSize: 100)
        #expect(items.count == Self.count)
        let afterMatching = context.statistics
        weak let first = items[0]
        #expect(first?.rank == Self.count - 1)
        #expect(first.map { isLoaded("label", $0, container) } == true)
        #expect(context.statistics.readTransactions == afterMatching.readTransactions + 1)
        #expect(context.statistics.recordLoads == afterMatching.recordLoads + 100)
        _ = items[99]
        #expect(context.statistics.readTransactions == afterMatching.readTransactions + 1, "same batch")
        #expect(items[150].rank == Self.count - 151)
        #expect(context.statistics.readTransactions == afterMatching.readTransactions + 2)
        #expect(first == nil, "the first batch was released once the collection moved on")
        #expect(Array(items.map(\.rank)) == Array((0..<Self.count).reversed()))
    }

    @Test func fetchIdentifiersDecodesOnlyWhatThePredicateAndSortUse() throws {
        let container = try container()
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<RankedItem>(
            predicate: #Predicate { $0.group == 2 }, sortBy: [SortDescriptor(\.label)])
        let identifiers = try context.fetchIdentifiers(descriptor)
        #expect(identifiers == (try context.fetch(descriptor)).map(\.persistentModelID))
        let fresh = ModelContext(container)
        let ids = try fresh.fetchIdentifiers(descriptor)
        // Only the matches become models: the other rows fail `group == 2` on their records.
        #expect(ids == identifiers && fresh.statistics.recordLoads == identifiers.count)
        #expect(identifiers.count < Self.count)
        // The models built to test and sort are gone; the ones still registered hold no rank.
        #expect(
            ids.compactMap { fresh.registeredModel(for: $0) as RankedItem? }.allSatisfy {
                !isLoaded("rank", $0, container)
            })
    }

    @Test func enumerateVisitsEveryMatchAndRefusesEscapingMutations() throws {
        let container = try container()
        let context = ModelContext(container)
        var seen: [Int] = []
        try context.enumerate(
            FetchDescriptor<RankedItem>(predicate: #Predicate { $0.group == 3 }, sortBy: [SortDescriptor(\.rank)]),
            batchSize: 64
        ) { seen.append($0.rank) }
        #expect(seen == Array(stride(from: 3, to: Self.count, by: 4)))

        var visited = 0
        let error = #expect(throws: FetchError.self) {
            try context.enumerate(FetchDescriptor<RankedItem>(), batchSize: 100) { item in
                visited += 1
                if item.rank == 5 { item.label = "edited" }
            }
        }
        #expect(error?.code == .mutationsEscaped && visited == 100, "stopped after the first batch")
        #expect(context.hasChanges, "the change is kept")

        try context.save()
        var edited = 0
        try context.enumerate(FetchDescriptor<RankedItem>(), batchSize: 100, allowEscapingMutations: true) { item in
            item.group = 9
            edited += 1
        }
        #expect(edited == Self.count && context.hasChanges)
        try context.save()
        #expect(
            try ModelContext(container).fetchCount(FetchDescriptor<RankedItem>(predicate: #Predicate { $0.group == 9 }))
                == Self.count)
    }
}

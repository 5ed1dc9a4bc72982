import Foundation
import Testing

@testable import Cairn

@Model
final class RankedItem {
    #Index<RankedItem>([\.rank])

    var rank: Int
    var group: Int
    var label: String

    init(rank: Int, group: Int, label: String) {
        self.rank = rank
        self.group = group
        self.label = label
    }
}

/// A fetch with a limit whose first sort key is indexed reads rows in index order and stops
/// once the page is certain: the cost follows the limit, not the table.
@Suite struct IndexOrderTests {
    static let count = 1_000

    /// 1,000 items with distinct ranks in shuffled row order (or ranks shared by ten items).
    func container(tiedRanks: Bool = false) throws -> ModelContainer {
        let container = try makeContainer(RankedItem.self, in: TemporaryDirectory(), named: "Ranked.store")
        let context = ModelContext(container)
        var generator = SeededGenerator(seed: 7)
        for (n, rank) in (0..<Self.count).shuffled(using: &generator).enumerated() {
            context.insert(RankedItem(rank: tiedRanks ? rank / 10 : rank, group: n % 4, label: "item \(n)"))
        }
        try context.save()
        return container
    }

    /// The same descriptor answered without a limit, sorted and cut in memory.
    func reference(_ context: ModelContext, _ descriptor: FetchDescriptor<RankedItem>) throws -> [String] {
        var whole = descriptor
        whole.fetchLimit = nil
        whole.fetchOffset = nil
        let all = try context.fetch(whole)
        let start = min(descriptor.fetchOffset ?? 0, all.count)
        return all[start..<min(start + descriptor.fetchLimit!, all.count)].map(\.label)
    }

    @Test func aLimitOnAnIndexedSortReadsAboutTheLimit() throws {
        let container = try container()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)])
        descriptor.fetchLimit = 10
        let page = try context.fetch(descriptor)
        #expect(page.map(\.rank) == Array(0..<10))
        #expect(context.statistics == .init(readTransactions: 1, recordLoads: 10))

        let reverse = ModelContext(container)
        descriptor.sortBy = [SortDescriptor(\.rank, order: .reverse)]
        descriptor.fetchOffset = 5
        #expect(try reverse.fetch(descriptor).map(\.rank) == Array((Self.count - 15)..<(Self.count - 5)).reversed())
        #expect(reverse.statistics == .init(readTransactions: 1, recordLoads: 15))

        let unsorted = ModelContext(container)
        descriptor.sortBy = [SortDescriptor(\.group)]
        _ = try unsorted.fetch(descriptor)
        #expect(unsorted.statistics.recordLoads == Self.count, "no index on group: every row is read")
    }

    @Test func aResidualPredicateReadsUntilEnoughMatch() throws {
        let context = ModelContext(try container())
        var descriptor = FetchDescriptor<RankedItem>(
            predicate: #Predicate { $0.group == 1 }, sortBy: [SortDescriptor(\.rank), SortDescriptor(\.label)])
        descriptor.fetchLimit = 20
        let page = try context.fetch(descriptor).map(\.label)
        let loads = context.statistics.recordLoads
        #expect(loads >= 20 && loads < 200, "about 80 rows hold 20 of group 1, read in a few passes")
        #expect(page == (try reference(ModelContext(context.container), descriptor)))
        #expect(page.count == 20)
    }

    @Test func tiesAtTheCutAreReadWhole() throws {
        let context = ModelContext(try container(tiedRanks: true))
        var descriptor = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.label)])
        descriptor.fetchLimit = 15
        let page = try context.fetch(descriptor).map(\.label)
        #expect(context.statistics.recordLoads == 20, "ranks 0 and 1, ten rows each")
        #expect(page == (try reference(ModelContext(context.container), descriptor)))
    }

    @Test func pendingChangesTakeTheirPlaceInTheOrder() throws {
        let context = ModelContext(try container())
        var descriptor = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)])
        descriptor.fetchLimit = 5
        let first = try context.fetch(descriptor)
        first[0].rank = 500  // moves out of the page
        context.delete(first[1])
        context.insert(RankedItem(rank: -2, group: 0, label: "new"))
        let far = try #require(
            try context.fetch(FetchDescriptor<RankedItem>(predicate: #Predicate { $0.rank == 900 })).first)
        far.rank = -1  // moves in from beyond what the index order reads
        let page = try context.fetch(descriptor)
        #expect(page.map(\.rank) == [-2, -1, 2, 3, 4])
        descriptor.includePendingChanges = false
        #expect(
            try context.fetch(descriptor).map(\.persistentModelID) == first.map(\.persistentModelID),
            "stored values only (read without the index order, as models are changed)")
    }

    @Test func explainReportsTheIndexOrder() throws {
        let context = ModelContext(try container())
        var descriptor = FetchDescriptor<RankedItem>(
            predicate: #Predicate { $0.rank >= 100 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
        descriptor.fetchLimit = 10
        let plan = try context.explain(descriptor)
        #expect(
            plan.accessPath
                == .indexOrder(
                    table: "i/RankedItem/rank", attribute: "rank", lower: ">= 100", upper: nil, descending: true))
        #expect(plan.estimatedRows == 10)
        #expect("\(plan)".hasPrefix("index order on i/RankedItem/rank (rank descending >= 100) until the limit"))
        descriptor.fetchLimit = nil
        #expect(try context.explain(descriptor).accessPath.isIndexRange)
    }
}

extension FetchPlan.AccessPath {
    fileprivate var isIndexRange: Bool {
        if case .indexRange = self { return true }
        return false
    }
}

import Foundation
import Testing

@testable import Cairn

@Model final class PricedLink {
    #Index<PricedLink>([\.price])

    @Attribute(.unique) var link: URL
    var price: Decimal
    var discount: Decimal?

    init(link: URL, price: Decimal, discount: Decimal? = nil) {
        self.link = link
        self.price = price
        self.discount = discount
    }
}

/// `Decimal` and `URL` attributes in unique constraints and indexes: keys from the registry's
/// key encodings, used by saves, upserts and the planner.
@Suite struct DecimalAndURLKeyTests {
    private func link(_ n: Int) -> URL { URL(string: "https://example.com/item/\(n)")! }

    @Test func aUniqueURLMakesASecondInsertAnUpdate() throws {
        let container = try makeContainer(PricedLink.self, in: TemporaryDirectory(), named: "Links.store")
        let context = ModelContext(container)
        context.insert(PricedLink(link: link(1), price: 10))
        try context.save()
        let other = ModelContext(container)
        other.insert(PricedLink(link: link(1), price: Decimal(string: "12.50")!))
        other.insert(PricedLink(link: link(2), price: 3))
        try other.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<PricedLink>(sortBy: [SortDescriptor(\.price)]))
        #expect(all.map(\.link) == [link(2), link(1)])
        #expect(all.map(\.price) == [3, Decimal(string: "12.5")!])
        let second = link(2)
        let unique = try ModelContext(container).explain(
            FetchDescriptor<PricedLink>(predicate: #Predicate { $0.link == second }))
        guard case .uniqueKey = unique.accessPath else {
            Issue.record("an equality on a unique URL reads its key, not \(unique.accessPath)")
            return
        }
    }

    @Test func aDecimalRangeIsReadFromItsIndexAndMatchesAFilter() throws {
        let container = try makeContainer(PricedLink.self, in: TemporaryDirectory(), named: "Prices.store")
        let context = ModelContext(container)
        var generator = SeededGenerator(seed: 11)
        var prices: [Decimal] = []
        for n in 0..<300 {
            let cents = Int.random(in: -50_000...50_000, using: &generator)
            let price = Decimal(cents) / 100
            prices.append(price)
            context.insert(PricedLink(link: link(n), price: price, discount: n % 3 == 0 ? nil : price / 3))
        }
        try context.save()
        let (low, high) = (Decimal(string: "-12.5")!, Decimal(string: "99.99")!)
        let descriptor = FetchDescriptor<PricedLink>(
            predicate: #Predicate { $0.price >= low && $0.price < high }, sortBy: [SortDescriptor(\.price)])
        let fresh = ModelContext(container)
        let fetched = try fresh.fetch(descriptor).map(\.price)
        #expect(fetched == prices.filter { $0 >= low && $0 < high }.sorted())
        #expect(!fetched.isEmpty)
        let plan = try fresh.explain(descriptor)
        switch plan.accessPath {
        case .indexRange, .indexOrder: break
        default: Issue.record("a Decimal range reads the price index, not \(plan.accessPath)")
        }
        // A changed price moves its index entry.
        let moved = try #require(try fresh.fetch(descriptor).first)
        moved.price = 1_000
        try fresh.save()
        #expect(try ModelContext(container).fetch(descriptor).count == fetched.count - 1)
        #expect(try container.verify().isClean)
    }
}

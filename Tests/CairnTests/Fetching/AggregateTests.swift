import Foundation
import Testing

@testable import Cairn

@Model final class AggGenre {
    #Unique<AggGenre>([\.name])
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \AggTitle.genre) var titles: [AggTitle] = []
    init(name: String) { self.name = name }
}

@Model final class AggTitle {
    #Index<AggTitle>([\.year], [\.shelf], [\.rating], [\.name, \.pages])
    var name: String
    var year: Int
    var pages: Int32
    var rating: Double
    var price: Decimal
    var shelf: String?
    var copies: UInt8
    var genre: AggGenre?

    init(_ name: String, year: Int, pages: Int32 = 100, rating: Double = 1, price: Decimal = 1, shelf: String? = nil) {
        (self.name, self.year, self.pages, self.rating, self.price, self.shelf) = (name, year, pages, rating, price, shelf)
        copies = 1
    }
}

@Suite struct AggregateTests {
    /// Six titles in two genres (one without), saved, and a new context.
    static func library(encryption: ModelConfiguration.Encryption? = nil) throws -> ModelContext {
        let url = URL(fileURLWithPath: TemporaryDirectory().child("Agg.store"))
        let container = try ModelContainer(
            for: Schema([AggGenre.self, AggTitle.self]),
            configurations: ModelConfiguration(url: url, encryption: encryption))
        let writer = ModelContext(container)
        let (poetry, drama) = (AggGenre(name: "Poetry"), AggGenre(name: "Drama"))
        let titles = [
            AggTitle("a", year: 1990, pages: 10, rating: 0.5, price: 2.5, shelf: "B"),
            AggTitle("b", year: 2001, pages: 20, rating: 1.5, price: 1.25, shelf: nil),
            AggTitle("c", year: 1850, pages: 30, rating: 2.5, price: 3, shelf: "A"),
            AggTitle("d", year: 2020, pages: 40, rating: 3.5, price: 0.75, shelf: "B"),
            AggTitle("e", year: 2001, pages: 50, rating: 4.5, price: 10, shelf: nil),
            AggTitle("f", year: 1990, pages: 60, rating: 5.5, price: 1, shelf: "C"),
        ]
        for (index, title) in titles.enumerated() {
            writer.insert(title)
            title.genre = index < 2 ? poetry : index < 5 ? drama : nil
        }
        try writer.save()
        return ModelContext(container)
    }

    /// Records and index keys are read where the store keeps them: on an encrypted store that is
    /// the cursor's decrypted copy, valid until it moves. Every method gives what it gives on a
    /// plaintext store.
    @Test func anEncryptedStoreAggregatesAsAPlaintextOneDoes() throws {
        let plain = try Self.library()
        let sealed = try Self.library(encryption: .key(Data(repeating: 7, count: 32)))
        func summary(_ context: ModelContext) throws -> [String] {
            let recent = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year > 1900 && $0.shelf != "C" })
            let byShelf = try context.aggregate(
                recent, groupedBy: \.shelf, computing: .count, .sum(\.pages), .minimum(\.name), .maximum(\.rating))
            let byName = try context.aggregate(FetchDescriptor<AggTitle>(), groupedBy: \.name, computing: .sum(\.pages))
            let byGenre = try context.fetchCount(FetchDescriptor<AggTitle>(), groupedBy: \.genre?.name)
            return byShelf.map { "\($0.key ?? "-") \($0.values)" } + byName.map { "\($0.key) \($0.values)" }
                + byGenre.map { "\($0.key ?? "-") \($0.values)" }
        }
        let expected = try summary(plain)
        #expect(expected.count == 11)
        #expect(try summary(sealed) == expected)
        let methods = [
            try sealed.explain(FetchDescriptor<AggTitle>(), groupedBy: \.name, computing: .sum(\.pages)).method,
            try sealed.explain(FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year > 1900 }), computing: .sum(\.pages)).method,
        ]
        #expect("\(methods[0])".contains("indexEntries") && "\(methods[1])".contains("records"))
    }

    @Test func computesEachAggregateOverAllModelsAndOverAPredicate() throws {
        let context = try Self.library()
        let all = FetchDescriptor<AggTitle>()
        let (count, pages, oldest, newest, meanRating, total, meanPrice) = try context.aggregate(
            all, computing: .count, .sum(\.pages), .minimum(\.year), .maximum(\.year), .average(\.rating),
            .sum(\.price), .average(\.price))
        #expect(count == 6 && pages == 210 && oldest == 1850 && newest == 2020)
        #expect(try context.aggregate(all, computing: AggTitle.totalPages) == 210)
        #expect(meanRating == 3 && total == Decimal(string: "18.5") && meanPrice == Decimal(string: "18.5")! / 6)
        let recent = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year > 1990 })
        let (recentCount, recentPages, firstShelf) = try context.aggregate(
            recent, computing: .count, .sum(\.pages), .minimum(\.shelf))
        #expect(recentCount == 3 && recentPages == 110 && firstShelf == "B")
        let none = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year > 3000 })
        let (noCount, noPages, noMinimum, noMean) = try context.aggregate(
            none, computing: .count, .sum(\.pages), .minimum(\.year), .average(\.rating))
        #expect(noCount == 0 && noPages == 0 && noMinimum == nil && noMean == nil)
    }

    @Test func groupsComeInKeyOrderWithNilFirst() throws {
        let context = try Self.library()
        let byShelf = try context.aggregate(FetchDescriptor<AggTitle>(), groupedBy: \.shelf, computing: .count, .sum(\.pages))
        #expect(byShelf.map(\.key) == [nil, "A", "B", "C"])
        #expect(byShelf.map(\.values.0) == [2, 1, 2, 1] && byShelf.map(\.values.1) == [70, 30, 50, 60])
        let byGenre = try context.aggregate(FetchDescriptor<AggTitle>(), groupedBy: \.genre?.name, computing: .sum(\.pages))
        #expect(byGenre.map(\.key) == [nil, "Drama", "Poetry"] && byGenre.map(\.values) == [60, 120, 30])
        let byTwo = try context.fetchCount(FetchDescriptor<AggTitle>(), groupedBy: \.year, \.shelf)
        #expect(byTwo.map { "\($0.key.0) \($0.key.1 ?? "-") \($0.values)" } == [
            "1850 A 1", "1990 B 1", "1990 C 1", "2001 - 2", "2020 B 1",
        ])
    }

    @Test func explainSaysWhereTheValuesComeFrom() throws {
        let context = try Self.library()
        let all = FetchDescriptor<AggTitle>()
        #expect(try context.explain(all, computing: .count).method == .rowCount(table: "e/AggTitle"))
        #expect(try context.explain(all, computing: .count, .maximum(\.year), .minimum(\.shelf)).method
            == .indexEnds(tables: ["i/AggTitle/year", "i/AggTitle/shelf"]))
        #expect(try context.explain(all, groupedBy: \.year, computing: .count).method == .indexGroups(table: "i/AggTitle/year"))
        let recent = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year > 1990 })
        let plan = try context.explain(recent, groupedBy: \.genre?.name, computing: .sum(\.pages))
        #expect(plan.method == .records(fields: ["genre.name", "pages"]))
        #expect(plan.fetchPlan?.accessPath == .indexRange(table: "i/AggTitle/year", attribute: "year", lower: "> 1990", upper: nil))
        let contains = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.name.contains("a") })
        guard case .models = try context.explain(contains, computing: .sum(\.pages)).method else {
            Issue.record("a predicate the records cannot decide is evaluated on models")
            return
        }
        // A floating-point attribute has no index ends (NaN has no place in key order): its
        // index's entries are read whole.
        #expect(try context.explain(all, computing: .minimum(\.rating)).method == .indexEntries(table: "i/AggTitle/rating"))
        #expect(try context.explain(all, computing: .sum(\.copies)).method == .records(fields: ["copies"]))
    }

    @Test func indexMethodsAgreeWithTheRecordsAndSkipNil() throws {
        let context = try Self.library()
        let all = FetchDescriptor<AggTitle>()
        let (first, last) = try context.aggregate(all, computing: .minimum(\.shelf), .maximum(\.shelf))
        #expect(first == "A" && last == "C")
        let counts = try context.fetchCount(all, groupedBy: \.year)
        #expect(counts.map(\.key) == [1850, 1990, 2001, 2020] && counts.map(\.values) == [1, 2, 2, 1])
        // With unsaved changes counting, the same answers come from records and models.
        let title = try context.fetch(FetchDescriptor<AggTitle>(predicate: #Predicate { $0.name == "c" }))[0]
        title.shelf = "Z"
        title.year = 1990
        let (changedFirst, changedLast) = try context.aggregate(all, computing: .minimum(\.shelf), .maximum(\.shelf))
        #expect(changedFirst == "B" && changedLast == "Z")
        #expect(try context.fetchCount(all, groupedBy: \.year).map(\.values) == [3, 2, 1])
        var stored = all
        stored.includePendingChanges = false
        let (storedFirst, storedLast) = try context.aggregate(stored, computing: .minimum(\.shelf), .maximum(\.shelf))
        #expect(storedFirst == "A" && storedLast == "C")
        #expect(try context.explain(stored, computing: .maximum(\.shelf)).method == .indexEnds(tables: ["i/AggTitle/shelf"]))
    }

    @Test func anIndexHoldingEveryValueIsReadWithoutRecordsEvenWithLongKeys() throws {
        let context = try Self.library()
        let long = String(repeating: "x", count: 600)
        context.insert(AggTitle(long, year: 1, pages: 7))
        context.insert(AggTitle(long, year: 2, pages: 8))
        context.insert(AggTitle(long + "y", year: 3, pages: 9))
        try context.save()
        let all = FetchDescriptor<AggTitle>()
        #expect(try context.explain(all, groupedBy: \.name, computing: .sum(\.pages)).method == .indexEntries(table: "i/AggTitle/name,pages"))
        let groups = try context.aggregate(all, groupedBy: \.name, computing: .count, .sum(\.pages), .maximum(\.pages))
        #expect(groups.map(\.key) == ["a", "b", "c", "d", "e", "f", long, long + "y"])
        #expect(groups.map(\.values.0) == [1, 1, 1, 1, 1, 1, 2, 1] && groups.map(\.values.1) == [10, 20, 30, 40, 50, 60, 15, 9])
        #expect(groups.map(\.values.2) == [10, 20, 30, 40, 50, 60, 8, 9])
        // Grouped in another order than the index's.
        let swapped = try context.fetchCount(all, groupedBy: \.pages, \.name)
        #expect(swapped.map { "\($0.key.0) \($0.key.1.prefix(3)) \($0.values)" } == [
            "7 xxx 1", "8 xxx 1", "9 xxx 1", "10 a 1", "20 b 1", "30 c 1", "40 d 1", "50 e 1", "60 f 1",
        ])
        // The same from the records, with an unsaved change counting.
        context.insert(AggTitle("a", year: 5, pages: 1))
        let pending = try context.aggregate(all, groupedBy: \.name, computing: .count, .sum(\.pages))
        #expect(pending.first?.values.0 == 2 && pending.first?.values.1 == 11)
    }

    @Test func pendingInsertsChangesAndDeletesCount() throws {
        let context = try Self.library()
        let titles = try context.fetch(FetchDescriptor<AggTitle>(sortBy: [SortDescriptor(\.name)]))
        context.delete(titles[0])
        titles[1].pages = 1000
        context.insert(AggTitle("g", year: 1990, pages: 5))
        let recent = FetchDescriptor<AggTitle>(predicate: #Predicate { $0.year >= 1990 })
        let (count, pages) = try context.aggregate(recent, computing: .count, .sum(\.pages))
        #expect(count == 5 && pages == 1155)
        let byYear = try context.aggregate(recent, groupedBy: \.year, computing: .sum(\.pages))
        #expect(byYear.map(\.key) == [1990, 2001, 2020] && byYear.map(\.values) == [65, 1050, 40])
        var stored = recent
        stored.includePendingChanges = false
        let (storedCount, storedPages) = try context.aggregate(stored, computing: .count, .sum(\.pages))
        #expect(storedCount == 5 && storedPages == 180)
    }

    @Test func limitsAndOffsetsAggregateThePageFetchReturns() throws {
        let context = try Self.library()
        var newest = FetchDescriptor<AggTitle>(sortBy: [SortDescriptor(\.year, order: .reverse), SortDescriptor(\.name)])
        newest.fetchLimit = 2
        newest.fetchOffset = 1
        let (count, pages) = try context.aggregate(newest, computing: .count, .sum(\.pages))
        #expect(count == 2 && pages == 70)
        guard case .models = try context.explain(newest, computing: .count).method else {
            Issue.record("a page is aggregated from the models fetch returns")
            return
        }
    }

    @Test func aSumThatOverflowsItsTypeIsATypedError() throws {
        let context = try Self.library()
        for title in try context.fetch(FetchDescriptor<AggTitle>()) { title.copies = 200 }
        try context.save()
        let error = #expect(throws: FetchError.self) { try context.aggregate(FetchDescriptor<AggTitle>(), computing: .sum(\.copies)) }
        #expect(error?.code == .aggregateOverflow && error?.message.contains("UInt8") == true)
        let mean: Double? = try context.aggregate(FetchDescriptor<AggTitle>(), computing: .average(\.copies))
        #expect(mean == 200)
    }

    @Test func aDamagedRecordIsAnErrorNotAWrongAnswer() throws {
        let context = try Self.library()
        let store = context.container.store
        let records = store.entities["AggTitle"]!.layout.records
        try store.environment.write { txn in
            let key = EntryLayout.rowKey(1)
            var value = try txn.withValue(for: key, in: records) { Array($0) }!
            value[3] ^= 0x40
            try txn.put(value, for: key, in: records)
        }
        #expect(throws: StorageError.self) { try context.aggregate(FetchDescriptor<AggTitle>(), computing: .sum(\.copies)) }
    }
}

/// An aggregate is a constant an app can keep, as a descriptor is (it is `Sendable`).
extension AggTitle {
    static let totalPages = Aggregate<AggTitle, Int32>.sum(\.pages)
}

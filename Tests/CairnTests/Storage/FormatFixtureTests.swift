import Foundation
import Testing

@testable import Cairn

// Stores written by earlier versions of Cairn (Tests/CairnTests/Fixtures/Formats, one directory
// per on-disk format, each made by Scripts/make-format-fixture from the commit its SOURCE file
// names, with Tests/FormatFixtures/Generator/main.swift): each opens, reads back what the
// generator wrote, passes verify(), reads its history, and migrates to a new version.

enum FixtureSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [FixtureAuthor.self, FixtureBook.self] }

    // The generator's models, as it declares them.
    @Model final class FixtureAuthor {
        @Attribute(.unique) var name: String
        var born: Date?
        var rating: Double
        @Relationship(deleteRule: .cascade, inverse: \FixtureBook.author) var books: [FixtureBook] = []

        init(name: String, born: Date?, rating: Double) {
            self.name = name
            self.born = born
            self.rating = rating
        }
    }

    @Model final class FixtureBook {
        var title: String
        var year: Int
        var cover: Data?
        var isFavourite: Bool
        var author: FixtureAuthor?

        init(title: String, year: Int, cover: Data?, isFavourite: Bool) {
            self.title = title
            self.year = year
            self.cover = cover
            self.isFavourite = isFavourite
        }
    }
}

enum FixtureSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [FixtureAuthor.self, FixtureBook.self] }

    /// The next version: authors' names no longer unique but indexed, books gain an edition a
    /// custom stage fills.
    @Model final class FixtureAuthor {
        #Index<FixtureAuthor>([\.name])
        var name: String
        var born: Date?
        var rating: Double
        @Relationship(deleteRule: .cascade, inverse: \FixtureBook.author) var books: [FixtureBook] = []

        init(name: String, born: Date?, rating: Double) {
            self.name = name
            self.born = born
            self.rating = rating
        }
    }

    @Model final class FixtureBook {
        var title: String
        var year: Int
        var cover: Data?
        var isFavourite: Bool
        var edition: String = ""
        var author: FixtureAuthor?

        init(title: String, year: Int, cover: Data?, isFavourite: Bool) {
            self.title = title
            self.year = year
            self.cover = cover
            self.isFavourite = isFavourite
        }
    }
}

enum FixtureMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [FixtureSchemaV1.self, FixtureSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: FixtureSchemaV1.self, toVersion: FixtureSchemaV2.self,
                willMigrate: nil,
                didMigrate: { context in
                    for book in try context.fetch(FetchDescriptor<FixtureSchemaV2.FixtureBook>()) {
                        book.edition = "first (\(book.year))"
                    }
                })
        ]
    }
}

@Suite struct FormatFixtureTests {
    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Formats")

    /// Every fixture's name.
    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).sorted()
    }

    @Test func everyFormatHasAFixture() {
        #expect(!Self.names.isEmpty, "no fixtures in \(Self.fixtures.path)")
    }

    @Test(arguments: names) func aStoreOfAnEarlierFormatOpensReadsAndMigrates(_ name: String) throws {
        let directory = TemporaryDirectory()
        let store = URL(fileURLWithPath: directory.child("\(name).store"))
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.fixtures.appendingPathComponent(name).appendingPathComponent("data.mdb"),
            to: store.appendingPathComponent("data.mdb"))

        let container = try ModelContainer(
            for: Schema(versionedSchema: FixtureSchemaV1.self), configurations: ModelConfiguration(url: store))
        let context = ModelContext(container)
        let authors = try context.fetch(
            FetchDescriptor<FixtureSchemaV1.FixtureAuthor>(sortBy: [SortDescriptor(\.name)]))
        #expect(authors.map(\.name) == ["Jane Austen", "Mary Shelley"], "\(name)")
        #expect(authors.map(\.born) == [Date(timeIntervalSince1970: -6_106_060_800), nil])
        #expect(authors.map(\.rating) == [4.5, 4.25])
        #expect(authors.map { $0.books.map(\.title).sorted() } == [["Emma", "Persuasion"], ["Frankenstein"]])
        let books = try context.fetch(FetchDescriptor<FixtureSchemaV1.FixtureBook>(sortBy: [SortDescriptor(\.year)]))
        #expect(books.map(\.title) == ["Emma", "Persuasion", "Frankenstein"])
        #expect(books.map(\.isFavourite) == [true, false, false])
        #expect(books.map(\.cover) == books.map { Data($0.title.utf8) })
        let austen = try context.fetch(
            FetchDescriptor<FixtureSchemaV1.FixtureAuthor>(predicate: #Predicate { $0.name == "Jane Austen" }))
        #expect(austen.count == 1, "the unique key finds its row")
        #expect(try container.verify().isClean)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3, "the generator's three saves")

        let migrated = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: FixtureSchemaV2.self), migrationPlan: FixtureMigrationPlan.self,
                configurations: ModelConfiguration(url: store)))
        let editions = try migrated.fetch(
            FetchDescriptor<FixtureSchemaV2.FixtureBook>(sortBy: [SortDescriptor(\.year)]))
        #expect(editions.map(\.edition) == ["first (1815)", "first (1817)", "first (1818)"])
        #expect(editions.map { $0.author?.name } == ["Jane Austen", "Jane Austen", "Mary Shelley"])
        let byName = FetchDescriptor<FixtureSchemaV2.FixtureAuthor>(predicate: #Predicate { $0.name == "Mary Shelley" })
        #expect(try migrated.fetch(byName).count == 1)
        migrated.insert(FixtureSchemaV2.FixtureAuthor(name: "Mary Shelley", born: nil, rating: 3))
        try migrated.save()
        #expect(try migrated.fetchCount(byName) == 2, "no longer unique")
    }
}

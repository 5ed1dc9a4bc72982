import Foundation
import Testing

@testable import Cairn

@Model final class SearchNote {
    #Unique<SearchNote>([\.slug])
    var slug: String
    @Attribute(.spotlight) var title: String
    @Attribute(.spotlight) var body: String?
    var folder: String
    var views: Int

    init(_ slug: String, title: String, body: String?, folder: String = "inbox", views: Int = 0) {
        (self.slug, self.title, self.body, self.folder, self.views) = (slug, title, body, folder, views)
    }
}

@Suite struct SearchTests {
    static func notes(encryption: ModelConfiguration.Encryption? = nil) throws -> (ModelContainer, ModelContext) {
        let url = URL(fileURLWithPath: TemporaryDirectory().child("Search.store"))
        let container = try ModelContainer(
            for: Schema([SearchNote.self]), configurations: ModelConfiguration(url: url, encryption: encryption))
        let context = ModelContext(container)
        let notes = [
            SearchNote(
                "swift", title: "Swift Data and Core Data", body: "Core Data predates Swift Data by many years."),
            SearchNote(
                "lmdb", title: "LMDB internals", body: "A B+tree over a memory map; copy-on-write pages.",
                folder: "work"),
            SearchNote("cafe", title: "Café list", body: "The CAFÉ on the corner can’t be beaten.", folder: "home"),
            SearchNote("tokyo", title: "東京都の地図", body: nil),
            SearchNote(
                "swiftui", title: "SwiftUI previews", body: "Previews need a model container; Swift Data gives one.",
                folder: "work"),
            SearchNote("empty", title: "", body: ""),
        ]
        for note in notes { context.insert(note) }
        try context.save()
        return (container, ModelContext(container))
    }

    static func slugs(
        _ context: ModelContext, _ query: String, in attributes: [PartialKeyPath<SearchNote>]? = nil,
        predicate: Predicate<SearchNote>? = nil, limit: Int? = nil
    ) throws -> [String] {
        try context.search(
            SearchDescriptor<SearchNote>(try TextQuery(query), in: attributes, predicate: predicate, fetchLimit: limit)
        ).map(\.model.slug)
    }

    @Test func wordsAreFoundWhateverTheirCaseAccentsOrWidth() throws {
        let (_, context) = try Self.notes()
        #expect(try Self.slugs(context, "lmdb") == ["lmdb"])
        #expect(try Self.slugs(context, "CAFE") == ["cafe"])
        #expect(try Self.slugs(context, "café") == ["cafe"])
        #expect(try Self.slugs(context, "can't") == ["cafe"])
        #expect(try Self.slugs(context, "京都") == ["tokyo"])
        #expect(try Self.slugs(context, "地図") == ["tokyo"])
        #expect(try Self.slugs(context, "nothing").isEmpty)
    }

    @Test func operatorsPhrasesAndPrefixesCombine() throws {
        let (_, context) = try Self.notes()
        #expect(Set(try Self.slugs(context, "swift data")) == ["swift", "swiftui"])
        #expect(try Self.slugs(context, "\"core data\"") == ["swift"])
        #expect(try Self.slugs(context, "\"data core\"").isEmpty)
        #expect(Set(try Self.slugs(context, "lmdb OR café")) == ["lmdb", "cafe"])
        #expect(try Self.slugs(context, "swift NOT previews") == ["swift"])
        #expect(Set(try Self.slugs(context, "swift*")) == ["swift", "swiftui"])
        #expect(try Self.slugs(context, "\"copy on wri*\"") == ["lmdb"])
        #expect(Set(try Self.slugs(context, "(lmdb OR previews) AND (pages OR model)")) == ["lmdb", "swiftui"])
    }

    @Test func moreOccurrencesOfARarerWordRankFirst() throws {
        let (_, context) = try Self.notes()
        let results = try context.search(SearchDescriptor<SearchNote>(try TextQuery("swift data")))
        #expect(results.map(\.model.slug) == ["swift", "swiftui"])
        #expect(results[0].score > results[1].score && results[1].score > 0)
    }

    @Test func aPredicateAndALimitNarrowTheResults() throws {
        let (_, context) = try Self.notes()
        #expect(try Self.slugs(context, "swift", predicate: #Predicate { $0.folder == "work" }) == ["swiftui"])
        #expect(try Self.slugs(context, "swift", limit: 1) == ["swift"])
        #expect(try Self.slugs(context, "swift", in: [\SearchNote.title]) == ["swift"])
        #expect(try Self.slugs(context, "previews", in: [\SearchNote.title, \SearchNote.body]) == ["swiftui"])
    }

    @Test func matchedRangesMarkTheWordsFound() throws {
        let (_, context) = try Self.notes()
        let result = try context.search(SearchDescriptor<SearchNote>(try TextQuery("\"core data\" OR café")))
        let swift = try #require(result.first { $0.model.slug == "swift" })
        #expect(swift.matchedRanges(in: \.title).map { String(swift.model.title[$0]) } == ["Core", "Data"])
        let cafe = try #require(result.first { $0.model.slug == "cafe" })
        #expect(cafe.matchedRanges(in: \.body).map { String(cafe.model.body![$0]) } == ["CAFÉ"])
        let tokyo = try context.search(SearchDescriptor<SearchNote>(try TextQuery("京都")))[0]
        #expect(tokyo.matchedRanges(in: \.title).map { String(tokyo.model.title[$0]) } == ["京都"])
    }

    @Test func savesKeepTheIndexCurrent() throws {
        let (container, context) = try Self.notes()
        let lmdb = try #require(
            try context.fetch(FetchDescriptor<SearchNote>(predicate: #Predicate { $0.slug == "lmdb" })).first)
        lmdb.body = "Now about SQLite instead."
        let cafe = try #require(
            try context.fetch(FetchDescriptor<SearchNote>(predicate: #Predicate { $0.slug == "cafe" })).first)
        context.delete(cafe)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try Self.slugs(fresh, "memory").isEmpty)
        #expect(try Self.slugs(fresh, "sqlite") == ["lmdb"])
        #expect(try Self.slugs(fresh, "lmdb") == ["lmdb"])
        #expect(try Self.slugs(fresh, "café").isEmpty)
        // An insert with the same unique value takes the row over, and its text replaces the old.
        fresh.insert(SearchNote("lmdb", title: "Replaced", body: "Entirely new words."))
        try fresh.save()
        #expect(try Self.slugs(ModelContext(container), "lmdb OR sqlite").isEmpty)
        #expect(try Self.slugs(ModelContext(container), "entirely") == ["lmdb"])
    }

    /// A word in thousands of texts has its postings in many blocks: saves one at a time append
    /// to the last, and changes and deletes spread over the rows rewrite the blocks they reach.
    @Test func wordsInManyTextsStayExactAcrossBlocks() throws {
        let url = URL(fileURLWithPath: TemporaryDirectory().child("Many.store"))
        let container = try ModelContainer(for: Schema([SearchNote.self]), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        var notes: [SearchNote] = []
        for number in 0..<3_000 {
            let note = SearchNote(
                "n\(number)", title: "common title \(number)", body: number % 2 == 0 ? "even common" : nil)
            context.insert(note)
            notes.append(note)
        }
        try context.save()
        for number in 3_000..<3_020 {
            context.insert(SearchNote("n\(number)", title: "common late \(number)", body: nil))
            try context.save()
        }
        for (number, note) in notes.enumerated() where number % 7 == 0 { context.delete(note) }
        for (number, note) in notes.enumerated() where number % 7 != 0 && number % 11 == 0 { note.title = "changed" }
        try context.save()
        let expected = (0..<3_020).filter { $0 >= 3_000 || ($0 % 7 != 0 && $0 % 11 != 0) }
        let fresh = ModelContext(container)
        let found = try fresh.search(SearchDescriptor<SearchNote>(try TextQuery("common"), in: [\SearchNote.title]))
        #expect(found.map(\.model.slug).sorted() == expected.map { "n\($0)" }.sorted())
        let even = try fresh.search(SearchDescriptor<SearchNote>(try TextQuery("even common")))
        #expect(even.count == (0..<3_000).filter { $0 % 2 == 0 && $0 % 7 != 0 }.count)
        #expect(
            try fresh.search(SearchDescriptor<SearchNote>(try TextQuery("changed"))).count
                == (0..<3_000).filter { $0 % 7 != 0 && $0 % 11 == 0 }.count)
        #expect(try container.verify().problems.isEmpty)
    }

    /// A word past every term the index held (so its blocks are cut straight from the postings
    /// gathered), given by inserts that take stored rows over in descending row order and by a
    /// new row between them: the postings are put in row order first.
    @Test func aNewWordFromTakeoversInAnyRowOrderIsFound() throws {
        let (container, context) = try Self.notes()
        for slug in ["swiftui", "fresh", "lmdb"] {
            context.insert(SearchNote(slug, title: "Taken over by 龘", body: nil))
        }
        try context.save()
        let fresh = ModelContext(container)
        let found = try fresh.search(SearchDescriptor<SearchNote>(try TextQuery("龘")))
        #expect(found.map(\.model.slug).sorted() == ["fresh", "lmdb", "swiftui"])
        #expect(try Self.slugs(fresh, "previews").isEmpty)
    }

    @Test func badQueriesAndUnindexedAttributesAreTypedErrors() throws {
        let (_, context) = try Self.notes()
        for text in ["\"open", "(swift", "swift)", "OR swift", "swift NOT", "", "  ", "***"] {
            #expect(throws: FetchError.self) { _ = try TextQuery(text) }
        }
        #expect {
            _ = try context.search(SearchDescriptor<SearchNote>(try TextQuery("swift"), in: [\SearchNote.folder]))
        } throws: { ($0 as? FetchError)?.code == .notSearchable }
    }

    @Test func anEncryptedStoreFindsWholeWordsAndRefusesPrefixes() throws {
        let (_, context) = try Self.notes(encryption: .key(Data(repeating: 3, count: 32)))
        #expect(Set(try Self.slugs(context, "swift data")) == ["swift", "swiftui"])
        #expect(try Self.slugs(context, "\"core data\"") == ["swift"])
        #expect {
            _ = try Self.slugs(context, "swif*")
        } throws: { ($0 as? FetchError)?.code == .notSearchable }
    }
}

enum MemoSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Memo.self] }

    @Model final class Memo {
        var text: String
        init(_ text: String) { self.text = text }
    }
}

enum MemoSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Memo.self] }

    @Model final class Memo {
        @Attribute(.spotlight) var text: String
        init(_ text: String) { self.text = text }
    }
}

@Suite struct TextIndexBuildTests {
    /// `.spotlight` added to stored models builds the index as the container opens, logging its
    /// progress; removed, the index is emptied, and added again, it is built again from the
    /// records as they are then.
    @Test func addingSpotlightBuildsTheIndexAndRemovingItDropsIt() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Memos.store")))
        do {
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: MemoSchemaV1.self), configurations: configuration))
            for text in ["buy milk", "call the bank", "milk and honey", ""] { context.insert(MemoSchemaV1.Memo(text)) }
            try context.save()
        }
        func search(_ query: String) throws -> [String] {
            let container = try ModelContainer(
                for: Schema(versionedSchema: MemoSchemaV2.self), configurations: configuration)
            #expect(try container.verify().problems.isEmpty)
            let context = ModelContext(container)
            return try context.search(SearchDescriptor<MemoSchemaV2.Memo>(try TextQuery(query))).map(\.model.text)
                .sorted()
        }
        #expect(try search("milk") == ["buy milk", "milk and honey"])
        let logged = LogCapture.messages.map(\.text).filter { $0.contains("full-text index of Memo.text") }
        #expect(
            logged.contains { $0.contains("from 4 stored rows") } && logged.contains { $0.hasPrefix("Built") },
            "\(logged)")

        // Without the index, a save changes the text; with it again, the index holds the new text.
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: MemoSchemaV1.self), configurations: configuration)
            let context = ModelContext(container)
            let bank = try #require(
                try context.fetch(
                    FetchDescriptor<MemoSchemaV1.Memo>(predicate: #Predicate { $0.text == "call the bank" })
                ).first)
            bank.text = "call the milkman"
            try context.save()
        }
        #expect(try search("bank").isEmpty)
        #expect(try search("milk*") == ["buy milk", "call the milkman", "milk and honey"])
    }
}

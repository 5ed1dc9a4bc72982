import Cairn
import CairnSync
import Foundation
import Testing

// The models of Tests/FormatFixtures/SyncGenerator/main.swift, declared the same way.

@Model final class FixtureShelf {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \FixtureVolume.shelf) var volumes: [FixtureVolume] = []

    init(label: String) { self.label = label }
}

@Model final class FixtureVolume {
    var title: String
    var pages: Int
    var shelf: FixtureShelf?

    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// Replicas whose sync tables an earlier version of Cairn wrote (`Fixtures/SyncFormats`, made by
/// `Scripts/make-format-fixture --sync`): two stores that synced through one server, each with a
/// change saved and not pushed, and the batches that server kept. Each opens, reads back, and
/// syncs on with today's Cairn through a server holding the same feed: the unpushed changes of
/// both arrive on both, and both end with the same rows and the same list order.
@Suite struct SyncFormatFixtureTests {
    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/SyncFormats")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).sorted()
    }

    @Test func thereIsASyncFixture() {
        #expect(!Self.names.isEmpty, "no fixtures in \(Self.fixtures.path)")
    }

    /// The batches of a fixture's feed, in order.
    static func feed(_ name: String) throws -> [StoredBatch] {
        let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name).appendingPathComponent("feed")))
        var batches: [StoredBatch] = []
        var position = 0
        while position < bytes.count {
            try #require(position + 4 <= bytes.count, "the feed ends inside a length")
            let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            position += 4
            try #require(position + length <= bytes.count, "the feed ends inside a batch")
            batches.append(try SyncWire.decode(StoredBatch.self, from: bytes[position..<position + length]))
            position += length
        }
        return batches
    }

    /// A copy of the fixture's replica `replica`, opened with today's Cairn.
    static func open(_ name: String, _ replica: String, in directory: TemporaryDirectory) throws -> ModelContainer {
        let store = URL(fileURLWithPath: directory.child(replica))
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent(name).appendingPathComponent("\(replica)/data.mdb"),
            to: store.appendingPathComponent("data.mdb"))
        return try ModelContainer(
            for: FixtureShelf.self, FixtureVolume.self, configurations: ModelConfiguration(url: store))
    }

    /// The shelf's volumes in the list's order, as "title pages".
    static func shelf(_ container: ModelContainer) throws -> [String] {
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<FixtureShelf>())
        try #require(shelves.map(\.label) == ["Novels"])
        return withExtendedLifetime(context) { shelves[0].volumes.map { "\($0.title) \($0.pages)" } }
    }

    @Test(arguments: names) func replicasOfAnEarlierFormatReadBackAndSyncOn(_ name: String) async throws {
        let server = InMemorySyncServer()
        let transport = InProcessSyncTransport(server: server)
        for stored in try Self.feed(name) {
            let result = try await transport.push(stored.batch, zone: "default")
            #expect(result.position == stored.position, "the feed replays at its positions")
        }
        let directory = TemporaryDirectory()
        let (a, b) = (try Self.open(name, "a", in: directory), try Self.open(name, "b", in: directory))
        #expect(try a.verify().isClean)
        #expect(try b.verify().isClean)

        // As each replica left it: A added Lodore and retitled Emma, B deleted Persuasion.
        let onA = try Self.shelf(a)
        #expect(Set(onA) == ["Emma (1815) 474", "Persuasion 250", "Frankenstein 280", "Lodore 310"])
        #expect(onA.last == "Lodore 310", "appended last")
        #expect(try Self.shelf(b) == ["Frankenstein 280", "Emma 474"], "B's own order, Persuasion deleted")

        let configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "", zone: "default")
        let engines = [
            try SyncEngine(container: a, configuration: configuration, transport: transport),
            try SyncEngine(container: b, configuration: configuration, transport: transport),
        ]
        for _ in 0..<2 { for engine in engines { try await engine.sync() } }
        // Today's Cairn pushes each unpushed list change with its order, stamped when it was
        // saved. B's delete was saved after A's append, so B's order (Frankenstein, Emma) is the
        // newest written, and Lodore, which it does not name, follows it on both replicas.
        let expected = ["Frankenstein 280", "Emma (1815) 474", "Lodore 310"]
        let (syncedA, syncedB) = (try Self.shelf(a), try Self.shelf(b))
        #expect(syncedA == expected, "A: \(syncedA), expected \(expected)")
        #expect(syncedB == expected, "B: \(syncedB), expected \(expected)")
        #expect(try a.verify().isClean)
        #expect(try b.verify().isClean)

        // And they go on syncing: a change on B reaches A.
        let context = ModelContext(b)
        let frankenstein = try context.fetch(FetchDescriptor<FixtureVolume>()).first { $0.title == "Frankenstein" }
        frankenstein?.pages = 281
        try context.save()
        try await engines[1].sync()
        try await engines[0].sync()
        #expect(try Self.shelf(a).contains("Frankenstein 281"))
    }
}

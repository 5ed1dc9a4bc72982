import Cairn
import CairnSync
import Foundation
import Testing

// Two versions of one model, related by a lightweight migration (version 2 adds `mood`).
enum JournalSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model final class Entry {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum JournalSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model final class Entry {
        var text: String
        var mood: String = ""
        init(text: String, mood: String) {
            self.text = text
            self.mood = mood
        }
    }
}

/// Version 3 renames `text` to `body` (a lightweight migration, by `originalName`).
enum JournalSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model final class Entry {
        @Attribute(originalName: "text") var body: String
        var mood: String = ""
        init(body: String, mood: String) {
            self.body = body
            self.mood = mood
        }
    }
}

/// Replicas on two schema versions sync one zone: the older keeps the fields it does not know
/// and passes them on, so a newer replica that learns of a row only through the older one still
/// gets them.
@Suite struct SyncSchemaVersionTests {
    struct Replica {
        let container: ModelContainer
        let engine: SyncEngine
        let directory = TemporaryDirectory()

        init(_ schema: any VersionedSchema.Type, server: InMemorySyncServer) throws {
            container = try ModelContainer(
                for: Schema(versionedSchema: schema),
                configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child("Journal.store"))))
            let configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "")
            engine = try SyncEngine(
                container: container, configuration: configuration, transport: InProcessSyncTransport(server: server))
        }

        func change(_ body: (ModelContext) throws -> Void) throws {
            let context = ModelContext(container)
            try body(context)
            try context.save()
        }
    }

    @Test func anOlderReplicaKeepsAndPassesOnTheFieldsItDoesNotKnow() async throws {
        let server = InMemorySyncServer()
        let newer = try Replica(JournalSchemaV2.self, server: server)
        let older = try Replica(JournalSchemaV1.self, server: server)
        try newer.change { $0.insert(JournalSchemaV2.Entry(text: "first", mood: "happy")) }
        try await newer.engine.sync()
        try await older.engine.sync()
        try older.change { context in
            try context.fetch(FetchDescriptor<JournalSchemaV1.Entry>()).first!.text = "first, edited"
            context.insert(JournalSchemaV1.Entry(text: "from the old app"))
        }
        let feed = InProcessSyncTransport(server: server)
        let before = try await feed.changes(zone: "default", after: 0, limit: 1000, wait: nil).position
        try await older.engine.sync()
        // The older replica's push of the edited entry carries the mood it kept, unchanged.
        let pushed = try await feed.changes(zone: "default", after: before, limit: 1000, wait: nil).batches
            .flatMap(\.batch.rows)
        let edited = try #require(pushed.first { $0.fields["mood"] != nil })
        #expect(edited.fields["text"] != nil)
        #expect(edited.fields["mood"]?.stamp.replica == newer.engine.replicaID, "passed on with the newer replica's stamp")
        #expect(pushed.count == 2)
        try await newer.engine.sync()

        let entries = try ModelContext(newer.container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(Set(entries.map { "\($0.text)|\($0.mood)" }) == ["first, edited|happy", "from the old app|"])

        // A replica that reads the zone for the first time gets the mood the older one passed on.
        let fresh = try Replica(JournalSchemaV2.self, server: server)
        try await fresh.engine.sync()
        let seen = try ModelContext(fresh.container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(Set(seen.map { "\($0.text)|\($0.mood)" }) == ["first, edited|happy", "from the old app|"])
    }

    @Test func theNewerReplicasEditsOfAnUnknownFieldKeepTheirOrderThroughTheOlder() async throws {
        let server = InMemorySyncServer()
        let newer = try Replica(JournalSchemaV2.self, server: server)
        let older = try Replica(JournalSchemaV1.self, server: server)
        try newer.change { $0.insert(JournalSchemaV2.Entry(text: "day", mood: "calm")) }
        try await newer.engine.sync()
        try await older.engine.sync()
        try newer.change { try $0.fetch(FetchDescriptor<JournalSchemaV2.Entry>()).first!.mood = "tired" }
        try await newer.engine.sync()
        try await older.engine.sync()
        try older.change { try $0.fetch(FetchDescriptor<JournalSchemaV1.Entry>()).first!.text = "long day" }
        try await older.engine.sync()
        try await newer.engine.sync()
        let entries = try ModelContext(newer.container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(entries.map { "\($0.text)|\($0.mood)" } == ["long day|tired"], "the older replica's push did not bring back an old mood")
    }

    /// A renamed field travels under its original name, so replicas on both sides of the rename
    /// read each other's writes of it; a store migrated across the rename keeps syncing it.
    @Test func aRenamedFieldSyncsWithReplicasOnEitherSideOfTheRename() async throws {
        let server = InMemorySyncServer()
        let renamed = try Replica(JournalSchemaV3.self, server: server)
        let before = try Replica(JournalSchemaV2.self, server: server)
        try renamed.change { $0.insert(JournalSchemaV3.Entry(body: "from three", mood: "bright")) }
        try await renamed.engine.sync()
        let feed = InProcessSyncTransport(server: server)
        let row = try #require(try await feed.changes(zone: "default", after: 0, limit: 10, wait: nil).batches.first?.batch.rows.first)
        #expect(Set(row.fields.keys) == ["text", "mood"], "the field travels under its original name")
        try await before.engine.sync()
        func texts(_ replica: Replica) throws -> [String] {
            let context = ModelContext(replica.container)
            if replica.container.schema.entities.first?.attributes.contains(where: { $0.name == "body" }) ?? false {
                return try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>()).map { "\($0.body)|\($0.mood)" }
            }
            return try context.fetch(FetchDescriptor<JournalSchemaV2.Entry>()).map { "\($0.text)|\($0.mood)" }
        }
        #expect(try texts(before) == ["from three|bright"])
        try before.change { try $0.fetch(FetchDescriptor<JournalSchemaV2.Entry>()).first!.text = "edited by two" }
        try await before.engine.sync()
        try await renamed.engine.sync()
        #expect(try texts(renamed) == ["edited by two|bright"])
        try renamed.change { try $0.fetch(FetchDescriptor<JournalSchemaV3.Entry>()).first!.body = "edited by three" }
        try await renamed.engine.sync()
        try await before.engine.sync()
        #expect(try texts(before) == ["edited by three|bright"])

        // The version 2 store, opened with version 3, keeps syncing the field.
        let url = URL(fileURLWithPath: before.directory.child("Journal.store"))
        let configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "")
        let container = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV3.self), configurations: ModelConfiguration(url: url))
        let engine = try SyncEngine(container: container, configuration: configuration, transport: InProcessSyncTransport(server: server))
        let context = ModelContext(container)
        try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>()).first!.body = "upgraded"
        try context.save()
        try await engine.sync()
        try await renamed.engine.sync()
        #expect(try texts(renamed) == ["upgraded|bright"])
        try renamed.change { try $0.fetch(FetchDescriptor<JournalSchemaV3.Entry>()).first!.body = "edited again" }
        try await renamed.engine.sync()
        try await engine.sync()
        #expect(try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>()).map(\.body) == ["edited again"])
    }

    @Test func anOlderReplicaUpgradedToTheNewerSchemaTakesTheFieldsItKept() async throws {
        let server = InMemorySyncServer()
        let newer = try Replica(JournalSchemaV2.self, server: server)
        try newer.change { $0.insert(JournalSchemaV2.Entry(text: "first", mood: "happy")) }
        try await newer.engine.sync()
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Journal.store"))
        let configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "")
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV1.self), configurations: ModelConfiguration(url: url))
            let engine = try SyncEngine(container: container, configuration: configuration, transport: InProcessSyncTransport(server: server))
            try await engine.sync()
        }
        // The app updates: the same store opens with version 2 (a lightweight migration).
        let container = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV2.self), configurations: ModelConfiguration(url: url))
        let engine = try SyncEngine(container: container, configuration: configuration, transport: InProcessSyncTransport(server: server))
        var entries = try ModelContext(container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(entries.map { "\($0.text)|\($0.mood)" } == ["first|happy"], "the kept mood is the model's once the schema has it")
        try await engine.sync()
        entries = try ModelContext(container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(entries.map { "\($0.text)|\($0.mood)" } == ["first|happy"])
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.allSatisfy { $0.author == "cairn.sync" }, "taking kept fields in is sync's save, not the app's")
    }
}

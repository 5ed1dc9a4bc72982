import Cairn
import Foundation
import Testing

// Written as SwiftData code is: version 2 adds an optional nickname to stored guests, version 3
// makes it required and unique, and a custom stage's willMigrate gives every guest one first.

enum GuestSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Guest.self] }

    @Model final class Guest {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum GuestSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Guest.self] }

    @Model final class Guest {
        var name: String
        var nickname: String?
        init(name: String) { self.name = name }
    }
}

enum GuestSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Guest.self] }

    @Model final class Guest {
        var name: String
        @Attribute(.unique) var nickname: String
        init(name: String, nickname: String) {
            self.name = name
            self.nickname = nickname
        }
    }
}

/// Whether the stage leaves one guest without a nickname (the refusal test).
nonisolated(unsafe) var guestStageSkipsOne = false

enum GuestMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [GuestSchemaV1.self, GuestSchemaV2.self, GuestSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: GuestSchemaV1.self, toVersion: GuestSchemaV2.self),
            .custom(
                fromVersion: GuestSchemaV2.self, toVersion: GuestSchemaV3.self,
                willMigrate: { context in
                    let guests = try context.fetch(FetchDescriptor<GuestSchemaV2.Guest>(sortBy: [SortDescriptor(\.name)]))
                    for guest in guests.dropFirst(guestStageSkipsOne ? 1 : 0) where guest.nickname == nil {
                        guest.nickname = String(guest.name.prefix(3))
                    }
                    try context.save()
                }, didMigrate: nil),
        ]
    }
}

@Suite(.serialized) struct FillRequiredMigrationTests {
    /// A version 1 store of three guests, opened once with version 2 where one got a nickname.
    private func makeStore(_ directory: TemporaryDirectory) throws -> ModelConfiguration {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Guests.store")))
        do {
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: GuestSchemaV1.self), configurations: configuration))
            for name in ["Alexandra", "Benedict", "Cordelia"] { context.insert(GuestSchemaV1.Guest(name: name)) }
            try context.save()
        }
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: GuestSchemaV2.self), migrationPlan: GuestMigrationPlan.self,
                configurations: configuration))
        try context.fetch(FetchDescriptor<GuestSchemaV2.Guest>(predicate: #Predicate { $0.name == "Benedict" })).first!
            .nickname = "Ben"
        try context.save()
        return configuration
    }

    @Test func aStageThatGivesEveryRowAValueLetsTheNextVersionRequireIt() throws {
        guestStageSkipsOne = false
        let directory = TemporaryDirectory()
        let configuration = try makeStore(directory)
        let container = try ModelContainer(
            for: Schema(versionedSchema: GuestSchemaV3.self), migrationPlan: GuestMigrationPlan.self,
            configurations: configuration)
        let guests = try ModelContext(container).fetch(FetchDescriptor<GuestSchemaV3.Guest>(sortBy: [SortDescriptor(\.name)]))
        #expect(guests.map { "\($0.name):\($0.nickname)" } == ["Alexandra:Ale", "Benedict:Ben", "Cordelia:Cor"])
        // The nickname is unique now: a new guest with a taken one takes that row over (an upsert).
        let context = ModelContext(container)
        context.insert(GuestSchemaV3.Guest(name: "Alexander", nickname: "Ale"))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<GuestSchemaV3.Guest>()) == 3)
    }

    @Test func aStageThatLeavesARowWithoutAValueIsRefused() throws {
        guestStageSkipsOne = true
        defer { guestStageSkipsOne = false }
        let directory = TemporaryDirectory()
        let configuration = try makeStore(directory)
        #expect(throws: SchemaError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: GuestSchemaV3.self), migrationPlan: GuestMigrationPlan.self,
                configurations: configuration)
        }
    }
}

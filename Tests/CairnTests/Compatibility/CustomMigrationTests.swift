import Cairn
import Foundation
import Testing

// Written as SwiftData code is: a migration plan with a custom stage.

enum TripSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        var destination: String
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

enum TripSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        #Unique<Trip>([\.name])
        var name: String
        var destination: String
        var visits: Int = 1
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

/// Counts what the stages saw, for the tests.
final class StageLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var entries: [String] { lock.withLock { lines } }
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    func clear() { lock.withLock { lines = [] } }
}

let tripStageLog = StageLog()
struct TripMigrationError: Error {}
nonisolated(unsafe) var tripStageFails = false

enum TripMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripSchemaV1.self, TripSchemaV2.self] }
    static var stages: [MigrationStage] { [migrateV1toV2] }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: TripSchemaV1.self, toVersion: TripSchemaV2.self,
        willMigrate: { context in
            // V2 makes names unique: merge the duplicates first, counting them.
            let trips = try context.fetch(FetchDescriptor<TripSchemaV1.Trip>(sortBy: [SortDescriptor(\.name)]))
            tripStageLog.add("will: \(trips.count)")
            var seen = Set<String>()
            for trip in trips where !seen.insert(trip.name).inserted { context.delete(trip) }
            try context.save()
        },
        didMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<TripSchemaV2.Trip>())
            tripStageLog.add("did: \(trips.count)")
            for trip in trips where trip.name == "Rome" { trip.visits = 2 }
            if tripStageFails { throw TripMigrationError() }
        })
}

@Suite(.serialized) struct CustomMigrationTests {
    private func makeV1Store(_ directory: TemporaryDirectory) throws -> ModelConfiguration {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Trips.store")))
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: TripSchemaV1.self), configurations: configuration))
        for (name, destination) in [("Rome", "Italy"), ("Rome", "Italy"), ("Oslo", "Norway")] {
            context.insert(TripSchemaV1.Trip(name: name, destination: destination))
        }
        try context.save()
        return configuration
    }

    @Test func aCustomStageRunsWithContextsOnTheOldAndTheNewModels() throws {
        tripStageLog.clear()
        tripStageFails = false
        let directory = TemporaryDirectory()
        let configuration = try makeV1Store(directory)

        let container = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV2.self), migrationPlan: TripMigrationPlan.self,
            configurations: configuration)
        #expect(tripStageLog.entries == ["will: 3", "did: 2"])
        let trips = try ModelContext(container).fetch(
            FetchDescriptor<TripSchemaV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Oslo", "Rome"])
        #expect(trips.map(\.visits) == [1, 2])

        // Opening again finds the store at version 2: nothing runs.
        tripStageLog.clear()
        _ = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV2.self), migrationPlan: TripMigrationPlan.self,
            configurations: configuration)
        #expect(tripStageLog.entries.isEmpty)
    }

    @Test func aFailedStageLeavesTheStoreAsItWas() throws {
        tripStageLog.clear()
        tripStageFails = true
        defer { tripStageFails = false }
        let directory = TemporaryDirectory()
        let configuration = try makeV1Store(directory)

        #expect(throws: TripMigrationError.self) {
            try ModelContainer(
                for: Schema(versionedSchema: TripSchemaV2.self), migrationPlan: TripMigrationPlan.self,
                configurations: configuration)
        }
        #expect(tripStageLog.entries == ["will: 3", "did: 2"], "both ran; the second threw")
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: TripSchemaV1.self), configurations: configuration))
        #expect(try context.fetchCount(FetchDescriptor<TripSchemaV1.Trip>()) == 3, "the duplicates are back")

        tripStageFails = false
        tripStageLog.clear()
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV2.self), migrationPlan: TripMigrationPlan.self,
            configurations: configuration)
        #expect(tripStageLog.entries == ["will: 3", "did: 2"], "the whole stage runs again")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TripSchemaV2.Trip>()) == 2)
    }
}

enum TripSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        #Index<Trip>([\.destination])
        var name: String
        var destination: String
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

@Suite struct AddedKeyTableTests {
    @Test func anIndexOrUniqueConstraintAddedToStoredModelsTakesThemIn() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Trips.store")))
        do {
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: TripSchemaV1.self), configurations: configuration))
            for (name, destination) in [("Rome", "Italy"), ("Rome", "Italy"), ("Oslo", "Norway")] {
                context.insert(TripSchemaV1.Trip(name: name, destination: destination))
            }
            try context.save()
        }
        let indexed = try ModelContainer(for: Schema(versionedSchema: TripSchemaV3.self), configurations: configuration)
        let italy = #Predicate<TripSchemaV3.Trip> { $0.destination == "Italy" }
        #expect(try ModelContext(indexed).fetchCount(FetchDescriptor(predicate: italy)) == 2)
        #expect(try ModelContext(indexed).explain(FetchDescriptor(predicate: italy)).description.contains("index"))
        #expect(try indexed.verify().problems.isEmpty)

        // Two stored Romes: a unique name cannot apply until one goes.
        #expect(throws: SchemaError.self) {
            try ModelContainer(for: Schema(versionedSchema: TripSchemaV2.self), configurations: configuration)
        }
    }
}

import Cairn
import Foundation
import Testing

// A migration plan rehearsed on a copy of the store, as an app would before shipping it.

enum PlanetSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Planet.self] }

    @Model final class Planet {
        var name: String
        var moons: Int
        init(name: String, moons: Int) {
            self.name = name
            self.moons = moons
        }
    }
}

enum PlanetSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Planet.self] }

    @Model final class Planet {
        #Unique<Planet>([\.name])
        var name: String
        var moons: Int
        var hasRings: Bool = false
        init(name: String, moons: Int) {
            self.name = name
            self.moons = moons
        }
    }
}

/// The version 1 → 2 stage, whose `didMigrate` applies `change` to every planet.
func planetStage(_ change: @escaping (PlanetSchemaV2.Planet) -> Void) -> MigrationStage {
    .custom(
        fromVersion: PlanetSchemaV1.self, toVersion: PlanetSchemaV2.self, willMigrate: nil,
        didMigrate: { context in try context.fetch(FetchDescriptor<PlanetSchemaV2.Planet>()).forEach(change) })
}

/// Saturn gains rings.
enum PlanetPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlanetSchemaV1.self, PlanetSchemaV2.self] }
    static var stages: [MigrationStage] { [planetStage { if $0.name == "Saturn" { $0.hasRings = true } }] }
}

/// A plan whose stage fails on one model: it renames Pluto to a name another planet has.
enum BrokenPlanetPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlanetSchemaV1.self, PlanetSchemaV2.self] }
    static var stages: [MigrationStage] { [planetStage { if $0.name == "Pluto" { $0.name = "Mars" } }] }
}

@Suite(.serialized) struct MigrationRehearsalTests {
    let directory = TemporaryDirectory()

    /// A version 1 store with three planets; its data file's bytes.
    private func makeStore() throws -> (ModelConfiguration, Data) {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Planets.store")))
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: PlanetSchemaV1.self), configurations: configuration))
        for (name, moons) in [("Mars", 2), ("Saturn", 146), ("Pluto", 5)] {
            context.insert(PlanetSchemaV1.Planet(name: name, moons: moons))
        }
        try context.save()
        return (configuration, try Data(contentsOf: configuration.url.appendingPathComponent("data.mdb")))
    }

    private func rehearsalsLeft() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("cairn-rehearsal-") }
    }

    @Test func aRehearsalReportsWhatThePlanDoesAndLeavesTheStoreAlone() throws {
        let (configuration, before) = try makeStore()
        let rehearsal = try ModelContainer.rehearseMigration(
            for: Schema(versionedSchema: PlanetSchemaV2.self), migrationPlan: PlanetPlan.self,
            configuration: configuration)
        #expect(rehearsal.succeeded, "\(rehearsal)")
        #expect(rehearsal.stages.count == 1)
        let stage = try #require(rehearsal.stages.first)
        #expect(
            stage.isCustom && stage.fromVersion == Schema.Version(1, 0, 0) && stage.toVersion == Schema.Version(2, 0, 0)
        )
        #expect(stage.modelsRead == 3 && stage.modelsWritten == 1, "\(stage)")
        #expect(rehearsal.rowsBefore["Planet"] == 3 && rehearsal.rowsAfter["Planet"] == 3)
        #expect(rehearsal.bytesBefore > 0 && rehearsal.bytesAfter > 0)
        #expect(rehearsal.verification?.isClean == true)

        let after = try Data(contentsOf: configuration.url.appendingPathComponent("data.mdb"))
        #expect(after == before, "the store itself is not touched")
        #expect(try rehearsalsLeft().isEmpty, "the copy is removed")
        // The store still opens as version 1.
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: PlanetSchemaV1.self), configurations: configuration))
        #expect(try context.fetchCount(FetchDescriptor<PlanetSchemaV1.Planet>()) == 3)
    }

    @Test func aRehearsalCopiesTheStoreWhileItIsWritten() async throws {
        let (configuration, _) = try makeStore()
        let container = try ModelContainer(
            for: Schema(versionedSchema: PlanetSchemaV1.self), configurations: configuration)
        // Another part of the app keeps saving planets while the rehearsal copies the store.
        let writer = Task.detached {
            let context = ModelContext(container)
            var saved = 0
            while !Task.isCancelled {
                context.insert(PlanetSchemaV1.Planet(name: "Minor \(saved)", moons: 0))
                try context.save()
                saved += 1
            }
            return saved
        }
        try await Task.sleep(for: .milliseconds(20))
        let rehearsal = try ModelContainer.rehearseMigration(
            for: Schema(versionedSchema: PlanetSchemaV2.self), migrationPlan: PlanetPlan.self,
            configuration: configuration)
        writer.cancel()
        let saved = try await writer.value
        #expect(rehearsal.succeeded, "\(rehearsal)")
        let copied = try #require(rehearsal.rowsBefore["Planet"])
        #expect(copied >= 3 && copied <= 3 + saved, "a snapshot between two saves")
        #expect(rehearsal.rowsAfter["Planet"] == copied)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<PlanetSchemaV1.Planet>()) == 3 + saved)
    }

    @Test func aRehearsalCopiesTheStoreWhileAnotherProcessWritesIt() throws {
        let (configuration, _) = try makeStore()
        let writer = try HelperProcess(["planet-writer", configuration.url.path, "3"])
        // Copied once the other process is saving.
        #expect(writer.readLine()?.hasPrefix("ack") == true)
        let rehearsal = try ModelContainer.rehearseMigration(
            for: Schema(versionedSchema: PlanetSchemaV2.self), migrationPlan: PlanetPlan.self,
            configuration: configuration)
        let finished = writer.waitForExit()
        #expect(finished.status == 0, "\(finished.errors)")
        let saved = try #require(finished.output.split(separator: "\n").last.flatMap { Int($0.dropFirst(5)) })
        #expect(rehearsal.succeeded, "\(rehearsal)")
        let copied = try #require(rehearsal.rowsBefore["Planet"])
        #expect(copied >= 4 && copied <= 3 + saved, "a snapshot between two of the other process's saves")
        #expect(rehearsal.rowsAfter["Planet"] == copied)
        #expect(try rehearsalsLeft().isEmpty)
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: PlanetSchemaV1.self), configurations: configuration))
        #expect(
            try context.fetchCount(FetchDescriptor<PlanetSchemaV1.Planet>()) == 3 + saved,
            "still version 1, every save kept")
    }

    @Test func aFailedRehearsalSaysWhichStageAndModelFailed() throws {
        let (configuration, before) = try makeStore()
        let rehearsal = try ModelContainer.rehearseMigration(
            for: Schema(versionedSchema: PlanetSchemaV2.self), migrationPlan: BrokenPlanetPlan.self,
            configuration: configuration)
        #expect(!rehearsal.succeeded)
        let failed = try #require(rehearsal.failedStage)
        #expect(failed.fromVersion == Schema.Version(1, 0, 0) && failed.toVersion == Schema.Version(2, 0, 0))
        #expect(failed.error?.contains("uniquenessViolated") == true, "\(failed)")
        #expect(!failed.models.isEmpty && failed.models.allSatisfy { $0.entityName == "Planet" }, "\(failed.models)")
        #expect(rehearsal.verification == nil)
        #expect(rehearsal.rowsAfter["Planet"] == 3, "the failed stage's copy is put back as it was")
        #expect(try Data(contentsOf: configuration.url.appendingPathComponent("data.mdb")) == before)
        #expect(try rehearsalsLeft().isEmpty, "nothing is left behind")
    }
}

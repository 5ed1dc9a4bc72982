import Foundation
import Testing

@testable import Cairn

/// The upserter on its own: one chunk at a time, what it inserts, updates and leaves alone, and
/// how a model the context holds takes the values.
@Suite struct UpserterTests {
    func context() throws -> ModelContext {
        let container = try makeContainer(Reading.self, Tally.self, TallyHolder.self, in: TemporaryDirectory(), named: "Upserter.store")
        return ModelContext(container)
    }

    func upserter(_ context: ModelContext) throws -> Upserter {
        try Upserter(
            context: context, tables: context.store.entityTables(of: Reading.self, for: "upsert(_:chunkSize:)"))
    }

    @Test func anEntityWithoutAUniquenessConstraintIsRefused() throws {
        let context = try context()
        let tables = context.store.entityTables(of: Tally.self, for: "upsert(_:chunkSize:)")
        #expect(throws: SaveError.self) { try Upserter(context: context, tables: tables) }
    }

    @Test func aChunkCountsWhatItInsertedUpdatedAndLeftAlone() throws {
        let context = try context()
        let upserter = try upserter(context)
        var report = UpsertReport(entityName: "Reading", storeIdentifier: context.store.identifier)
        let first = try upserter.upsertChunk(
            [Reading(sensor: 1, value: 1, note: "a"), Reading(sensor: 2, value: 2, note: "b")], into: &report)
        #expect(first.count == 2 && report.insertedCount == 2)
        // The held instances go, so the next chunk's models take the stored rows over.
        context.identity.releaseIfUnused(entity: upserter.tables.ordinal, rows: first)
        report = UpsertReport(entityName: "Reading", storeIdentifier: context.store.identifier)
        let second = try upserter.upsertChunk(
            [
                Reading(sensor: 1, value: 1, note: "a"), Reading(sensor: 2, value: 2, note: "changed"),
                Reading(sensor: 3, value: 3, note: "c"),
            ], into: &report)
        #expect(report.insertedCount == 1 && report.updatedCount == 1 && report.unchangedCount == 1)
        #expect(Set(second) == Set(first + report.inserted.compactMap(\.rowID)))
        #expect(!context.hasChanges)
    }

    @Test func aModelTheContextHoldsTakesTheValuesInsteadOfJoining() throws {
        let context = try context()
        let held = Reading(sensor: 7, value: 1, note: "old")
        context.insert(held)
        try context.save()
        var report = UpsertReport(entityName: "Reading", storeIdentifier: context.store.identifier)
        let incoming = Reading(sensor: 7, value: 2, note: "new")
        let joined = try upserter(context).upsertChunk([incoming], into: &report)
        #expect(joined.isEmpty && report.updatedCount == 1)
        #expect(held.note == "new" && held.value == 2)
        #expect(incoming._$modelState.loader == nil)
        #expect(try context.invariantViolations().isEmpty)
    }
}

import Foundation
import Testing

@testable import Cairn

@Model
final class Reading {
    #Unique<Reading>([\.sensor])
    #Index<Reading>([\.value])

    var sensor: Int
    var value: Double
    var note: String

    init(sensor: Int, value: Double, note: String) {
        self.sensor = sensor
        self.value = value
        self.note = note
    }
}

@Suite struct UpsertTests {
    func container() throws -> ModelContainer {
        try ModelContainer(
            for: Reading.self, Tally.self, TallyHolder.self,
            configurations: ModelConfiguration(url: URL(fileURLWithPath: TemporaryDirectory().child("Upsert.store"))))
    }

    @Test func insertsUpdatesAndLeavesUnchangedRowsAlone() throws {
        let container = try container()
        let context = ModelContext(container)
        let first = try context.upsert(
            (0..<1_000).lazy.map { Reading(sensor: $0, value: Double($0), note: "v1") }, chunkSize: 300)
        #expect(first.insertedCount == 1_000 && first.updatedCount == 0 && first.unchangedCount == 0)
        #expect(Set(first.inserted).count == 1_000)

        let before = container.store.environment.info.lastTransactionID
        let second = try context.upsert(
            (0..<1_000).lazy.map { Reading(sensor: $0, value: Double($0), note: $0 % 2 == 0 ? "v2" : "v1") },
            chunkSize: 300)
        #expect(second.insertedCount == 0 && second.updatedCount == 500 && second.unchangedCount == 500)
        #expect(
            Set(second.updated.map(\.rowID))
                == Set(first.inserted.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.rowID)))
        let afterSecond = container.store.environment.info.lastTransactionID
        #expect(afterSecond - before == 4, "one write transaction per chunk of 300")

        let third = try context.upsert(
            (0..<1_000).lazy.map { Reading(sensor: $0, value: Double($0), note: $0 % 2 == 0 ? "v2" : "v1") })
        #expect(third.unchangedCount == 1_000)
        #expect(container.store.environment.info.lastTransactionID == afterSecond, "nothing changed, nothing written")

        let check = ModelContext(container)
        let readings = try check.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.sensor)]))
        #expect(readings.count == 1_000)
        #expect(readings.allSatisfy { $0.note == ($0.sensor % 2 == 0 ? "v2" : "v1") })
        #expect(try check.invariantViolations().isEmpty)
    }

    @Test func rowRunsKeepOrderAndCountAndCompressConsecutiveRows() {
        var rows = RowRuns()
        let input: [UInt64] = [5, 6, 7, 2, 3, 9, 10, 10, 1]
        rows.append(contentsOf: input)
        #expect(rows.count == input.count)
        #expect(Array(rows) == input)
        var million = RowRuns()
        million.append(contentsOf: 1...1_000_000)
        #expect(million.count == 1_000_000)
        #expect(million.reduce(0, +) == 500_000_500_000)
        #expect(rows.runCount == 5, "[5-7], [2-3], [9-10], [10], [1]")
        #expect(million.runCount == 1)
    }

    @Test func aModelTheContextHoldsTakesTheNewValues() throws {
        let container = try container()
        let context = ModelContext(container)
        _ = try context.upsert([Reading(sensor: 1, value: 1, note: "old"), Reading(sensor: 2, value: 2, note: "old")])
        let held = try #require(
            try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.sensor == 1 })).first)
        let report = try context.upsert([
            Reading(sensor: 1, value: 10, note: "new"), Reading(sensor: 3, value: 3, note: "new"),
        ])
        #expect(report.updated == [held.persistentModelID] && report.insertedCount == 1)
        #expect(held.value == 10 && held.note == "new" && !held.hasChanges, "the same instance, saved")
        let again = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value == 10 }))
        #expect(again.count == 1 && again.first === held, "the index follows the new value")
    }

    @Test func theLastOfDuplicateKeysWins() throws {
        let container = try container()
        let context = ModelContext(container)
        let report = try context.upsert([
            Reading(sensor: 7, value: 1, note: "first"), Reading(sensor: 7, value: 2, note: "second"),
        ])
        #expect(report.insertedCount == 1)
        let stored = try ModelContext(container).fetch(FetchDescriptor<Reading>())
        #expect(stored.map(\.note) == ["second"])
    }

    @Test func anEntityWithoutAUniquenessConstraintIsRefused() throws {
        let context = ModelContext(try container())
        let error = #expect(throws: SaveError.self) { try context.upsert([Tally(label: "t", amount: 1)]) }
        #expect(error?.code == .noUniquenessConstraint && error?.message.contains("#Unique<Tally>") == true)
        #expect(!context.hasChanges)
    }
}

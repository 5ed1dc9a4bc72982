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

    /// The one-pass path for plain chunks and the general path (insert, copy, save) give the same
    /// reports, the same stored rows and index entries, the same registered instances and the
    /// same notifications, over random chunks with duplicate keys, unchanged rows, rows the
    /// context already holds, and index values that move.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func theBulkPathAgreesWithTheGeneralPath(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let (bulkContainer, generalContainer) = (try container(), try container())
        let bulk = ModelContext(bulkContainer)
        let general = ModelContext(generalContainer)
        general.allowsBulkUpsert = false
        let saved = SaveLog(observing: [bulk, general])
        var held: [[Reading]] = [[], []]
        for round in 0..<8 {
            let count = Int(random.next() % 300)
            let values = (0..<count).map { _ in
                (
                    sensor: Int(random.next() % 200), value: Double(random.next() % 50),
                    note: ["a", "b"][Int(random.next() % 2)]
                )
            }
            let chunkSize = Int(random.next() % 120) + 1
            if round % 3 == 2 {
                // Hold some stored models, so registered instances take new values.
                let low = Double(random.next() % 50)
                for (index, context) in [bulk, general].enumerated() {
                    held[index] = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= low }))
                }
            }
            var reports: [UpsertReport] = []
            for context in [bulk, general] {
                reports.append(
                    try context.upsert(
                        values.lazy.map { Reading(sensor: $0.sensor, value: $0.value, note: $0.note) },
                        chunkSize: chunkSize))
            }
            #expect(Array(reports[0].insertedRows) == Array(reports[1].insertedRows), "round \(round): inserted")
            #expect(Array(reports[0].updatedRows) == Array(reports[1].updatedRows), "round \(round): updated")
            #expect(Array(reports[0].unchangedRows) == Array(reports[1].unchangedRows), "round \(round): unchanged")
            #expect(!bulk.hasChanges && !general.hasChanges)
            #expect(
                held[0].map { "\($0.sensor) \($0.value) \($0.note)" }
                    == held[1].map { "\($0.sensor) \($0.value) \($0.note)" },
                "round \(round): held instances")
            // The stores, read fresh (`rows`), and through the index.
            #expect(try rows(bulkContainer) == rows(generalContainer), "round \(round): stored rows")
            let cut = Double(random.next() % 50)
            let above = #Predicate<Reading> { $0.value > cut }
            #expect(try rows(bulkContainer, above) == rows(generalContainer, above), "round \(round): index range")
            #expect(
                try rows(bulkContainer, above)
                    == rows(bulkContainer).filter { Double($0.split(separator: " ")[2])! > cut })
            // The same models, from the upserting contexts.
            let mine = { (context: ModelContext) in
                try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.sensor)])).map {
                    "\($0.sensor) \($0.value) \($0.note) \($0.hasChanges)"
                }
            }
            #expect(try mine(bulk) == mine(general), "round \(round): the contexts' models")
            #expect(try bulk.invariantViolations().isEmpty && general.invariantViolations().isEmpty)
        }
        #expect(bulk.bulkUpsertChunks > 0 && general.bulkUpsertChunks == 0, "each context took its path")
        #expect(saved[bulk] == saved[general], "the same didSave notifications")
        #expect(!saved[bulk].isEmpty)
    }

    /// Batches of new models saved with `insert` and `save()`, mostly with new unique values, now
    /// and then one already stored or repeated in the batch, end as a reference model says:
    /// the last model with a key wins, a stored row with the key is taken over (it keeps its
    /// identifier), and the unique and index tables find exactly the rows they should.
    @Test(arguments: [11, 12, 13, 14])
    func insertedBatchesEndAsTheReferenceSays(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try container()
        let context = ModelContext(container)
        let saved = SaveLog(observing: [context])
        // The reference: each sensor's value, note and row.
        var reference: [Int: (value: Double, note: String, row: UInt64)] = [:]
        for round in 0..<12 {
            let count = Int(random.next() % 150) + 1
            let base = 1_000 * round
            let values = (0..<count).map { position in
                let sensor = random.next() % 20 == 0 ? Int(random.next() % UInt64(base + 1)) : base + position
                return (sensor: sensor, value: Double(random.next() % 50), note: ["a", "b"][Int(random.next() % 2)])
            }
            let models = values.map { Reading(sensor: $0.sensor, value: $0.value, note: $0.note) }
            for model in models { context.insert(model) }
            try context.save()
            #expect(!context.hasChanges)
            // The last model of each sensor stands for its row; a stored sensor keeps its row.
            var last: [Int: Reading] = [:]
            for model in models { last[model.sensor] = model }
            for (sensor, model) in last {
                let row = try #require(model.persistentModelID.rowID, "round \(round): sensor \(sensor) saved")
                if let stored = reference[sensor] {
                    #expect(row == stored.row, "round \(round): sensor \(sensor) keeps its row")
                }
                reference[sensor] = (model.value, model.note, row)
            }
            // `rows` lists "row sensor value note" by sensor.
            let bySensor = reference.sorted { $0.key < $1.key }
            let line = { (entry: (key: Int, value: (value: Double, note: String, row: UInt64))) in
                "\(entry.value.row) \(entry.key) \(entry.value.value) \(entry.value.note)"
            }
            #expect(try rows(container) == bySensor.map(line), "round \(round): stored rows")
            let cut = Double(random.next() % 50)
            let above = #Predicate<Reading> { $0.value > cut }
            #expect(
                try rows(container, above) == bySensor.filter { $0.value.value > cut }.map(line),
                "round \(round): index range")
            let sensor = values[0].sensor
            let unique = #Predicate<Reading> { $0.sensor == sensor }
            #expect(try rows(container, unique).count == 1, "round \(round): unique key")
            #expect(try context.invariantViolations().isEmpty)
        }
        #expect(saved[context].count == 12, "one didSave per save")
    }

    @Test func anEntityWithoutAUniquenessConstraintIsRefused() throws {
        let context = ModelContext(try container())
        let error = #expect(throws: SaveError.self) { try context.upsert([Tally(label: "t", amount: 1)]) }
        #expect(error?.code == .noUniquenessConstraint && error?.message.contains("#Unique<Tally>") == true)
        #expect(!context.hasChanges)
    }
}

/// A container's readings, read by a new context, in sensor order: row, sensor, value, note.
private func rows(_ container: ModelContainer, _ predicate: Predicate<Reading>? = nil) throws -> [String] {
    try ModelContext(container).fetch(
        FetchDescriptor<Reading>(predicate: predicate, sortBy: [SortDescriptor(\.sensor)])
    )
    .map { "\($0.persistentModelID.rowID!) \($0.sensor) \($0.value) \($0.note)" }
}

/// The didSave notifications of some contexts, as sorted row lists, recorded until released.
final class SaveLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: [[String: [Int]]]] = [:]
    private var observers: [any NSObjectProtocol] = []

    init(observing contexts: [ModelContext]) {
        for context in contexts {
            let name = ObjectIdentifier(context)
            observers.append(
                NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
                    [weak self] note in
                    func rows(_ key: ModelContext.NotificationKey) -> [Int] {
                        (note.userInfo?[key.rawValue] as? [PersistentIdentifier] ?? []).compactMap(\.rowID).map {
                            Int($0)
                        }
                        .sorted()
                    }
                    self?.append(name, ["inserted": rows(.insertedIdentifiers), "updated": rows(.updatedIdentifiers)])
                })
        }
    }

    deinit { observers.forEach(NotificationCenter.default.removeObserver) }

    private func append(_ context: ObjectIdentifier, _ entry: [String: [Int]]) {
        lock.withLock { entries[context, default: []].append(entry) }
    }

    subscript(_ context: ModelContext) -> [[String: [Int]]] {
        lock.withLock { entries[ObjectIdentifier(context)] ?? [] }
    }
}

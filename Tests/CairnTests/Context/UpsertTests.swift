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
        try makeContainer(Reading.self, Tally.self, TallyHolder.self, in: TemporaryDirectory(), named: "Upsert.store")
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

    /// Random chunks with duplicate keys, unchanged rows, rows the context already holds and
    /// index values that move end as a reference model says: each chunk's last model of a key
    /// inserts a row, updates the stored one (keeping its row) or leaves it alone; the reports,
    /// the stored rows (read fresh, and through the index), the instances the context holds and
    /// the didSave notifications follow.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func randomChunksEndAsTheReferenceSays(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try container()
        let context = ModelContext(container)
        let saved = SaveLog(observing: [context])
        var reference: [Int: (value: Double, note: String, row: UInt64)] = [:]
        var held: [Reading] = []
        var saves = 0
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
                held = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= low }))
            }
            let report = try context.upsert(
                values.lazy.map { Reading(sensor: $0.sensor, value: $0.value, note: $0.note) }, chunkSize: chunkSize)
            // The reference, chunk by chunk: the last model of each sensor counts.
            // By sensor: a sensor inserted by an earlier chunk of this upsert has its row only after it.
            var (inserted, updatedSensors, unchangedSensors) = (Set<Int>(), [Int](), [Int]())
            var chunks = 0
            for start in stride(from: 0, to: values.count, by: chunkSize) {
                chunks += 1
                var last: [Int: (value: Double, note: String)] = [:]
                for value in values[start..<min(start + chunkSize, values.count)] {
                    last[value.sensor] = (value.value, value.note)
                }
                for (sensor, value) in last {
                    if let stored = reference[sensor] {
                        if stored.value == value.value && stored.note == value.note {
                            unchangedSensors.append(sensor)
                        } else {
                            updatedSensors.append(sensor)
                            reference[sensor] = (value.value, value.note, stored.row)
                        }
                    } else {
                        inserted.insert(sensor)
                        reference[sensor] = (value.value, value.note, 0)
                    }
                }
            }
            let stored = try ModelContext(container).fetch(FetchDescriptor<Reading>())
            let rowOf = Dictionary(uniqueKeysWithValues: stored.map { ($0.sensor, $0.persistentModelID.rowID!) })
            for sensor in inserted {
                let row = try #require(rowOf[sensor], "round \(round): sensor \(sensor) stored")
                #expect(!reference.values.contains { $0.row == row }, "round \(round): a new row")
                reference[sensor]!.row = row
            }
            let updated = updatedSensors.map { rowOf[$0]! }
            let unchanged = unchangedSensors.map { rowOf[$0]! }
            #expect(Set(report.insertedRows) == Set(inserted.map { rowOf[$0]! }), "round \(round): inserted")
            #expect(report.insertedCount == inserted.count)
            #expect(report.updatedRows.sorted() == updated.sorted(), "round \(round): updated")
            #expect(report.unchangedRows.sorted() == unchanged.sorted(), "round \(round): unchanged")
            #expect(!context.hasChanges)
            for model in held {
                let expected = try #require(reference[model.sensor])
                #expect(
                    model.value == expected.value && model.note == expected.note && !model.hasChanges,
                    "round \(round): a held instance takes the new values")
            }
            // The store, read fresh, and through the index.
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
            // The context's models are the stored ones, saved.
            let mine = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.sensor)])).map {
                "\($0.persistentModelID.rowID!) \($0.sensor) \($0.value) \($0.note) \($0.hasChanges)"
            }
            #expect(mine == bySensor.map { line($0) + " false" }, "round \(round): the context's models")
            #expect(try context.invariantViolations().isEmpty)
            // A chunk that changes nothing writes nothing and posts nothing.
            let notes = saved[context]
            #expect(notes.count >= saves && notes.count <= saves + chunks)
            let posted = notes[saves...]
            #expect(
                Set(posted.flatMap { $0["updated"]! }) == Set(updated.map { Int($0) }),
                "round \(round): didSave lists the rows updated, not those left alone")
            #expect(Set(posted.flatMap { $0["inserted"]! }) == Set(inserted.map { Int(rowOf[$0]!) }))
            saves = notes.count
        }
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

    /// Another writer stores the key, or deletes the row a model takes over, after the chunk was
    /// planned and before its transaction (here, from `willSave`): the save fails before writing
    /// anything, and the upsert plans the chunk again against what is stored now.
    @Test(arguments: [false, true])
    func aKeyAnotherWriterChangesWhileTheChunkIsPlannedIsMatchedAgain(deleting: Bool) throws {
        let container = try container()
        let context = ModelContext(container)
        let other = Interference(ModelContext(container))
        if deleting {
            other.context.insert(Reading(sensor: 5, value: 1, note: "stored"))
            try other.context.save()
        }
        let observer = NotificationCenter.default.addObserver(
            forName: ModelContext.willSave, object: context, queue: nil
        ) { _ in
            other.once {
                if deleting {
                    try $0.delete(model: Reading.self)
                } else {
                    $0.insert(Reading(sensor: 5, value: 1, note: "other"))
                }
                try $0.save()
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let report = try context.upsert([Reading(sensor: 5, value: 2, note: "mine")])
        #expect(other.didInterfere)
        if deleting {
            #expect(report.insertedCount == 1 && report.updatedCount == 0, "the row is gone: a new one")
        } else {
            #expect(report.insertedCount == 0 && report.updatedCount == 1, "the other writer's row, updated")
        }
        let stored = try ModelContext(container).fetch(FetchDescriptor<Reading>())
        #expect(stored.map { "\($0.sensor) \($0.note)" } == ["5 mine"])
        #expect(try ModelContext(container).invariantViolations().isEmpty)
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

/// Another context's write, made once from inside a notification of the context under test.
private final class Interference: @unchecked Sendable {
    let context: ModelContext
    private(set) var didInterfere = false

    init(_ context: ModelContext) { self.context = context }

    func once(_ write: (ModelContext) throws -> Void) {
        guard !didInterfere else { return }
        didInterfere = true
        try! write(context)
    }
}

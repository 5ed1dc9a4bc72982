import Foundation
import Testing

@testable import Cairn

/// The one pass a save makes over its inserted models: each one's tables, record, unique keys and
/// position among the new rows.
@Suite struct InsertedModelsTests {
    func store() throws -> (ModelContainer, Store.EntityTables) {
        let container = try makeContainer(inMemory: Gauge.self)
        return (container, container.store.entitiesByType[ObjectIdentifier(Gauge.self)]!)
    }

    @Test func eachModelHasItsTablesRecordKeysAndPosition() throws {
        let (container, tables) = try store()
        let gauges = (0..<6).map { Gauge(code: 100 + $0, reading: Double($0), label: "g\($0)") }
        let inserted = try InsertedModels(gauges, store: container.store)
        #expect(inserted.count == 6)
        for (position, gauge) in gauges.enumerated() {
            #expect(inserted.tables[position] === tables)
            let record = try SavePlanner.record(of: gauge, tables: tables)
            #expect(inserted.records.withRecord(position) { Array($0) } == record.bytes)
            #expect(inserted.records.contentChecksum(position) == record.contentChecksum)
            let range = inserted.keyRange(of: position)
            #expect(range.count == 1 && inserted.keys[range.lowerBound] == tables.keys.uniques[0].key(of: gauge))
            #expect(inserted.keys.withKey(range.lowerBound) { Array($0) } == tables.keys.uniques[0].key(of: gauge))
            #expect(inserted.keyTables[range.lowerBound] == tables.keys.uniques[0].table)
            #expect(inserted.position(of: gauge, state: gauge._$state) == position)
        }
    }

    /// Models without unique keys (desks) between models with one (gauges): each key is found to
    /// belong to its own model.
    @Test func aKeyNamesTheModelItBelongsTo() throws {
        let container = try makeContainer(inMemory: Gauge.self, Desk.self, Clerk.self)
        let models: [any PersistentModel] = [
            Desk(name: "a"), Gauge(code: 1, reading: 0), Desk(name: "b"), Desk(name: "c"), Gauge(code: 2, reading: 0),
            Gauge(code: 3, reading: 0), Desk(name: "d"),
        ]
        let inserted = try InsertedModels(models, store: container.store)
        #expect(inserted.keys.count == 3)
        #expect((0..<3).map { inserted.position(ofKey: $0) } == [1, 4, 5])
        for position in models.indices {
            for key in inserted.keyRange(of: position) { #expect(inserted.position(ofKey: key) == position) }
        }
    }

    @Test func removingModelsRenumbersTheRestAndForgetsTheRemoved() throws {
        let (container, tables) = try store()
        let gauges = (0..<6).map { Gauge(code: 100 + $0, reading: Double($0)) }
        let inserted = try InsertedModels(gauges, store: container.store)
        let (kept, newPositions) = inserted.removing([1, 4])
        #expect(kept.count == 4 && kept.keys.count == 4)
        #expect(newPositions == [0, nil, 1, 2, nil, 3])
        // Removing none keeps every position where it was.
        #expect(inserted.removing([]).newPositions == nil && inserted.removing([]).kept.count == 6)
        for (position, gauge) in [gauges[0], gauges[2], gauges[3], gauges[5]].enumerated() {
            #expect(kept.models[position] === gauge)
            #expect(kept.position(of: gauge, state: gauge._$state) == position)
            #expect(kept.keys[kept.keyRange(of: position).lowerBound] == tables.keys.uniques[0].key(of: gauge))
        }
        // A removed model's note is an earlier list's: it names no position here.
        #expect(kept.position(of: gauges[4], state: gauges[4]._$state) == nil)
        #expect(kept.position(of: gauges[1], state: gauges[1]._$state) == nil)
        // A model another list noted since is not taken for one of these.
        _ = try InsertedModels([gauges[5]], store: container.store)
        #expect(kept.position(of: gauges[5], state: gauges[5]._$state) == nil)
    }
}

import Foundation
import Testing

@testable import Cairn

/// The invariant checker on its own, over a store and a row loader: the index tables against the
/// records, and the size above which it checks nothing (`InvariantTests` cover edges, unique keys
/// and the identity map through the context).
@Suite struct InvariantCheckerTests {
    func savedReadings(_ count: Int) throws -> ModelContext {
        let container = try makeContainer(inMemory: Reading.self, Tally.self, TallyHolder.self)
        let context = ModelContext(container)
        for sensor in 0..<count { context.insert(Reading(sensor: sensor, value: Double(sensor), note: "")) }
        try context.save()
        return context
    }

    func checker(_ context: ModelContext) -> InvariantChecker {
        InvariantChecker(store: context.store, rows: context.rows)
    }

    @Test func aConsistentStoreHasNoViolations() throws {
        #expect(try checker(savedReadings(3)).violations().isEmpty)
    }

    @Test func aRowMissingFromAnIndexAndAnEntryForAMissingRowAreFound() throws {
        let context = try savedReadings(2)
        let store = context.store
        let valueIndex = store.entities["Reading"]!.keys.indexes[0]
        let index = valueIndex.table
        let key = valueIndex.key(of: Reading(sensor: 9, value: 9, note: ""))
        try store.environment.write { txn in
            try txn.removeAll(from: index)
            try txn.put(EntryLayout.keyedValue(row: 99, key: key), for: key, in: index)
        }
        let violations = try checker(context).violations()
        #expect(violations.contains { $0 == "\(index.name): an entry names missing row 99" })
        #expect(violations.contains { $0 == "\(index.name): row 1 is not under its key" })
        #expect(violations.contains { $0 == "\(index.name): 1 entries for 2 rows" })
    }

    @Test func aStoreOverTheLimitIsNotChecked() throws {
        let context = try savedReadings(InvariantChecker.rowLimit + 1)
        let store = context.store
        try store.environment.write { txn in try txn.removeAll(from: store.entities["Reading"]!.keys.indexes[0].table) }
        #expect(try checker(context).violations().isEmpty)
    }
}

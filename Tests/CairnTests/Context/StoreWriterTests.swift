import Foundation
import Testing

@testable import Cairn

/// The one writer of every save, tested on plans built by hand.
@Suite struct StoreWriterTests {
    func store() throws -> (ModelContext, Store.EntityTables) {
        let container = try ModelContainer(
            for: Gauge.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        return (ModelContext(container), container.store.entities["Gauge"]!)
    }

    /// A new row of `gauge` with its unique and index entries.
    func add(
        _ gauge: Gauge, at position: Int, to plan: inout SavePlan, context: ModelContext, tables: Store.EntityTables
    )
        throws
    {
        plan.newRows.append(
            SavePlan.NewRow(tables: tables, record: try SavePlanner.record(of: gauge, tables: tables), takesOver: nil))
        plan.uniqueClaims.append(
            SavePlan.UniqueClaim(
                table: tables.uniques[0].table, key: tables.uniques[0].key(of: gauge), row: .new(position),
                identifier: gauge.persistentModelID))
        plan.indexAdditions.append(
            SavePlan.KeyEntry(
                table: tables.indexes[0].table, key: tables.indexes[0].key(of: gauge), row: .new(position)))
    }

    func codes(_ context: ModelContext, where predicate: Predicate<Gauge>? = nil) throws -> [Int] {
        try ModelContext(context.container).fetch(
            FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.code)])
        )
        .map(\.code)
    }

    @Test func newRowsGetConsecutiveRowsAndTheirEntries() throws {
        let (context, tables) = try store()
        var plan = SavePlan()
        for (position, code) in [10, 20, 30].enumerated() {
            try add(Gauge(code: code, reading: Double(code)), at: position, to: &plan, context: context, tables: tables)
        }
        let outcome = try StoreWriter(store: context.store).write(plan)
        #expect(outcome.newRows == [1, 2, 3])
        #expect(try codes(context) == [10, 20, 30])
        #expect(try codes(context, where: #Predicate { $0.code == 20 }) == [20])
        #expect(try codes(context, where: #Predicate { $0.reading >= 15 }) == [20, 30])
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func aUniqueValueClaimedMeanwhileFailsTheSaveAndWritesNothing() throws {
        let (context, tables) = try store()
        context.insert(Gauge(code: 7, reading: 1))
        try context.save()
        var plan = SavePlan()
        try add(Gauge(code: 8, reading: 1), at: 0, to: &plan, context: context, tables: tables)
        try add(Gauge(code: 7, reading: 2), at: 1, to: &plan, context: context, tables: tables)
        #expect { try StoreWriter(store: context.store).write(plan) } throws: { error in
            (error as? SaveError)?.code == .uniquenessViolated
        }
        #expect(try codes(context) == [7])
    }

    @Test func aReferenceToAModelWithoutARowFailsTheSave() throws {
        let (context, tables) = try store()
        var plan = SavePlan()
        plan.indexAdditions.append(SavePlan.KeyEntry(table: tables.indexes[0].table, key: [1], row: .missing("Gauge")))
        #expect { try StoreWriter(store: context.store).write(plan) } throws: { error in
            (error as? StorageError)?.code == .unsupportedValue
        }
    }

    @Test func upsertsInsertUpdateOrLeaveRowsAsTheTransactionFindsThem() throws {
        let (context, tables) = try store()
        context.insert(Gauge(code: 1, reading: 1))
        context.insert(Gauge(code: 2, reading: 2))
        try context.save()
        func upsert(_ gauge: Gauge) throws -> SavePlan.Upsert {
            SavePlan.Upsert(
                key: tables.uniques[0].key(of: gauge), record: try SavePlanner.record(of: gauge, tables: tables),
                indexKeys: [tables.indexes[0].key(of: gauge)])
        }
        var plan = SavePlan()
        plan.upsertTarget = SavePlan.UpsertTarget(
            tables: tables, unique: tables.uniques[0],
            storedIndexKeys: { reader in
                let stored = try context.rows.scratchModel(from: reader, tables: tables)
                return [tables.indexes[0].key(of: stored)]
            })
        plan.upserts = [
            try upsert(Gauge(code: 1, reading: 1)), try upsert(Gauge(code: 2, reading: 9)),
            try upsert(Gauge(code: 3, reading: 3)),
        ]
        let outcome = try StoreWriter(store: context.store).write(plan)
        let described = outcome.upserts.map { upserted -> String in
            switch upserted {
            case .unchanged(let row): "unchanged \(row)"
            case .updated(let row): "updated \(row)"
            case .inserted(let row): "inserted \(row)"
            }
        }
        #expect(described == ["unchanged 1", "updated 2", "inserted 3"])
        // The updated row's index entry moved with its value.
        #expect(try codes(context, where: #Predicate { $0.reading >= 5 }) == [2])
        #expect(try codes(context, where: #Predicate { $0.reading == 2 }).isEmpty)
        #expect(try ModelContext(context.container).invariantViolations().isEmpty)
    }
}

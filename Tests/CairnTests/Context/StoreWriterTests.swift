import Foundation
import Testing

@testable import Cairn

/// The one writer of every save, tested on plans built by hand.
@Suite struct StoreWriterTests {
    func store() throws -> (ModelContext, Store.EntityTables) {
        let container = try makeContainer(inMemory: Gauge.self)
        return (ModelContext(container), container.store.entities["Gauge"]!)
    }

    /// A new row of `gauge` with its unique and index entries.
    func add(
        _ gauge: Gauge, at position: Int, to plan: inout SavePlan, context: ModelContext, tables: Store.EntityTables
    )
        throws
    {
        let record = try SavePlanner.appendRecord(of: gauge, tables: tables, to: &plan.newRecords)
        #expect(record == position, "a new row's record is at its position")
        plan.newRows.append(SavePlan.NewRow(tables: tables, takesOver: nil))
        plan.newRowIdentifiers.append(gauge.persistentModelID)
        plan.uniqueKeys.append(tables.keys.uniques[0].key(of: gauge))
        plan.uniqueClaims.append(
            SavePlan.UniqueClaim(
                table: tables.keys.uniques[0].table, key: plan.uniqueKeys.count - 1, row: .new(position),
                entity: tables.entityName))
        plan.indexAdditions.append(
            SavePlan.KeyEntry(
                table: tables.keys.indexes[0].table, key: tables.keys.indexes[0].key(of: gauge), row: .new(position)))
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
        let outcome = try StoreWriter(store: context.store).write(&plan)
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
        let late = Gauge(code: 7, reading: 2)
        try add(Gauge(code: 8, reading: 1), at: 0, to: &plan, context: context, tables: tables)
        try add(late, at: 1, to: &plan, context: context, tables: tables)
        #expect { try StoreWriter(store: context.store).write(&plan) } throws: { error in
            let error = error as? SaveError
            return error?.code == .uniquenessViolated && error?.models == [late.persistentModelID]
        }
        #expect(try codes(context) == [7])
        // A stored row's claim names the row's identifier.
        let stored = try #require(try context.fetch(FetchDescriptor<Gauge>()).first)
        var changed = SavePlan()
        changed.uniqueKeys.append(tables.keys.uniques[0].key(of: Gauge(code: 7, reading: 0)))
        changed.uniqueClaims.append(
            SavePlan.UniqueClaim(
                table: tables.keys.uniques[0].table, key: 0, row: .stored(stored.persistentModelID.rowID! + 1),
                entity: tables.entityName))
        #expect { try StoreWriter(store: context.store).write(&changed) } throws: { error in
            let expected = PersistentIdentifier(
                entity: tables.entityName, store: context.store.internedIdentifier,
                rowID: stored.persistentModelID.rowID! + 1)
            return (error as? SaveError)?.models == [expected]
        }
    }

    /// Claims are appended while they ascend past the table's last key and looked up once they do
    /// not: keys below and between stored ones are all written; one equal to the last stored key
    /// (the case an append cannot tell from "not past the end") still fails the save.
    @Test func claimsInAnyOrderAreWrittenAndTheLastStoredKeyIsStillRefused() throws {
        let (context, tables) = try store()
        for code in [2, 9] { context.insert(Gauge(code: code, reading: 0)) }
        try context.save()
        var plan = SavePlan()
        for (position, code) in [10, 11, 5, 12, 1].enumerated() {
            try add(Gauge(code: code, reading: 0), at: position, to: &plan, context: context, tables: tables)
        }
        _ = try StoreWriter(store: context.store).write(&plan)
        #expect(try codes(context) == [1, 2, 5, 9, 10, 11, 12])
        for code in [1, 5, 12] {
            #expect(try codes(context, where: #Predicate { $0.code == code }) == [code], "found by its unique key")
        }
        #expect(try context.invariantViolations().isEmpty)
        var last = SavePlan()
        try add(Gauge(code: 13, reading: 0), at: 0, to: &last, context: context, tables: tables)
        try add(Gauge(code: 12, reading: 1), at: 1, to: &last, context: context, tables: tables)
        #expect { try StoreWriter(store: context.store).write(&last) } throws: { error in
            (error as? SaveError)?.code == .uniquenessViolated
        }
        #expect(try codes(context) == [1, 2, 5, 9, 10, 11, 12])
    }

    @Test func aReferenceToAModelWithoutARowFailsTheSave() throws {
        let (context, tables) = try store()
        var plan = SavePlan()
        plan.indexAdditions.append(SavePlan.KeyEntry(table: tables.keys.indexes[0].table, key: [1], row: .missing("Gauge")))
        #expect { try StoreWriter(store: context.store).write(&plan) } throws: { error in
            (error as? StorageError)?.code == .unsupportedValue
        }
    }

    /// A row taken over is written over, or left alone (not written, not in the history) when
    /// it already holds the same record and its model writes nothing else.
    @Test func rowsTakenOverAreWrittenOverOrLeftAlone() throws {
        let (context, tables) = try store()
        context.insert(Gauge(code: 1, reading: 1))
        context.insert(Gauge(code: 2, reading: 2))
        try context.save()
        var plan = SavePlan()
        for (row, gauge) in [(1, Gauge(code: 1, reading: 1)), (2, Gauge(code: 2, reading: 9))] {
            _ = try SavePlanner.appendRecord(of: gauge, tables: tables, to: &plan.newRecords)
            var new = SavePlan.NewRow(tables: tables, takesOver: UInt64(row))
            new.isLeftAloneWhenSame = true
            plan.newRows.append(new)
            plan.uniqueKeys.append(tables.keys.uniques[0].key(of: gauge))
            plan.keptKeys.append(
                SavePlan.KeptKey(
                    table: tables.keys.uniques[0].table, key: plan.uniqueKeys.count - 1, row: UInt64(row),
                    identifier: gauge.persistentModelID))
        }
        let outcome = try StoreWriter(store: context.store).write(&plan)
        #expect(outcome.newRows == [1, 2] && outcome.leftAlone == [0])
        let store = context.store
        let commit = try #require(outcome.commit)
        let changes = try store.environment.read { txn in
            try ChangeLog.changes(
                after: commit - 1, skipping: { _ in false }, history: store.history!, meta: store.meta, txn: txn
            )
        }
        guard case .entries(let entries) = changes else {
            Issue.record("the history of the commit is readable")
            return
        }
        #expect(entries.map(\.row) == [2], "only the row written is in the history")
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Gauge>()).map(\.reading) == [1, 9])
    }

    /// A key the plan keeps for a row it takes over must still name that row in the transaction
    /// (unless nothing was committed since it was read); else the save fails and writes nothing.
    @Test func aKeptKeyThatNamesAnotherRowFailsTheSave() throws {
        let (context, tables) = try store()
        context.insert(Gauge(code: 1, reading: 1))
        context.insert(Gauge(code: 2, reading: 2))
        try context.save()
        let gauge = Gauge(code: 1, reading: 5)
        var plan = SavePlan()
        _ = try SavePlanner.appendRecord(of: gauge, tables: tables, to: &plan.newRecords)
        plan.newRows.append(SavePlan.NewRow(tables: tables, takesOver: 2))
        plan.uniqueKeys.append(tables.keys.uniques[0].key(of: gauge))
        plan.keptKeys.append(
            SavePlan.KeptKey(
                table: tables.keys.uniques[0].table, key: plan.uniqueKeys.count - 1, row: 2,
                identifier: gauge.persistentModelID))
        #expect { try StoreWriter(store: context.store).write(&plan) } throws: { error in
            (error as? SaveError).map { $0.code == .uniquenessViolated && $0.isClaimedMeanwhile } ?? false
        }
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Gauge>()).map(\.reading) == [1, 2])
        // Read at the commit just before: the writer trusts the plan's read and does not look.
        plan.readSnapshot = UInt64(context.store.environment.info.lastTransactionID)
        plan.uniqueKeys.append(tables.keys.uniques[0].key(of: Gauge(code: 2, reading: 0)))
        plan.keptKeys[0] = SavePlan.KeptKey(
            table: tables.keys.uniques[0].table, key: plan.uniqueKeys.count - 1, row: 2,
            identifier: gauge.persistentModelID)
        _ = try StoreWriter(store: context.store).write(&plan)
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Gauge>()).map(\.reading) == [1, 5])
    }

    /// Bug (found by the multi-process load test): a save that deleted a model, or changed its
    /// unique value, removed the old value's unique entry by key alone. When another writer had
    /// deleted that row after the save was planned, and a third had claimed the value for a new
    /// row, the save removed the new row's entry, and the next insert of the value made a second
    /// row with it. Fix: a freed entry is removed only while it names the row that freed it.
    @Test func aFreedKeyClaimedByAnotherRowMeanwhileKeepsItsEntry() throws {
        let (context, tables) = try store()
        let first = Gauge(code: 1, reading: 1)
        context.insert(first)
        try context.save()
        let gone = try #require(first.persistentModelID.rowID)
        context.delete(first)
        try context.save()
        let claimant = Gauge(code: 1, reading: 2)
        context.insert(claimant)
        try context.save()

        // A plan made before the delete and the claim: it frees code 1 of the row now gone.
        var plan = SavePlan()
        plan.uniqueFreed.append((tables.keys.uniques[0].table, tables.keys.uniques[0].key(of: first), gone))
        _ = try StoreWriter(store: context.store).write(&plan)

        #expect(try context.container.verify().isClean)
        let again = Gauge(code: 1, reading: 3)
        let later = ModelContext(context.container)
        later.insert(again)
        try later.save()
        #expect(again.persistentModelID == claimant.persistentModelID, "the insert took over the claimed row")
        #expect(try codes(context) == [1])
    }
}

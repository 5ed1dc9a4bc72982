import Foundation
import Testing

@testable import Cairn

/// The uniqueness planner on its own: stored rows come from a real store, the context's parts
/// (stored keys, released relationships) from closures.
@Suite struct UniquenessPlannerTests {
    /// A store holding gauges with codes 1, 2 and 3, and a planner over it.
    private func storedGauges() throws -> (ModelContainer, [Gauge], UniquenessPlanner) {
        let container = try makeContainer(inMemory: Gauge.self)
        let context = ModelContext(container)
        let gauges = (1...3).map { Gauge(code: $0, reading: Double($0)) }
        for gauge in gauges { context.insert(gauge) }
        try context.save()
        // The stored keys as the record has them: each row's code, keyed as the unique table keys it.
        let codes = Dictionary(uniqueKeysWithValues: gauges.map { ($0.persistentModelID.rowID!, $0.code) })
        let planner = UniquenessPlanner(
            store: container.store,
            storedKeys: { rows in
                rows.map { row, tables in
                    let probe = Gauge(code: codes[row]!, reading: 0)
                    return tables.keys.uniques.map { $0.key(of: probe) }
                }
            },
            releasedRelationships: { _, _, _ in [] })
        return (container, gauges, planner)
    }

    private func key(_ code: Int, in container: ModelContainer) -> [UInt8] {
        let tables = container.store.entitiesByType[ObjectIdentifier(Gauge.self)]!
        return tables.keys.uniques[0].key(of: Gauge(code: code, reading: 0))
    }

    @Test func anInsertWithAStoredValueTakesThatRowOver() throws {
        let (container, gauges, planner) = try storedGauges()
        let newcomer = Gauge(code: 2, reading: 20)
        let plan = try planner.plan(
            inserted: try InsertedModels([newcomer], store: container.store), changed: [], deleted: [])
        #expect(plan.takeovers == [gauges[1].persistentModelID.rowID!])
        // The row's key stays: neither freed nor claimed, only checked by the writer.
        #expect(plan.freed.isEmpty && plan.claimed.isEmpty && plan.insertClaims.isEmpty)
        #expect(plan.kept.map(\.key) == [0])
        #expect(plan.kept.count == 1 && plan.kept[0].position == 0)
        #expect(plan.kept[0].row == gauges[1].persistentModelID.rowID!)
        #expect(plan.readSnapshot == UInt64(container.store.environment.info.lastTransactionID))
        #expect(plan.superseded.isEmpty)
    }

    @Test func aLaterInsertWithTheSameValueSupersedesTheEarlier() throws {
        let (container, _, planner) = try storedGauges()
        let (early, late) = (Gauge(code: 9, reading: 1), Gauge(code: 9, reading: 2))
        let plan = try planner.plan(
            inserted: try InsertedModels([early, late], store: container.store), changed: [], deleted: [])
        #expect(plan.superseded == [0])
        #expect(plan.claimed.isEmpty && plan.insertClaims.map(\.position) == [1])
        #expect(plan.takeovers.isEmpty && plan.freed.isEmpty)
    }

    @Test func aDeletedRowsValueIsFreedForANewModelWithoutATakeover() throws {
        let (container, gauges, planner) = try storedGauges()
        let newcomer = Gauge(code: 3, reading: 30)
        let plan = try planner.plan(
            inserted: try InsertedModels([newcomer], store: container.store), changed: [], deleted: [gauges[2]])
        #expect(plan.takeovers.isEmpty)
        #expect(plan.freed.map(\.key) == [key(3, in: container)])
        #expect(plan.claimed.isEmpty && plan.insertClaims.count == 1 && plan.insertClaims[0].position == 0)
    }

    @Test func aChangeToAnotherStoredRowsValueIsRefusedNamingBoth() throws {
        let (container, gauges, planner) = try storedGauges()
        gauges[0].code = 3
        #expect {
            try planner.plan(
                inserted: try InsertedModels([], store: container.store), changed: [gauges[0]], deleted: [])
        } throws: { error in
            guard let error = error as? SaveError, error.code == .uniquenessViolated else { return false }
            return Set(error.models) == [gauges[0].persistentModelID, gauges[2].persistentModelID]
        }
        // Deleting the other row in the same save frees its value.
        let plan = try planner.plan(
            inserted: try InsertedModels([], store: container.store), changed: [gauges[0]], deleted: [gauges[2]])
        #expect(plan.claimed.count == 1 && plan.claimed[0].model === gauges[0])
        #expect(plan.freed.count == 2)
    }
}

import Foundation
import Testing

@testable import Cairn

@Suite struct IdentityMapTests {
    func store() throws -> (ModelContainer, Store.EntityTables) {
        let container = try makeContainer(inMemory: Gauge.self)
        return (container, container.store.entities["Gauge"]!)
    }

    func id(_ row: UInt64, _ container: ModelContainer) -> PersistentIdentifier {
        PersistentIdentifier(entityName: "Gauge", storeIdentifier: container.store.identifier, rowID: row)
    }

    @Test func aRowHasOneInstanceFoundByIdentifierOrByEntityAndRow() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        let gauge = Gauge(code: 1, reading: 0)
        map.register(gauge, as: id(7, container))
        #expect(map.model(for: id(7, container)) === gauge)
        #expect(map.model(entity: tables.ordinal, row: 7) === gauge)
        #expect(map.model(for: id(8, container)) == nil)
        let other = PersistentIdentifier(entityName: "Gauge", storeIdentifier: "another store", rowID: 7)
        #expect(map.model(for: other) == nil, "an identifier of another store names none of its rows")
        let replacement = Gauge(code: 2, reading: 0)
        map.register(replacement, entity: tables.ordinal, row: 7)
        #expect(map.model(for: id(7, container)) === replacement)
        map.remove(id(7, container))
        #expect(map.model(for: id(7, container)) == nil)
        withExtendedLifetime((gauge, replacement)) {}
    }

    /// A model knows whether it is its row's registered instance (its first change is tracked
    /// only then): from its registration until another takes its row or it is removed; far rows
    /// (kept apart from the pages) alike.
    @Test(arguments: [UInt64(7), 1 << 40])
    func aModelKnowsWhileItIsItsRowsInstance(_ row: UInt64) throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        let gauge = Gauge(code: 1, reading: 0)
        #expect(!gauge._$modelState.isRegisteredRow)
        map.register(gauge, entity: tables.ordinal, row: row)
        #expect(gauge._$modelState.isRegisteredRow)
        let replacement = Gauge(code: 2, reading: 0)
        map.register(replacement, entity: tables.ordinal, row: row)
        #expect(!gauge._$modelState.isRegisteredRow, "its row has another instance now")
        #expect(replacement._$modelState.isRegisteredRow)
        map.register(replacement, entity: tables.ordinal, row: row)
        #expect(replacement._$modelState.isRegisteredRow, "registered again as itself")
        map.remove(id(row, container))
        #expect(!replacement._$modelState.isRegisteredRow)
        let inserted = Gauge(code: 3, reading: 0)
        map.register(inserted, as: inserted.persistentModelID)
        #expect(!inserted._$modelState.isRegisteredRow, "an insert is no stored row's instance")
        withExtendedLifetime((gauge, replacement, inserted)) {}
    }

    @Test func insertedModelsAreFoundByTheirTemporaryIdentifier() throws {
        let (container, _) = try store()
        var map = IdentityMap(store: container.store)
        let gauge = Gauge(code: 1, reading: 0)
        let temporary = gauge.persistentModelID
        #expect(temporary.isTemporary)
        map.register(gauge, as: temporary)
        #expect(map.model(for: temporary) === gauge)
        #expect(map.models.count == 1 && map.storedModels.isEmpty)
        map.remove(temporary)
        #expect(map.model(for: temporary) == nil)
    }

    @Test func theMapLetsGoOfTheModelsNothingElseHoldsWhenItSweeps() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        var kept: [Gauge] = []
        weak var dropped: Gauge?
        for row in 0..<5_000 as Range<UInt64> {
            let gauge = Gauge(code: Int(row), reading: 0)
            gauge._$modelState.persistentIdentifier = id(row, container)
            map.register(gauge, entity: tables.ordinal, row: row)
            if row % 100 == 0 { kept.append(gauge) }
            if row == 4_999 { dropped = gauge }
        }
        // Sweeps ran as the map doubled, so it holds far fewer than all 5,000; the last one
        // registered has not been swept yet and is still the row's instance.
        #expect(map.registeredCount < 2_000)
        #expect(dropped != nil && map.model(entity: tables.ordinal, row: 4_999) === dropped)
        map.sweep()
        // Only the 50 the test holds are left; the others are gone.
        #expect(dropped == nil)
        #expect(map.models.count == 50 && map.registeredCount == 50)
        #expect(map.model(entity: tables.ordinal, row: 1) == nil)
        #expect(map.model(entity: tables.ordinal, row: 4_900) === kept.last)
        #expect(Set(map.storedModels.map(\.0.rowID)) == Set(kept.map { $0.persistentModelID.rowID }))
    }

    /// While a hold is on (a change in place of a to-many relationship), no sweep, whether grown
    /// or asked for, and no release of rows lets a model go; after it, the next sweep does.
    @Test func aHoldKeepsEveryModelThroughSweepsUntilItEnds() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        weak var first: Gauge?
        map.hold()
        map.hold()
        for row in 0..<3_000 as Range<UInt64> {
            let gauge = Gauge(code: Int(row), reading: 0)
            gauge._$modelState.persistentIdentifier = id(row, container)
            map.register(gauge, entity: tables.ordinal, row: row)
            if row == 0 { first = gauge }
        }
        map.sweep()
        map.releaseIfUnused(entity: tables.ordinal, rows: [0, 1])
        map.releaseIfUnused([id(0, container)])
        #expect(map.registeredCount == 3_000 && first != nil)
        map.release()
        map.sweep()
        #expect(map.registeredCount == 3_000 && first != nil, "one hold is still on")
        map.release()
        map.sweep()
        #expect(map.registeredCount == 0 && first == nil)
    }

    @Test func rowsFarApartAndPastThePagedRangeAreKeptAlike() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        // Neighbours in one page, rows pages apart, and rows past the paged range (a store with
        // billions of rows, or a damaged key) that must not make the map allocate for them.
        let rows: [UInt64] = [0, 1, 511, 512, 70_000, 1 << 25, 1 << 40, UInt64.max]
        var held: [Gauge] = []
        for row in rows {
            let gauge = Gauge(code: held.count, reading: 0)
            gauge._$modelState.persistentIdentifier = id(row, container)
            map.register(gauge, entity: tables.ordinal, row: row)
            held.append(gauge)
        }
        for (row, gauge) in zip(rows, held) { #expect(map.model(entity: tables.ordinal, row: row) === gauge) }
        #expect(
            map.model(entity: tables.ordinal, row: 2) == nil && map.model(entity: tables.ordinal, row: 1 << 41) == nil)
        #expect(map.registeredCount == rows.count && map.models.count == rows.count)
        map.remove(id(1 << 40, container))
        map.remove(id(511, container))
        #expect(
            map.model(entity: tables.ordinal, row: 1 << 40) == nil && map.model(entity: tables.ordinal, row: 511) == nil
        )
        #expect(map.registeredCount == rows.count - 2)
        // Dropped by the test, the rest are let go of in a sweep, wherever they are kept.
        let keep = Set([0, 5, 7])
        held = held.enumerated().filter { keep.contains($0.offset) }.map(\.element)
        map.sweep()
        #expect(map.registeredCount == 3)
        #expect(Set(map.storedModels.compactMap(\.0.rowID)) == [0, 1 << 25, UInt64.max])
    }

    /// A page of slots is freed when its last model leaves, however it leaves (removed, let go
    /// of because nothing else held it, swept), so a context that moves through many rows in
    /// batches keeps pages only for the rows it holds.
    @Test func aPageIsFreedWhenItsLastModelLeaves() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        var held: [Gauge] = []
        for row in 0..<2_048 as Range<UInt64> {
            let gauge = Gauge(code: Int(row), reading: 0)
            gauge._$modelState.persistentIdentifier = id(row, container)
            map.register(gauge, entity: tables.ordinal, row: row)
            held.append(gauge)
        }
        #expect(map.allocatedPages == 4, "512 rows per page")
        // The first page: every row removed. The second: let go of, once the test drops them.
        for row in 0..<512 as Range<UInt64> { map.remove(id(row, container)) }
        #expect(map.allocatedPages == 3)
        let second = Array(512..<1_024 as Range<UInt64>)
        held.replaceSubrange(512..<1_024, with: [])
        map.releaseIfUnused(entity: tables.ordinal, rows: second)
        #expect(map.allocatedPages == 2 && map.registeredCount == 1_024)
        // A page that keeps one model stays; rows can be registered again in a freed page.
        held.removeSubrange(513...)
        map.sweep()
        #expect(map.allocatedPages == 1 && map.registeredCount == 1, "row 1,024 alone, still held")
        let again = Gauge(code: 7, reading: 0)
        map.register(again, entity: tables.ordinal, row: 7)
        #expect(map.model(entity: tables.ordinal, row: 7) === again && map.allocatedPages == 2)
        #expect(map.model(entity: tables.ordinal, row: 1_024) === held[512])
    }

    /// When the context goes away the map lets go of every model, the paged rows, the rows past
    /// the paged range and the inserted ones alike: a model something else still holds lives on
    /// (the map let go of it first, so it goes with its holder), the others die with the map.
    @Test func releasingEverythingEmptiesTheMapAndLeavesWhatOthersHold() throws {
        let (container, tables) = try store()
        var map = IdentityMap(store: container.store)
        var holder: [Gauge]? = []
        weak var alone: Gauge?
        weak var heldByHolder: Gauge?
        weak var farAlone: Gauge?
        for row in [0, 1, 600, 1_300, 1 << 40] as [UInt64] {
            let gauge = Gauge(code: Int(row % 1_000), reading: 0)
            gauge._$modelState.persistentIdentifier = id(row, container)
            map.register(gauge, entity: tables.ordinal, row: row)
            switch row {
            case 0: alone = gauge
            case 1 << 40: farAlone = gauge
            case 600: heldByHolder = gauge
            default: break
            }
            if row != 0 && row != 1 << 40 { holder?.append(gauge) }
        }
        let inserted = Gauge(code: 9, reading: 0)
        map.register(inserted, as: inserted.persistentModelID)
        weak let insertedAlone = inserted
        _ = consume inserted
        #expect(map.registeredCount == 6 && map.allocatedPages == 3)
        #expect(alone != nil && farAlone != nil && insertedAlone != nil, "the map holds them")
        map.releaseAll()
        #expect(map.registeredCount == 0 && map.allocatedPages == 0 && map.models.isEmpty)
        #expect(alone == nil && farAlone == nil && insertedAlone == nil, "only the map held them")
        #expect(heldByHolder != nil && holder?.count == 3, "held elsewhere, so alive")
        holder = nil
        #expect(heldByHolder == nil, "gone with their holder")
    }
}

import Foundation
import Testing

@testable import Cairn

@Model
final class LoaderShelf {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \LoaderVolume.shelf) var volumes: [LoaderVolume] = []

    init(label: String) { self.label = label }
}

@Model
final class LoaderVolume {
    var title: String
    var shelf: LoaderShelf?

    init(title: String) { self.title = title }
}

/// The row loader on its own: faults, record loads, a relationship's targets with their records,
/// another version of a row, scratch copies, and rows that are gone.
@Suite struct RowLoaderTests {
    /// A store with one shelf of five volumes, saved; the shelf's row.
    func store() throws -> (ModelContainer, row: UInt64) {
        let container = try makeContainer(inMemory: LoaderShelf.self, LoaderVolume.self)
        let context = ModelContext(container)
        let shelf = LoaderShelf(label: "A")
        context.insert(shelf)
        for number in 1...5 { shelf.volumes.append(LoaderVolume(title: "v\(number)")) }
        try context.save()
        return (container, try #require(shelf.persistentModelID.rowID))
    }

    func shelfTables(_ container: ModelContainer) -> Store.EntityTables { container.store.entities["LoaderShelf"]! }

    func identifier(_ row: UInt64, _ container: ModelContainer) -> PersistentIdentifier {
        PersistentIdentifier(entityName: "LoaderShelf", storeIdentifier: container.store.identifier, rowID: row)
    }

    /// A saved shelf's registered fault in a new context, with its store, row and tables.
    struct ShelfFault {
        let container: ModelContainer
        let row: UInt64
        let tables: Store.EntityTables
        let context: ModelContext
        let fault: any PersistentModel
    }

    func shelfFault() throws -> ShelfFault {
        let (container, row) = try store()
        let tables = shelfTables(container)
        let context = ModelContext(container)
        let fault = context.registeredOrFault(identifier(row, container))
        return ShelfFault(container: container, row: row, tables: tables, context: context, fault: fault)
    }

    /// Deletes the shelf of `row` through another context, as another part of the app would.
    func deleteElsewhere(_ row: UInt64, _ container: ModelContainer) throws {
        let deleting = ModelContext(container)
        deleting.delete(try #require(deleting.model(for: identifier(row, container)) as? LoaderShelf))
        try deleting.save()
    }

    /// The stored record of a row, as a fetch reads it.
    func record(_ row: UInt64, _ container: ModelContainer) throws -> RecordReader {
        let key = EntryLayout.rowKey(row)
        let reader = try container.store.environment.read { txn in
            try txn.withValue(for: key, in: shelfTables(container).layout.records) { try RecordReader(copying: $0, key: key) }
        }
        return try #require(reader)
    }

    @Test func aStoredRowHasOneFaultUntilItIsLoaded() throws {
        let (container, row) = try store()
        let context = ModelContext(container)
        let loader = context.rows
        defer { withExtendedLifetime(context) {} }
        let tables = shelfTables(container)
        let fault = context.registeredOrFault(identifier(row, container))
        #expect(context.registeredOrFault(identifier(row, container)) === fault, "one instance per row")
        #expect(tables.codec.encodingOrder.allSatisfy { !$0.access.isLoaded(fault) }, "nothing is read for a fault")
        #expect(loader.statistics == .init(readTransactions: 0, recordLoads: 0))
        try loader.load(fault, rowID: row, tables: tables)
        #expect(tables.codec.encodingOrder.allSatisfy { $0.access.isLoaded(fault) })
        #expect((fault as? LoaderShelf)?.label == "A")
        #expect(loader.statistics == .init(readTransactions: 1, recordLoads: 1))
    }

    @Test func aToManyRelationshipLoadsItsTargetsRecordsInTheSameRead() throws {
        let (container, row) = try store()
        let context = ModelContext(container)
        let loader = context.rows
        defer { withExtendedLifetime(context) {} }
        let tables = shelfTables(container)
        let volumes = try #require(tables.entity.relationshipsByName["volumes"])
        let targets = try loader.storedTargets(volumes, rowID: row, tables: tables, loadingRecords: true)
        #expect(targets.compactMap { ($0 as? LoaderVolume)?.title } == ["v1", "v2", "v3", "v4", "v5"], "stored order")
        #expect(loader.statistics == .init(readTransactions: 1, recordLoads: 5), "one read for the edges and records")
        // Read again, the same instances come back, already loaded: no record is read.
        let again = try loader.storedTargets(volumes, rowID: row, tables: tables, loadingRecords: true)
        #expect(zip(targets, again).allSatisfy { $0 === $1 })
        #expect(loader.statistics == .init(readTransactions: 2, recordLoads: 5))
    }

    @Test func anotherVersionOfARowReplacesACleanModelsValuesAndKeepsAChangedModels() throws {
        let (container, row) = try store()
        let tables = shelfTables(container)
        let clean = ModelContext(container)
        let cleanShelf = try #require(
            clean.registeredOrFault(identifier(row, container)) as? LoaderShelf)
        try clean.rows.load(cleanShelf, rowID: row, tables: tables)
        let changing = ModelContext(container)
        let changedShelf = try #require(changing.model(for: identifier(row, container)) as? LoaderShelf)
        changedShelf.label = "mine"
        // Another context saves a new version of the row.
        let writer = ModelContext(container)
        try #require(writer.model(for: identifier(row, container)) as? LoaderShelf).label = "B"
        try writer.save()

        let newVersion = try record(row, container)
        try clean.rows.apply(newVersion, to: cleanShelf, tables: tables)
        #expect(cleanShelf.label == "B", "a clean model takes the stored values")
        try changing.rows.apply(newVersion, to: changedShelf, tables: tables)
        #expect(changedShelf.label == "mine" && changedShelf.hasChanges, "unsaved changes are kept")
    }

    @Test func aScratchCopyOfARowIsNotRegistered() throws {
        let shelf = try shelfFault()
        let (container, row, tables, context, registered) = (
            shelf.container, shelf.row, shelf.tables, shelf.context, shelf.fault
        )
        let loader = context.rows
        let scratch = try container.store.environment.read { txn in
            try loader.storedRecord(row: row, tables: tables, in: txn).map { try loader.scratchModel(from: $0, tables: tables) }
        }
        let copy = try #require(scratch as? LoaderShelf)
        #expect(copy !== registered && copy.label == "A")
        #expect(loader.identity.model(entity: tables.ordinal, row: row) === registered)
        #expect(
            try container.store.environment.read { txn in
                try loader.storedRecord(row: row + 100, tables: tables, in: txn)
            } == nil)
    }

    @Test func loadingARowThatIsGoneThrowsNotFound() throws {
        let shelf = try shelfFault()
        let (container, row, tables, context, fault) = (
            shelf.container, shelf.row, shelf.tables, shelf.context, shelf.fault
        )
        let loader = context.rows
        try deleteElsewhere(row, container)
        let error = #expect(throws: StorageError.self) { try loader.load(fault, rowID: row, tables: tables) }
        #expect(error?.code == .notFound && error?.message.contains("deleted") == true)
    }

    @Test func aGettersLoadOfARowThatIsGoneLeavesAPlaceholderAndMarksTheModelDeleted() throws {
        let shelf = try shelfFault()
        let (container, row, tables, context, fault) = (
            shelf.container, shelf.row, shelf.tables, shelf.context, shelf.fault
        )
        let loader = context.rows
        let source = try #require(loader.source(of: fault, 0))
        #expect(source.rowID == row && source.tables === tables)
        try deleteElsewhere(row, container)
        loader.load(0, of: fault, rowID: row, tables: tables)  // its label
        #expect(fault.isDeleted, "a row deleted elsewhere marks its model deleted")
        #expect(loader.identity.model(for: identifier(row, container)) == nil, "and the map lets it go")
        #expect(context.rows.failures.errors.isEmpty, "a deletion elsewhere is no error")
    }

    @Test func aGettersLoadOfAnUnsavedModelRecordsAnError() throws {
        let (container, _) = try store()
        let context = ModelContext(container)
        let shelf = LoaderShelf(label: "new")
        context.insert(shelf)
        #expect(context.rows.source(of: shelf, 1) == nil)
        let error = try #require(context.rows.failures.errors.first)
        #expect(error.code == .loadFailed && "\(error)".contains("never saved"))
    }

    @Test func identifiersFromOutsideGiveAFaultOrAPlaceholder() throws {
        let (container, row) = try store()
        let context = ModelContext(container)
        let loader = context.rows
        defer { withExtendedLifetime(context) {} }
        #expect(loader.hasRow(identifier(row, container)))
        #expect(!loader.hasRow(identifier(row + 100, container)), "no row, no fault")
        let other = PersistentIdentifier(entityName: "LoaderShelf", storeIdentifier: "elsewhere", rowID: row)
        #expect(!loader.hasRow(other), "a row of another store is not this store's")
        let fault = loader.faultOrPlaceholder(identifier(row, container))
        #expect(loader.identity.model(for: identifier(row, container)) === fault, "a stored row's fault is registered")
        let untracked = loader.faultOrPlaceholder(other)
        #expect(loader.identity.model(for: other) == nil && untracked !== fault, "another store's is not")
        let unknown = PersistentIdentifier(
            entityName: "NoSuchEntity", storeIdentifier: container.store.identifier, rowID: 1)
        #expect(loader.faultOrPlaceholder(unknown).isDeleted)
        #expect(context.rows.failures.errors.count == 1, "an entity the schema lacks is recorded")
    }
}

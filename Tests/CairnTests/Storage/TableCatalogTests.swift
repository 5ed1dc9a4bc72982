import Foundation
import Testing

@testable import CairnStorage

/// The store's named tables (`TableCatalog`): opened once and cached, listed, and checked for
/// the flags they were created with.
@Suite struct TableCatalogTests {
    @Test func tablesAreCachedListedAndCheckedForFlags() throws {
        let store = try TemporaryStore()
        let catalog = TableCatalog(environment: store.environment)
        let a = try #require(try catalog.open("a", create: true))
        let b = try #require(try catalog.open("b", flags: [.duplicateSort, .duplicateFixed], create: true))
        #expect(try catalog.open("a") == a, "a table opens once")
        #expect(try store.environment.openTable("a") == a, "the environment's openTable is the catalogue's")
        #expect(try catalog.open("missing") == nil)
        #expect(try catalog.names() == ["a", "b"])
        #expect(try store.environment.tableNames() == ["a", "b"])
        #expect { try catalog.open("b", flags: []) } throws: { ($0 as? StorageError)?.code == .other }
        #expect(try catalog.storedFlags(of: "b") == [.duplicateSort, .duplicateFixed])
        #expect(try catalog.storedFlags(of: "a") == [])
        _ = b
    }

    @Test func theFlagsOfATableTheCatalogueLacksAreAnError() throws {
        let store = try TemporaryStore()
        let catalog = TableCatalog(environment: store.environment)
        #expect { try catalog.storedFlags(of: "nowhere") } throws: { ($0 as? StorageError)?.code == .damaged }
    }
}

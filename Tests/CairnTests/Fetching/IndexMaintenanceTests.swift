import Foundation
import Testing

@testable import Cairn

/// `#Index` tables follow every insert, change and delete, in value order.
@Suite struct IndexMaintenanceTests {
    /// The rows of an index in key order, mapped to the authors' last names.
    func lastNamesInIndexOrder(_ context: ModelContext) throws -> [String] {
        let store = context.container.store
        let tables = try #require(store.entities["LibraryAuthor"])
        let index = try #require(tables.keys.indexes.first { $0.names == ["lastName"] })
        let rows: [UInt64] = try store.environment.read { txn in
            var rows: [UInt64] = []
            try txn.scan(index.table) { key, value in
                rows.append(try EntryLayout.row(keyedValue: value, key: key, table: index.table))
                return true
            }
            return rows
        }
        return rows.map { row in
            (context.model(
                for: PersistentIdentifier(entityName: "LibraryAuthor", storeIdentifier: store.identifier, rowID: row))
                as! LibraryAuthor).lastName
        }
    }

    @Test func anIndexListsRowsInValueOrderThroughChangesAndDeletes() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let authors = ["Woolf", "Austen", "Eliot", "Brontë", "Dickens"].enumerated().map {
            LibraryAuthor(firstName: "F\($0)", lastName: $1, email: "\($0)@example.org")
        }
        authors.forEach(context.insert)
        try context.save()
        #expect(try lastNamesInIndexOrder(context) == ["Austen", "Brontë", "Dickens", "Eliot", "Woolf"])
        authors[0].lastName = "Aardvark"
        authors[1].firstName = "Jane"  // not an indexed attribute of this index: its entry stays
        try context.save()
        #expect(try lastNamesInIndexOrder(context) == ["Aardvark", "Austen", "Brontë", "Dickens", "Eliot"])
        context.delete(authors[2])
        try context.save()
        #expect(try lastNamesInIndexOrder(context) == ["Aardvark", "Austen", "Brontë", "Dickens"])
        #expect(try context.invariantViolations().isEmpty)
    }
}

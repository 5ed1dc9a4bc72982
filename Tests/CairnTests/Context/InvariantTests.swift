import Foundation
import Testing

@testable import Cairn

/// The invariant check that runs after every save in debug builds finds what it promises.
@Suite struct InvariantTests {
    func savedLibrary() throws -> (ModelContext, LibraryAuthor, LibraryBook) {
        let container = try makeContainer(inMemory: LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self)
        let context = ModelContext(container)
        let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "ja@example.org")
        let book = LibraryBook(isbn: "1", title: "Emma")
        author.books = [book]
        context.insert(author)
        try context.save()
        return (context, author, book)
    }

    @Test func aConsistentStoreHasNoViolations() throws {
        let (context, _, _) = try savedLibrary()
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func aMissingInverseEdgeIsFound() throws {
        let (context, author, _) = try savedLibrary()
        let store = context.container.store
        try store.environment.write { txn in
            try txn.removeAll(from: store.entities["LibraryBook"]!.layout.edges["author"]!)
        }
        let violations = try context.invariantViolations()
        #expect(
            violations.contains { $0.contains("\(author.persistentModelID).books") && $0.contains("no inverse edge") })
    }

    @Test func aMissingUniqueKeyIsFound() throws {
        let (context, _, book) = try savedLibrary()
        let store = context.container.store
        try store.environment.write { txn in
            try txn.removeAll(from: store.entities["LibraryBook"]!.keys.uniques[0].table)
        }
        let violations = try context.invariantViolations()
        #expect(violations.contains { $0.contains("row \(book.persistentModelID.rowID!) is not under its key") })
    }

    /// A registered model whose row is gone is the world's doing (another context or process
    /// deleted it), not a violation; the edges left pointing at the row are.
    @Test func edgesToARowDeletedBehindTheContextsBackAreFound() throws {
        let (context, _, book) = try savedLibrary()
        let store = context.container.store
        try store.environment.write { txn in
            try txn.delete(
                EntryLayout.rowKey(book.persistentModelID.rowID!), in: store.entities["LibraryBook"]!.layout.records)
        }
        let violations = try context.invariantViolations()
        #expect(!violations.contains { $0.contains("\(book.persistentModelID) is registered") })
        #expect(violations.contains { $0.contains("points at missing LibraryBook") })
    }
}

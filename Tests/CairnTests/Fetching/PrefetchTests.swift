import Foundation
import Testing

@testable import Cairn

/// Prefetching reads a relationship for all fetched models in one pass instead of one read per model.
@Suite struct PrefetchTests {
    static let authors = 1_000, booksPerAuthor = 10

    func library() throws -> ModelContainer {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        for a in 0..<Self.authors {
            let author = LibraryAuthor(firstName: "F\(a)", lastName: "L\(a)", email: "\(a)@example.org")
            author.books = (0..<Self.booksPerAuthor).map { LibraryBook(isbn: "\(a)-\($0)", title: "Book \(a)-\($0)") }
            context.insert(author)
        }
        try context.save()
        return container
    }

    /// Fetches every author, reads every book's title, and returns what that cost.
    func readEveryTitle(_ container: ModelContainer, prefetch: Bool) throws -> (ModelContext.ReadStatistics, Int) {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.email)])
        if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.books] }
        var titles = 0
        for author in try context.fetch(descriptor) {
            for book in author.books where book.title.hasPrefix("Book ") { titles += 1 }
        }
        return (context.statistics, titles)
    }

    @Test func prefetchingReadsInAConstantNumberOfPasses() throws {
        let container = try library()
        let (with, titlesWith) = try readEveryTitle(container, prefetch: true)
        let (without, titlesWithout) = try readEveryTitle(container, prefetch: false)
        #expect(titlesWith == Self.authors * Self.booksPerAuthor && titlesWithout == titlesWith)
        // With prefetching: one read for the authors, one for all their books.
        #expect(with.readTransactions == 2)
        #expect(with.recordLoads == Self.authors + Self.authors * Self.booksPerAuthor)
        // Without: one read for the authors, then one per author: a to-many fault reads its edges
        // and its books' records together, as Core Data does (not one more read per book).
        #expect(without.readTransactions == 1 + Self.authors)
        #expect(without.recordLoads == Self.authors + Self.authors * Self.booksPerAuthor)
    }

    @Test func prefetchedRelationshipsKeepTheirOrderAndIdentity() throws {
        let container = try library()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.email)])
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        descriptor.fetchLimit = 3
        let authors = try context.fetch(descriptor)
        #expect(authors.first?.books.map(\.title) == (0..<Self.booksPerAuthor).map { "Book 0-\($0)" })
        let book = try #require(authors.first?.books.first)
        #expect(context.model(for: book.persistentModelID) === book)
        #expect(book.author === authors.first, "the inverse loads to the same instance")
    }

    @Test func aFetchThatLeavesPendingChangesOutPrefetchesToo() throws {
        let container = try library()
        let context = ModelContext(container)
        context.insert(LibraryAuthor(firstName: "Un", lastName: "Saved", email: "unsaved@example.org"))
        var descriptor = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.email)])
        descriptor.includePendingChanges = false
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        let authors = try context.fetch(descriptor)
        #expect(authors.count == Self.authors)
        let afterFetch = context.statistics
        #expect(Set(authors.flatMap { $0.books.map(\.title) }).count == Self.authors * Self.booksPerAuthor)
        #expect(context.statistics == afterFetch, "the books were read with the fetch")
    }

    @Test func aToOneRelationshipIsPrefetchedInOnePass() throws {
        let container = try library()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)])
        descriptor.relationshipKeyPathsForPrefetching = [\.author]
        let books = try context.fetch(descriptor)
        let afterFetch = context.statistics
        #expect(afterFetch.readTransactions == 2, "one for the books, one for their authors")
        #expect(afterFetch.recordLoads == Self.authors * Self.booksPerAuthor + Self.authors)
        #expect(Set(books.compactMap { $0.author?.email }).count == Self.authors)
        #expect(context.statistics == afterFetch, "reading every author cost nothing more")
    }
}

@Model final class PrefetchShelf {
    var label: String
    /// No inverse: deleting an item does not touch the shelf's edges, so they can name gone rows.
    @Relationship var items: [PrefetchItem] = []
    init(label: String) { self.label = label }
}

@Model final class PrefetchItem {
    var name: String
    init(name: String) { self.name = name }
}

/// A relationship's targets are read in ascending row order (one cursor pass), whatever order
/// the list keeps them in; the list comes back in its own order, without the targets whose rows
/// are gone.
@Suite struct PrefetchOrderTests {
    @Test(arguments: [true, false])
    func targetsReadInRowOrderComeBackInListOrderWithoutGoneRows(prefetch: Bool) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(PrefetchShelf.self, PrefetchItem.self, in: directory)
        let writer = ModelContext(container)
        let items = ["a", "b", "c", "d", "e"].map { PrefetchItem(name: $0) }
        for item in items { writer.insert(item) }
        try writer.save()
        let shelf = PrefetchShelf(label: "s")
        writer.insert(shelf)
        shelf.items = [items[2], items[0], items[4], items[1], items[3]]  // c a e b d: rows out of order
        try writer.save()
        writer.delete(items[1])  // b's row goes; the shelf's edge to it stays
        try writer.save()

        let reader = ModelContext(container)
        var descriptor = FetchDescriptor<PrefetchShelf>()
        if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.items] }
        let fetched = try #require(try reader.fetch(descriptor).first)
        #expect(fetched.items.map(\.name) == ["c", "a", "e", "d"])
    }
}

import Foundation
import Testing

@testable import Cairn

/// The prefetcher on its own: a relationship of many owners loaded in one read.
@Suite struct PrefetcherTests {
    @Test func everyOwnersRelationshipIsLoadedInOneRead() throws {
        let context = try savedAuthorsLibrary()
        let authors = try context.fetch(FetchDescriptor<LibraryAuthor>())
        let books = context.store.entities["LibraryAuthor"]!.entity.relationshipsByName["books"]!
        #expect(!authors.contains { books.access.isLoaded($0) })
        let reads = context.statistics.readTransactions
        try Prefetcher(store: context.store, rows: context.rows).prefetch(
            [\LibraryAuthor.books], of: authors, tables: context.store.entities["LibraryAuthor"]!)
        #expect(context.statistics.readTransactions == reads + 1)
        #expect(authors.allSatisfy { books.access.isLoaded($0) && books.access.targets($0).count == 2 })
    }
}

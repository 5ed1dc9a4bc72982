import Foundation
import Testing

@testable import Cairn

/// The fetch counter on its own: with and without a predicate, pending changes, offset and limit.
@Suite struct FetchCounterTests {
    @Test func countsStoredRowsAndPendingChangesThenAppliesOffsetAndLimit() throws {
        let context = try savedAuthorsLibrary()
        let tables = context.store.entities["LibraryBook"]!
        let counter = FetchCounter(context: context)
        #expect(try counter.count(FetchDescriptor<LibraryBook>(), tables: tables) == 6)
        context.insert(LibraryBook(isbn: "new", title: "Austen 9"))
        #expect(try counter.count(FetchDescriptor<LibraryBook>(), tables: tables) == 7)
        let austen = FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.title.starts(with: "Austen") })
        #expect(try counter.count(austen, tables: tables) == 3)
        var stored = austen
        stored.includePendingChanges = false
        #expect(try counter.count(stored, tables: tables) == 2)
        var paged = FetchDescriptor<LibraryBook>()
        (paged.fetchOffset, paged.fetchLimit) = (5, 10)
        #expect(try counter.count(paged, tables: tables) == 2)
    }
}

import Foundation
import Testing

@testable import Cairn

/// The batch loader on its own: matches in the descriptor's order with pending inserts, and a
/// batch loaded in one read with gone rows as `nil`.
@Suite struct BatchLoaderTests {
    @Test func matchesComeInOrderWithPendingInsertsAndBatchesLoadInOneRead() throws {
        let context = try savedAuthorsLibrary()
        let added = LibraryAuthor(firstName: "A", lastName: "Borges", email: "9@example.org")
        context.insert(added)
        let loader = BatchLoader(
            context: context, descriptor: FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)]))
        let matches = try loader.orderedMatches()
        #expect(matches.count == 4)
        guard case .pending(let pending) = matches[1] else {
            Issue.record("the inserted author is not the second match")
            return
        }
        #expect(pending === added)
        let reads = context.statistics.readTransactions
        let batch = loader.load(matches[0..<4])
        #expect(context.statistics.readTransactions == reads + 1)
        #expect(batch.map { $0?.lastName } == ["Austen", "Borges", "Brontë", "Chekhov"])
    }

    @Test func aStoredMatchWhoseRowIsGoneLoadsAsNil() throws {
        let context = try savedAuthorsLibrary()
        let loader = BatchLoader(context: context, descriptor: FetchDescriptor<LibraryBook>())
        let matches = try loader.orderedMatches()
        let gone = matches[0].identifier
        let store = context.store
        try store.environment.write { txn in
            try txn.delete(EntryLayout.rowKey(gone.rowID!), in: store.entities["LibraryBook"]!.layout.records)
        }
        // The match pass registered the rows' models; nothing else holds them.
        context.identity.releaseIfUnused(matches.map(\.identifier))
        let batch = loader.load(matches[0..<2])
        #expect(batch[0] == nil && batch[1]?.persistentModelID == matches[1].identifier)
    }
}

import Foundation
import Testing

@testable import Cairn

/// The fetch's last step on its own: erased matches back as the model type, sorted by the
/// descriptor, then cut to its offset and limit.
@Suite struct FetchResultsTests {
    @Test func matchesAreTypedSortedAndPaged() throws {
        let context = try savedAuthorsLibrary()
        var descriptor = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName, order: .reverse)])
        (descriptor.fetchOffset, descriptor.fetchLimit) = (1, 1)
        let tables = context.store.entities["LibraryAuthor"]!
        let executor = try FetchExecutor(FetchRequest(descriptor, tables: tables), in: context)
        let matches = try executor.matches()
        let authors = FetchResults.typed(FetchResults.ordered(matches, by: executor), as: LibraryAuthor.self)
        #expect(authors.map(\.lastName) == ["Brontë"])
        #expect(FetchResults.typed(matches, as: LibraryAuthor.self).count == matches.count)
    }
}

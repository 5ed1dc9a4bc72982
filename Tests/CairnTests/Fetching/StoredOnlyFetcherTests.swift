import Foundation
import Testing

@testable import Cairn

/// The stored-only fetcher on its own: the context's unsaved changes are left out, and the
/// results are the context's own instances.
@Suite struct StoredOnlyFetcherTests {
    @Test func unsavedChangesAreLeftOutAndTheContextsInstancesComeBack() throws {
        let context = try savedAuthorsLibrary()
        let held = try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Austen" }))
        held[0].lastName = "Changed"
        context.insert(LibraryAuthor(firstName: "A", lastName: "Austen", email: "new@example.org"))
        let fetcher = StoredOnlyFetcher(context: context)
        let austen = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Austen" })
        let found = try fetcher.fetch(austen, tables: context.store.entities["LibraryAuthor"]!)
        #expect(found.count == 1 && found[0] === held[0])
        #expect(try fetcher.identifiers(austen) == [held[0].persistentModelID])
        #expect(try fetcher.count(austen) == 1)
    }
}

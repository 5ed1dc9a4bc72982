import Foundation
import Testing

@testable import Cairn

/// Fetches that leave the context's unsaved changes out: evaluated on images of the stored rows
/// (`StoredImages`), never on the context's instances, and answered with the context's instances.
@Suite struct StoredOnlyFetcherTests {
    func storedOnly<T>(_ predicate: Predicate<T>) -> FetchDescriptor<T> {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        return descriptor
    }

    @Test func unsavedChangesAreLeftOutAndTheContextsInstancesComeBack() throws {
        let context = try savedAuthorsLibrary()
        let held = try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Austen" }))
        held[0].lastName = "Changed"
        context.insert(LibraryAuthor(firstName: "A", lastName: "Austen", email: "new@example.org"))
        let fetcher = StoredOnlyFetcher(context: context)
        let austen = storedOnly(#Predicate<LibraryAuthor> { $0.lastName == "Austen" })
        let found = try fetcher.fetch(FetchRequest(austen, tables: context.store.entities["LibraryAuthor"]!))
        #expect(found.count == 1 && found[0] === held[0])
        #expect(try context.fetch(austen).map(ObjectIdentifier.init) == [ObjectIdentifier(held[0])])
        #expect(try context.fetchIdentifiers(austen) == [held[0].persistentModelID])
        #expect(try context.fetchCount(austen) == 1)
        #expect(held[0].lastName == "Changed", "the context's instance keeps its unsaved value")
    }

    /// A predicate that goes through a relationship reads the related model's stored values too,
    /// not the unsaved ones of the context's instance.
    @Test func aPredicateThroughARelationshipSeesTheStoredValues() throws {
        let context = try savedAuthorsLibrary()
        let austen = try #require(
            try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Austen" })).first)
        austen.lastName = "Changed"
        let byAuthor = storedOnly(#Predicate<LibraryBook> { $0.author?.lastName == "Austen" })
        let books = try context.fetch(byAuthor)
        #expect(books.map(\.isbn).sorted() == ["0-0", "0-1"])
        #expect(books.allSatisfy { $0.modelContext === context && $0.author === austen })
        #expect(try context.fetchCount(byAuthor) == 2)
        var pending = byAuthor
        pending.includePendingChanges = true
        #expect(try context.fetch(pending).isEmpty, "with pending changes, the unsaved name counts")
    }

    /// A matching row the context held no instance of joins it with the stored values it was
    /// judged by: the next fetch finds the same instance, and its relationships load through the
    /// context.
    @Test func aRowTheContextDidNotHoldJoinsIt() throws {
        let context = try savedAuthorsLibrary()
        context.insert(LibraryAuthor(firstName: "B", lastName: "Brontë", email: "unsaved@example.org"))
        let bronte = try context.fetch(storedOnly(#Predicate<LibraryAuthor> { $0.lastName == "Brontë" }))
        #expect(bronte.count == 1 && bronte[0].modelContext === context)
        #expect(bronte[0].email == "1@example.org" && !bronte[0].hasChanges)
        let again = try context.fetch(
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.email == "1@example.org" }))
        #expect(again.count == 1 && again[0] === bronte[0])
        #expect(bronte[0].books.map(\.isbn).sorted() == ["1-0", "1-1"])
        #expect(bronte[0].books.allSatisfy { $0.modelContext === context && $0.author === bronte[0] })
        #expect(try context.invariantViolations().isEmpty)
    }

    /// Sorting, the offset and the limit apply to the stored values, and a pending delete of a
    /// stored model does not hide it.
    @Test func theOrderIsTheStoredOrder() throws {
        let context = try savedAuthorsLibrary()
        let authors = try context.fetch(FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)]))
        authors[0].lastName = "Zola"  // Austen, unsaved
        context.delete(authors[1])  // Brontë, unsaved
        var descriptor = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)])
        descriptor.includePendingChanges = false
        #expect(try context.fetch(descriptor).map(\.email) == ["0@example.org", "1@example.org", "2@example.org"])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map { $0 === authors[1] } == [true])
    }
}

import Foundation
import Testing

@testable import Cairn

/// Defects a review of the fetching work found, each fixed.
@Suite struct FetchReviewRegressionTests {
    func rankedContainer(_ count: Int = 20) throws -> ModelContainer {
        let container = try makeContainer(RankedItem.self, in: TemporaryDirectory(), named: "Review.store")
        let context = ModelContext(container)
        for n in 0..<count { context.insert(RankedItem(rank: n, group: n % 2, label: "item \(n)")) }
        try context.save()
        return container
    }

    /// Another context's save reached the index but not this context's unchanged models, so an
    /// index-ordered fetch sorted by stale values. A fetch now refreshes unchanged models whose row
    /// was rewritten; models with unsaved changes keep them.
    @Test func aFetchRefreshesUnchangedModelsThatAnotherContextSaved() throws {
        let container = try rankedContainer()
        let mine = ModelContext(container)
        let held = try mine.fetch(FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)]))
        #expect(held[0].rank == 0)
        let other = ModelContext(container)
        let five = try #require(
            try other.fetch(FetchDescriptor<RankedItem>(predicate: #Predicate { $0.rank == 5 })).first)
        five.rank = -1
        let seven = try #require(
            try other.fetch(FetchDescriptor<RankedItem>(predicate: #Predicate { $0.rank == 7 })).first)
        seven.label = "theirs"
        try other.save()
        held[7].label = "mine"  // an unsaved change here: it stays

        var first = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)])
        first.fetchLimit = 1
        let top = try mine.fetch(first)
        #expect(top.first === held[5] && held[5].rank == -1)
        let all = try mine.fetch(FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)]))
        #expect(all.map(\.rank) == [-1, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
        #expect(held[7].label == "mine", "a model with unsaved changes keeps them")
    }

    /// A model fetched with propertiesToFetch and changed is completed before its unique keys
    /// are computed, instead of reading an unloaded attribute.
    @Test func aPartlyLoadedModelWithACompoundUniqueSaves() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        context.insert(LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "ja@example.org"))
        try context.save()
        let fresh = ModelContext(container)
        var descriptor = FetchDescriptor<LibraryAuthor>()
        descriptor.propertiesToFetch = [\.email]
        let author = try #require(try fresh.fetch(descriptor).first)
        author.email = "jane@example.org"
        try fresh.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<LibraryAuthor>())
        #expect(stored.map { "\($0.firstName) \($0.lastName) \($0.email)" } == ["Jane Austen jane@example.org"])
    }

    /// A block that deletes a later match and saves no longer leads to reading a deleted row.
    @Test func enumerateSkipsMatchesDeletedAndSavedByTheBlock() throws {
        let container = try rankedContainer()
        let context = ModelContext(container)
        var seen: [Int] = []
        try context.enumerate(FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)]), batchSize: 4) { item in
            seen.append(item.rank)
            if item.rank == 2 {
                let victim = try #require(
                    try context.fetch(FetchDescriptor<RankedItem>(predicate: #Predicate { $0.rank == 9 })).first)
                context.delete(victim)
                try context.save()
            }
        }
        #expect(seen == Array(0..<20).filter { $0 != 9 })
    }

    /// An offset plus `Int.max` as the limit overflowed.
    @Test func aLimitOfIntMaxAfterAnOffsetDoesNotOverflow() throws {
        let context = ModelContext(try rankedContainer())
        var descriptor = FetchDescriptor<RankedItem>(sortBy: [SortDescriptor(\.rank)])
        descriptor.fetchOffset = 3
        descriptor.fetchLimit = .max
        #expect(try context.fetch(descriptor).map(\.rank) == Array(3..<20))
        #expect(try context.fetchIdentifiers(descriptor).count == 17)
        #expect(try context.fetchCount(descriptor) == 17)
        #expect(try context.explain(descriptor).estimatedRows == 20)
    }
}

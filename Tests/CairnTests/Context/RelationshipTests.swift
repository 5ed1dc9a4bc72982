import Foundation
import Testing

@testable import Cairn

@Suite struct RelationshipTests {
    @Test func settingEitherSideUpdatesTheOtherWithoutDuplicates() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let thoreau = LibraryAuthor(firstName: "Henry", lastName: "Thoreau", email: "ht@example.org")
        let emerson = LibraryAuthor(firstName: "Ralph", lastName: "Emerson", email: "re@example.org")
        let walden = LibraryBook(isbn: "1", title: "Walden")
        let nature = LibraryBook(isbn: "2", title: "Nature")
        context.insert(thoreau)
        context.insert(emerson)
        walden.author = thoreau
        #expect(thoreau.books.map(\.title) == ["Walden"], "the to-many side follows the to-one side")
        #expect(walden.modelContext === context, "a related model joins the context")
        thoreau.books.append(nature)
        #expect(nature.author === thoreau, "the to-one side follows the to-many side")
        nature.author = thoreau
        thoreau.books = thoreau.books
        #expect(thoreau.books.count == 2, "setting both sides adds no duplicate")
        nature.author = emerson
        #expect(thoreau.books.map(\.title) == ["Walden"] && emerson.books.map(\.title) == ["Nature"])
        thoreau.books = []
        #expect(walden.author == nil)
    }

    /// A to-one is reported as one old and one new target: a fault's stored one (not loaded)
    /// loses the model when it moves, in memory and after a save and reopen; clearing it detaches.
    @Test func movingAToOneOfAFaultTakesItFromItsStoredOwner() throws {
        let directory = TemporaryDirectory()
        do {
            let context = ModelContext(try libraryContainer(directory))
            let thoreau = LibraryAuthor(firstName: "Henry", lastName: "Thoreau", email: "ht@example.org")
            context.insert(thoreau)
            for title in ["Walden", "Cape Cod"] { thoreau.books.append(LibraryBook(isbn: title, title: title)) }
            context.insert(LibraryAuthor(firstName: "Ralph", lastName: "Emerson", email: "re@example.org"))
            try context.save()
        }
        let context = ModelContext(try libraryContainer(directory))
        let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.title)]))
        let authors = try context.fetch(FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)]))
        let (emerson, thoreau) = (authors[0], authors[1])
        let (capeCod, walden) = (books[0], books[1])
        walden.author = emerson  // its stored author was never read
        #expect(emerson.books.map(\.title) == ["Walden"] && thoreau.books.map(\.title) == ["Cape Cod"])
        capeCod.author = nil
        #expect(thoreau.books.isEmpty)
        walden.author = emerson  // the same again: nothing moves
        #expect(emerson.books.map(\.title) == ["Walden"])
        try context.save()
        let reopened = ModelContext(try libraryContainer(directory))
        let stored = try reopened.fetch(FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)]))
        #expect(stored[0].books.map(\.title) == ["Walden"] && stored[1].books.isEmpty)
        let orphan = try reopened.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.title == "Cape Cod" }))
        #expect(orphan.count == 1 && orphan[0].author == nil)
    }

    @Test func aGraphReopensIdentically() throws {
        let directory = TemporaryDirectory()
        let (authorID, bookIDs): (PersistentIdentifier, [PersistentIdentifier])
        do {
            let context = ModelContext(try libraryContainer(directory))
            let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "ja@example.org")
            let books = ["Emma", "Persuasion", "Sanditon"].enumerated().map { LibraryBook(isbn: "\($0)", title: $1) }
            author.books = books
            books[0].chapters = (1...3).map { LibraryChapter(title: "Chapter \($0)", number: $0) }
            context.insert(author)
            try context.save()
            authorID = author.persistentModelID
            bookIDs = books.map(\.persistentModelID)
            #expect(!context.hasChanges && books.allSatisfy { !$0.persistentModelID.isTemporary })
        }
        let context = ModelContext(try libraryContainer(directory))
        let author = try #require(context.model(for: authorID) as? LibraryAuthor)
        #expect(author.books.map(\.title) == ["Emma", "Persuasion", "Sanditon"])
        #expect(author.books.map(\.persistentModelID) == bookIDs)
        #expect(author.books.allSatisfy { $0.author === author }, "both directions were stored")
        let emma = author.books[0]
        #expect(emma.chapters.map(\.number) == [1, 2, 3] && emma.chapters.allSatisfy { $0.book === emma })
        #expect(author.books[1].chapters.isEmpty && !context.hasChanges)
    }

    @Test func aThousandMemberToManyKeepsItsOrderThroughMovesRemovalsAndReopen() throws {
        let directory = TemporaryDirectory()
        var expected: [String] = []
        let categoryID: PersistentIdentifier
        do {
            let context = ModelContext(try libraryContainer(directory))
            let root = LibraryCategory(name: "root")
            context.insert(root)
            root.children = (0..<1000).map { LibraryCategory(name: "c\($0)") }
            try context.save()
            var children = root.children
            children.reverse()
            children.swapAt(0, 500)
            children.remove(at: 10)
            children.removeLast(5)
            children.insert(children.remove(at: 700), at: 3)
            root.children = children
            expected = children.map(\.name)
            try context.save()
            categoryID = root.persistentModelID
        }
        let context = ModelContext(try libraryContainer(directory))
        let root = try #require(context.model(for: categoryID) as? LibraryCategory)
        #expect(root.children.count == 994)
        #expect(root.children.map(\.name) == expected)
        #expect(root.children.allSatisfy { $0.parent === root })
    }

    @Test func manyToManyAndSelfReferentialRelationshipsRoundTrip() throws {
        let directory = TemporaryDirectory()
        let (awardID, parentID): (PersistentIdentifier, PersistentIdentifier)
        do {
            let context = ModelContext(try libraryContainer(directory))
            let award = LibraryAward(name: "Prize")
            let a = LibraryAuthor(firstName: "A", lastName: "One", email: "a@x")
            let b = LibraryAuthor(firstName: "B", lastName: "Two", email: "b@x")
            context.insert(award)
            award.winners = [a, b]
            #expect(a.awards.map(\.name) == ["Prize"] && b.awards.count == 1)
            let parent = LibraryCategory(name: "parent")
            let child = LibraryCategory(name: "child")
            context.insert(parent)
            child.parent = parent
            #expect(parent.children.map(\.name) == ["child"])
            try context.save()
            (awardID, parentID) = (award.persistentModelID, parent.persistentModelID)
        }
        let context = ModelContext(try libraryContainer(directory))
        let award = try #require(context.model(for: awardID) as? LibraryAward)
        #expect(award.winners.map(\.firstName) == ["A", "B"])
        #expect(award.winners.allSatisfy { $0.awards.contains { $0 === award } })
        let parent = try #require(context.model(for: parentID) as? LibraryCategory)
        #expect(parent.children.map(\.name) == ["child"] && parent.children[0].parent === parent)
    }

    @Test func rollbackRestoresRelationships() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let author = LibraryAuthor(firstName: "Mary", lastName: "Shelley", email: "ms@example.org")
        let book = LibraryBook(isbn: "9", title: "Frankenstein")
        author.books = [book]
        context.insert(author)
        try context.save()
        let stray = LibraryBook(isbn: "10", title: "The Last Man")
        author.books.append(stray)
        book.author = nil
        #expect(author.books.map(\.title) == ["The Last Man"])
        context.rollback()
        #expect(author.books.map(\.title) == ["Frankenstein"] && book.author === author)
        #expect(stray.modelContext == nil)
    }
}

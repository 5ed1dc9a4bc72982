import Foundation
import Testing

@testable import Cairn

@Suite struct UniquenessTests {
    @Test func anInsertWithAStoredUniqueValueUpdatesThatModel() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let first = ModelContext(container)
        let original = LibraryBook(isbn: "978-1", title: "Draft title")
        first.insert(original)
        try first.save()
        let second = ModelContext(container)
        let replacement = LibraryBook(isbn: "978-1", title: "Final title")
        second.insert(replacement)
        try second.save()
        #expect(replacement.persistentModelID == original.persistentModelID, "it took over the stored row")
        #expect(try rowCount("LibraryBook", in: container) == 1)
        let reopened = ModelContext(try libraryContainer(directory))
        let stored = try #require(reopened.model(for: original.persistentModelID) as? LibraryBook)
        #expect(stored.title == "Final title")
    }

    /// The instance a context held for a row an insert took over leaves its identity map: its
    /// later changes are not the context's, and a save writes none of them.
    @Test func theInstanceARowHadBeforeATakeoverIsNoLongerTracked() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let seeding = ModelContext(container)
        seeding.insert(LibraryBook(isbn: "978-1", title: "Draft title"))
        try seeding.save()
        let context = ModelContext(container)
        let held = try #require(try context.fetch(FetchDescriptor<LibraryBook>()).first)
        let replacement = LibraryBook(isbn: "978-1", title: "Final title")
        context.insert(replacement)
        try context.save()
        #expect(context.model(for: held.persistentModelID) === replacement)
        held.title = "Left behind"
        #expect(!context.hasChanges, "a change of the instance left out is not tracked")
        replacement.title = "Tracked"
        #expect(context.hasChanges)
        try context.save()
        let stored = try #require(
            try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()).first)
        #expect(stored.title == "Tracked")
    }

    /// Unique values are compared as Swift compares strings: canonically equivalent spellings are
    /// one value, so the second insert takes over the first one's row.
    @Test func canonicallyEquivalentStringsAreOneUniqueValue() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let precomposed = LibraryBook(isbn: "caf\u{E9}", title: "First")
        context.insert(precomposed)
        try context.save()
        let decomposed = LibraryBook(isbn: "cafe\u{301}", title: "Second")
        context.insert(decomposed)
        try context.save()
        #expect(decomposed.persistentModelID == precomposed.persistentModelID)
        #expect(try rowCount("LibraryBook", in: container) == 1)
        let fresh = ModelContext(container)
        let books = try fresh.fetch(FetchDescriptor<LibraryBook>())
        #expect(books.map(\.title) == ["Second"])
        #expect(books.first?.isbn.unicodeScalars.count == 5, "the record keeps the spelling that was saved")
    }

    @Test func compoundAndSingleConstraintsBothMatch() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(LibraryAuthor(firstName: "Mary", lastName: "Shelley", email: "mary@example.org"))
        try context.save()
        // Same names, new email: the compound constraint matches; the old email is freed.
        let renamed = LibraryAuthor(firstName: "Mary", lastName: "Shelley", email: "mws@example.org")
        context.insert(renamed)
        try context.save()
        #expect(try rowCount("LibraryAuthor", in: container) == 1)
        // The freed email can be used by someone else; the new one matches by email.
        context.insert(LibraryAuthor(firstName: "Percy", lastName: "Shelley", email: "mary@example.org"))
        let byEmail = LibraryAuthor(firstName: "M. W.", lastName: "Shelley", email: "mws@example.org")
        context.insert(byEmail)
        try context.save()
        #expect(try rowCount("LibraryAuthor", in: container) == 2)
        #expect(byEmail.persistentModelID == renamed.persistentModelID)
        let all = try ModelContext(container).fetch(FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.email)]))
        #expect(all.map(\.email) == ["mary@example.org", "mws@example.org"])
        #expect(all.map(\.firstName) == ["Percy", "M. W."])
    }

    @Test func theLastOfDuplicateInsertsInOneSaveWins() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let first = LibraryBook(isbn: "5", title: "first")
        let second = LibraryBook(isbn: "5", title: "second")
        context.insert(first)
        context.insert(second)
        try context.save()
        #expect(try rowCount("LibraryBook", in: container) == 1)
        #expect(first.modelContext == nil && !second.persistentModelID.isTemporary)
        #expect(try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()).map(\.title) == ["second"])
    }

    @Test func aChangeIntoAnotherModelsUniqueValueIsRefusedButASwapWorks() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let one = LibraryBook(isbn: "1", title: "One")
        let two = LibraryBook(isbn: "2", title: "Two")
        context.insert(one)
        context.insert(two)
        try context.save()
        two.isbn = "1"
        #expect { try context.save() } throws: { error in
            guard let error = error as? SaveError, error.code == .uniquenessViolated else { return false }
            return Set(error.models) == [one.persistentModelID, two.persistentModelID]
        }
        one.isbn = "2"
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
        #expect(stored.map(\.title) == ["Two", "One"])
    }

    @Test func aDeletedModelsUniqueValueIsFreeInTheSameSave() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let old = LibraryBook(isbn: "7", title: "Old")
        context.insert(old)
        try context.save()
        context.delete(old)
        let new = LibraryBook(isbn: "7", title: "New")
        context.insert(new)
        try context.save()
        #expect(new.persistentModelID != old.persistentModelID && old.isDeleted)
        #expect(try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()).map(\.title) == ["New"])
    }

    @Test func aTakeoverThatSetsARelationshipReleasesTheRowsOldTargets() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try libraryContainer(directory))
        let author = LibraryAuthor(firstName: "Bram", lastName: "Stoker", email: "bs@example.org")
        let oldBook = LibraryBook(isbn: "100", title: "The Snake's Pass")
        author.books = [oldBook]
        context.insert(author)
        try context.save()
        let update = LibraryAuthor(firstName: "Bram", lastName: "Stoker", email: "bs@example.org")
        let newBook = LibraryBook(isbn: "101", title: "Dracula")
        update.books = [newBook]
        context.insert(update)
        try context.save()
        #expect(update.persistentModelID == author.persistentModelID)
        #expect(oldBook.author == nil, "the old book no longer points at the row")
        let reopened = ModelContext(try libraryContainer(directory))
        let stored = try #require(reopened.model(for: author.persistentModelID) as? LibraryAuthor)
        #expect(stored.books.map(\.title) == ["Dracula"])
        let snake = try #require(
            try reopened.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "100" })).first)
        #expect(snake.author == nil)
    }
}

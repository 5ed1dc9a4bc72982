import Foundation
import Testing

@testable import Cairn

/// The save planner on its own: what a save would write, decided before any write transaction,
/// with nothing written and the context's changes left as they were.
@Suite struct SavePlannerTests {
    func library() throws -> (ModelContainer, ModelContext) {
        let container = try libraryContainer(TemporaryDirectory())
        return (container, ModelContext(container))
    }

    @Test func insertsBecomeNewRowsWithTheirClaimsAndEdges() throws {
        let (_, context) = try library()
        let book = LibraryBook(isbn: "1", title: "One")
        book.chapters = [LibraryChapter(title: "a", number: 1), LibraryChapter(title: "b", number: 2)]
        context.insert(book)
        let planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
        #expect(planned.plan.newRows.count == 3 && planned.inserted.count == 3)
        #expect(planned.newIdentifiers.count == 3 && planned.updatedIdentifiers.isEmpty)
        #expect(planned.newIdentifiers == planned.inserted.map(\.persistentModelID))
        // The book's isbn is its one unique claim; the chapters' list and each chapter's book
        // are relationship lists naming new rows by position.
        #expect(planned.plan.uniqueClaims.count == 1)
        let (lists, kinds) = (planned.plan.edgeLists, planned.plan.edgeKinds)
        #expect(lists.contains { kinds[$0.kind].relationship.name == "chapters" && $0.targets.count == 2 })
        #expect(lists.filter { kinds[$0.kind].relationship.name == "book" }.count == 2)
        #expect(kinds.count == 2, "one kind per relationship and owner entity")
        // Planning wrote nothing and changed nothing.
        #expect(context.hasChanges && context.insertedModelsArray.count == 3)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<LibraryBook>()) == 0)
    }

    /// The planner's one pass over the changed models sorts out those whose change reaches more
    /// than their record; the later steps walk only these.
    @Test func changedModelsAreSortedByWhatTheirChangeReaches() throws {
        let context = try savedAuthorsLibrary()
        let tables = context.store.entities["LibraryBook"]!
        let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
        books[0].title = "Retitled"  // the record only
        books[1].isbn = "9-9"  // a unique key
        books[2].chapters = [LibraryChapter(title: "One", number: 1)]  // a relationship
        var reaching = ChangeReach()
        for book in books.prefix(3) { reaching.note(book, state: book._$state, tables: tables) }
        #expect(reaching.keys.map(ObjectIdentifier.init) == [ObjectIdentifier(books[1])])
        #expect(reaching.relationships.map(ObjectIdentifier.init) == [ObjectIdentifier(books[2])])
        #expect(reaching.externals.isEmpty)
        // The plan: three records, the unique key moved, the book's chapters rewritten.
        let planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
        #expect(planned.plan.updates.count == 3)
        #expect(planned.plan.uniqueFreed.count == 1 && planned.plan.uniqueClaims.count == 1)
        let kinds = planned.plan.edgeKinds
        #expect(planned.plan.edgeLists.filter { kinds[$0.kind].relationship.name == "chapters" }.count == 1)
    }

    @Test func aLaterInsertWithTheSameUniqueValuesSupersedesTheEarlier() throws {
        let (_, context) = try library()
        let (early, late) = (LibraryBook(isbn: "7", title: "Early"), LibraryBook(isbn: "7", title: "Late"))
        context.insert(early)
        context.insert(late)
        let planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
        #expect(planned.inserted.count == 1 && planned.inserted[0] === late)
        #expect(planned.plan.newRows.count == 1 && planned.plan.uniqueClaims.count == 1)
    }

    @Test func changesAndCascadedDeletesArePlannedFromTheStoredRows() throws {
        let (container, context) = try library()
        let book = LibraryBook(isbn: "1", title: "One")
        book.chapters = [LibraryChapter(title: "a", number: 1)]
        let other = LibraryBook(isbn: "2", title: "Two")
        context.insert(book)
        context.insert(other)
        try context.save()
        other.title = "Two, revised"
        context.delete(book)
        let planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
        // The delete cascades to the chapter; the changed book is one rewritten row.
        #expect(planned.deletes.deleted.count == 2 && planned.plan.deletes.count == 2)
        #expect(planned.changed.count == 1 && planned.changed[0] === other)
        #expect(planned.plan.updates.count == 1 && planned.updatedIdentifiers == [other.persistentModelID])
        #expect(planned.plan.newRows.isEmpty)
        // Nothing was written: the stored rows are still all there.
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<LibraryChapter>()) == 1)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<LibraryChapter>()) == 0)
    }

    @Test func aCountOutOfRangeFailsThePlan() throws {
        let (_, context) = try library()
        let author = LibraryAuthor(firstName: "A", lastName: "B", email: "a@b.c")
        author.awards = (0..<6).map { LibraryAward(name: "\($0)") }
        context.insert(author)
        #expect(throws: SaveError.self) { try SavePlanner(changes: context.changeSet, rows: context.rows).plan() }
        #expect(context.hasChanges)
    }
}

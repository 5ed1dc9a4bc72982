import Cairn
import Foundation
import Testing

// Written as SwiftData code is: what a deleted model reads once the save has deleted it.

@Model final class ShelfOwner {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \ShelfBook.owner) var books: [ShelfBook] = []
    var favourite: ShelfBook?
    init(name: String) { self.name = name }
}

@Model final class ShelfBook {
    var title: String
    var owner: ShelfOwner?
    init(title: String) { self.title = title }
}

@Model final class Patron {
    var name: String
    @Relationship(deleteRule: .noAction, inverse: \Badge.patron) var badges: [Badge] = []
    init(name: String) { self.name = name }
}

@Model final class Badge {
    var label: String
    var patron: Patron?
    init(label: String) { self.label = label }
}

@Model final class Binder {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \Page.binder) var pages: [Page] = []
    init(label: String) { self.label = label }
}

@Model final class Page {
    var number: Int
    var binder: Binder?
    init(number: Int) { self.number = number }
}

@Suite struct DeletedModelTests {
    @Test func aCascadeIsVisibleBeforeTheSave() throws {
        let context = ModelContext(
            try makeContainer(inMemory: Binder.self))
        let kept = Binder(label: "kept")
        let doomed = Binder(label: "doomed")
        context.insert(kept)
        context.insert(doomed)
        for number in 1...3 {
            let page = Page(number: number)
            context.insert(page)
            (number == 1 ? kept : doomed).pages.append(page)
        }
        try context.save()
        let unsaved = Page(number: 4)
        context.insert(unsaved)
        doomed.pages.append(unsaved)

        context.delete(doomed)
        #expect(try context.fetch(FetchDescriptor<Page>()).map(\.number) == [1], "the cascade shows at once")
        #expect(try context.fetchCount(FetchDescriptor<Page>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<Page>(predicate: #Predicate { $0.number > 1 })) == 0)
        var stored = FetchDescriptor<Page>()
        stored.includePendingChanges = false
        #expect(try context.fetchCount(stored) == 3, "the store holds them until the save")

        try context.save()
        #expect(try context.fetch(FetchDescriptor<Page>()).map(\.number) == [1])
        #expect(try context.fetchCount(stored) == 1)
    }

    @Test func aDeletedModelReadsNoRelatedModelsAfterTheSave() throws {
        let context = ModelContext(
            try makeContainer(inMemory: ShelfOwner.self))
        let owner = ShelfOwner(name: "Ada")
        let book = ShelfBook(title: "Notes")
        context.insert(owner)
        context.insert(book)
        owner.books.append(book)
        owner.favourite = book
        try context.save()

        context.delete(owner)
        try context.save()
        #expect(owner.isDeleted)
        #expect(owner.books.isEmpty && owner.favourite == nil)
        #expect(book.owner == nil, "nullified")
        #expect(try context.fetch(FetchDescriptor<ShelfBook>()).map(\.title) == ["Notes"])
    }

    @Test func aNullifyShowsBeforeTheSaveAndATakenBackDeleteRestoresIt() throws {
        let context = ModelContext(
            try makeContainer(inMemory: ShelfOwner.self))
        let owner = ShelfOwner(name: "Ada")
        let (notes, letters) = (ShelfBook(title: "Notes"), ShelfBook(title: "Letters"))
        context.insert(owner)
        owner.books = [notes, letters]
        try context.save()

        context.delete(owner)
        #expect(notes.owner == nil && letters.owner == nil, "nullified at once")
        let ownerless = #Predicate<ShelfBook> { $0.owner == nil }
        #expect(try context.fetchCount(FetchDescriptor(predicate: ownerless)) == 2)
        context.insert(owner)
        #expect(notes.owner === owner && letters.owner === owner, "the delete taken back")
        #expect(owner.books.map(\.title) == ["Notes", "Letters"])

        context.delete(owner)
        context.rollback()
        #expect(notes.owner?.name == "Ada", "a rollback restores the stored relationship")
        context.delete(owner)
        try context.save()
        #expect(notes.owner == nil)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor(predicate: ownerless)) == 2)
    }

    @Test func noActionLeavesTheOtherSideUntilTheSave() throws {
        let context = ModelContext(
            try makeContainer(inMemory: Patron.self))
        let patron = Patron(name: "Ada")
        let badge = Badge(label: "gold")
        context.insert(patron)
        patron.badges.append(badge)
        try context.save()

        context.delete(patron)
        #expect(badge.patron === patron, "untouched")
        try context.save()
        #expect(badge.patron == nil, "after the save no relationship shows a deleted model")
    }
}

import Foundation
import Testing

@testable import Cairn

@Model final class CascadeShelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \CascadeBox.shelf) var boxes: [CascadeBox] = []
    init(name: String) { self.name = name }
}

@Model final class CascadeBox {
    var name: String
    var shelf: CascadeShelf?
    @Relationship(deleteRule: .cascade, inverse: \CascadeItem.box) var items: [CascadeItem] = []
    init(name: String) { self.name = name }
}

@Model final class CascadeItem {
    var name: String
    var box: CascadeBox?
    init(name: String) { self.name = name }
}

@Suite struct DeleteRuleTests {
    @Test func cascadeDeletesThroughThreeLevels() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Boxes.store"))
        let container = try ModelContainer(
            for: CascadeShelf.self, CascadeBox.self, CascadeItem.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let shelf = CascadeShelf(name: "top")
        let other = CascadeShelf(name: "other")
        shelf.boxes = (0..<3).map { box in
            let b = CascadeBox(name: "box\(box)")
            b.items = (0..<4).map { CascadeItem(name: "item\(box)-\($0)") }
            return b
        }
        other.boxes = [CascadeBox(name: "kept")]
        context.insert(shelf)
        context.insert(other)
        try context.save()
        #expect(try rowCount("CascadeItem", in: container) == 12 && rowCount("CascadeBox", in: container) == 4)
        let items = shelf.boxes.flatMap(\.items)
        context.delete(shelf)
        try context.save()
        #expect(try rowCount("CascadeShelf", in: container) == 1)
        #expect(try rowCount("CascadeBox", in: container) == 1 && rowCount("CascadeItem", in: container) == 0)
        #expect(shelf.isDeleted && items.allSatisfy(\.isDeleted))
        let reopened = ModelContext(
            try ModelContainer(
                for: CascadeShelf.self, CascadeBox.self, CascadeItem.self, configurations: ModelConfiguration(url: url))
        )
        let kept = try #require(reopened.model(for: other.persistentModelID) as? CascadeShelf)
        #expect(kept.boxes.map(\.name) == ["kept"])
    }

    @Test func nullifyRemovesTheDeletedModelFromTheOtherSide() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try libraryContainer(directory))
        let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "ja@example.org")
        let emma = LibraryBook(isbn: "1", title: "Emma")
        let persuasion = LibraryBook(isbn: "2", title: "Persuasion")
        emma.chapters = [LibraryChapter(title: "One", number: 1)]
        author.books = [emma, persuasion]
        context.insert(author)
        try context.save()
        context.delete(emma)
        try context.save()
        #expect(author.books.map(\.title) == ["Persuasion"], "the loaded inverse dropped the deleted book")
        #expect(!author.hasChanges, "nullifying is the store's doing, not a change to save")
        let reopened = ModelContext(try libraryContainer(directory))
        let stored = try #require(reopened.model(for: author.persistentModelID) as? LibraryAuthor)
        #expect(stored.books.map(\.title) == ["Persuasion"])
        #expect(try rowCount("LibraryChapter", in: reopened.container) == 0, "a book's chapters cascade")
    }

    @Test func denyRefusesTheSaveWritesNothingAndAFixedSaveCommitsEverything() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        let author = LibraryAuthor(firstName: "Ann", lastName: "Radcliffe", email: "ar@example.org")
        let award = LibraryAward(name: "Gothic")
        author.awards = [award]
        context.insert(author)
        try context.save()
        let newcomer = LibraryBook(isbn: "3", title: "Udolpho")
        context.insert(newcomer)
        context.delete(author)
        #expect { try context.save() } throws: { error in
            guard let error = error as? SaveError, error.code == .deleteDenied else { return false }
            return error.models == [award.persistentModelID] && error.message.contains("awards")
        }
        #expect(try rowCount("LibraryAuthor", in: container) == 1 && rowCount("LibraryBook", in: container) == 0)
        #expect(context.hasChanges && newcomer.persistentModelID.isTemporary && !author.isDeleted)
        author.awards = []
        try context.save()
        #expect(author.isDeleted && !newcomer.persistentModelID.isTemporary)
        #expect(try rowCount("LibraryAuthor", in: container) == 0 && rowCount("LibraryBook", in: container) == 1)
        #expect(award.winners.isEmpty)
    }

    @Test func relationshipCountsAreCheckedAtSave() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let author = LibraryAuthor(firstName: "Prolific", lastName: "Writer", email: "pw@example.org")
        author.awards = (0..<6).map { LibraryAward(name: "Award \($0)") }
        context.insert(author)
        #expect { try context.save() } throws: { ($0 as? SaveError)?.code == .modelCountOutOfRange }
        author.awards.removeLast()
        try context.save()
        #expect(!context.hasChanges)
    }
}

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

@Suite struct DeletedModelTests {
    @Test func aDeletedModelReadsNoRelatedModelsAfterTheSave() throws {
        let context = ModelContext(
            try ModelContainer(for: ShelfOwner.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
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
}

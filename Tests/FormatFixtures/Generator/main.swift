// Writes the store the format fixtures test reads back: built against one commit of Cairn by
// Scripts/make-format-fixture, so that the store is in the on-disk format of that commit. It uses
// only the API every format version has had (models, a unique attribute, a to-many relationship
// with its inverse, optional values, three saves that insert, update and delete). Keep it so:
// Tests/CairnTests/Storage/FormatFixtureTests.swift declares the same models and expects exactly
// what this writes.
import Cairn
import Foundation

@Model final class FixtureAuthor {
    @Attribute(.unique) var name: String
    var born: Date?
    var rating: Double
    @Relationship(deleteRule: .cascade, inverse: \FixtureBook.author) var books: [FixtureBook] = []

    init(name: String, born: Date?, rating: Double) {
        self.name = name
        self.born = born
        self.rating = rating
    }
}

@Model final class FixtureBook {
    var title: String
    var year: Int
    var cover: Data?
    var isFavourite: Bool
    var author: FixtureAuthor?

    init(title: String, year: Int, cover: Data?, isFavourite: Bool) {
        self.title = title
        self.year = year
        self.cover = cover
        self.isFavourite = isFavourite
    }
}

let url = URL(fileURLWithPath: CommandLine.arguments[1])
let container = try ModelContainer(
    for: FixtureAuthor.self, FixtureBook.self, configurations: ModelConfiguration(url: url))
let context = ModelContext(container)
let austen = FixtureAuthor(name: "Jane Austen", born: Date(timeIntervalSince1970: -6_106_060_800), rating: 4.5)
let shelley = FixtureAuthor(name: "Mary Shelley", born: nil, rating: 4.25)
context.insert(austen)
context.insert(shelley)
for (title, year, author) in [
    ("Emma", 1815, austen), ("Persuasion", 1817, austen), ("Frankenstein", 1818, shelley),
    ("Lodore", 1835, shelley),
] {
    let book = FixtureBook(title: title, year: year, cover: Data(title.utf8), isFavourite: year < 1818)
    context.insert(book)
    book.author = author
}
try context.save()
// An update and a delete, so the history holds each kind of entry.
let books = try context.fetch(FetchDescriptor<FixtureBook>())
books.first { $0.title == "Persuasion" }!.isFavourite = false
try context.save()
context.delete(books.first { $0.title == "Lodore" }!)
try context.save()
print("wrote \(url.path)")

import Cairn
import Foundation

// The small library the demo saves: authors write books, books have ordered chapters and share tags.

@Model final class Author {
    var name: String
    var born: Int
    @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []

    init(name: String, born: Int) {
        self.name = name
        self.born = born
    }
}

@Model final class Book {
    var title: String
    var year: Int
    var author: Author?
    @Relationship(deleteRule: .cascade, inverse: \Chapter.book) var chapters: [Chapter] = []
    var tags: [Tag] = []

    init(title: String, year: Int) {
        self.title = title
        self.year = year
    }
}

@Model final class Chapter {
    var number: Int
    var title: String
    var book: Book?

    init(number: Int, title: String) {
        self.number = number
        self.title = title
    }
}

@Model final class Tag {
    var name: String
    var books: [Book] = []

    init(name: String) { self.name = name }
}

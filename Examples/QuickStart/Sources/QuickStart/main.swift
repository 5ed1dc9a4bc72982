import Cairn
import Foundation

@Model final class Author {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var author: Author?
    init(title: String) { self.title = title }
}

let store = URL(fileURLWithPath: "Library.store")
let context = ModelContext(try ModelContainer(for: Author.self, Book.self, configurations: ModelConfiguration(url: store)))
let austen = Author(name: "Jane Austen")
austen.books = [Book(title: "Emma"), Book(title: "Persuasion")]
context.insert(austen)
try context.save()
let emma = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Emma" }))
print(emma.first?.author?.name ?? "not found")  // Jane Austen

import Foundation

@testable import Cairn

/// A container for the library models of `SchemaMetadataTests`, in `directory`.
func libraryContainer(_ directory: TemporaryDirectory) throws -> ModelContainer {
    try makeContainer(LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self, in: directory, named: "Library.store")
}

/// The number of stored rows of an entity, read straight from its table.
func rowCount(_ entity: String, in container: ModelContainer) throws -> Int {
    let records = container.store.entities[entity]!.layout.records
    return try container.store.environment.read { txn in try txn.count(of: records) }
}

/// A library of three authors with two books each, saved, and a new context on it.
func savedAuthorsLibrary() throws -> ModelContext {
    let container = try libraryContainer(TemporaryDirectory())
    let writer = ModelContext(container)
    for (index, name) in ["Austen", "Brontë", "Chekhov"].enumerated() {
        let author = LibraryAuthor(firstName: "A", lastName: name, email: "\(index)@example.org")
        author.books = (0..<2).map { LibraryBook(isbn: "\(index)-\($0)", title: "\(name) \($0)") }
        writer.insert(author)
    }
    try writer.save()
    return ModelContext(container)
}

import Foundation

@testable import Cairn

/// A container for the library models of `SchemaMetadataTests`, in `directory`.
func libraryContainer(_ directory: TemporaryDirectory) throws -> ModelContainer {
    try ModelContainer(
        for: LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self,
        configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child("Library.store"))))
}

/// The number of stored rows of an entity, read straight from its table.
func rowCount(_ entity: String, in container: ModelContainer) throws -> Int {
    let records = container.store.entities[entity]!.records
    return try container.store.environment.read { txn in try txn.count(of: records) }
}

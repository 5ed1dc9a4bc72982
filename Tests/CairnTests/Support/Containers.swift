import Cairn
import Foundation

/// A container for `models` whose store is `name` inside `directory`: what most tests open, in
/// one line.
///
/// ```swift
/// let directory = TemporaryDirectory()
/// let container = try makeContainer(Book.self, Author.self, in: directory)
/// ```
func makeContainer(
    _ models: any PersistentModel.Type..., in directory: TemporaryDirectory, named name: String = "Test.store"
) throws -> ModelContainer {
    try ModelContainer(
        for: Schema(models), configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child(name))))
}

/// A container for `models` whose store lives in memory, as long as the container.
///
/// ```swift
/// let container = try makeContainer(inMemory: Book.self)
/// ```
func makeContainer(inMemory models: any PersistentModel.Type...) throws -> ModelContainer {
    try ModelContainer(for: Schema(models), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

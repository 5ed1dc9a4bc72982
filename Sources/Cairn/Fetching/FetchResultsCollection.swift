import Foundation

/// The models that match a descriptor, loaded a batch at a time as they are used, as
/// ``ModelContext/fetch(_:batchSize:)`` returns them.
///
/// The collection holds the matches' identifiers in the descriptor's order and, at any time, one
/// batch of loaded models: reading an element of another batch loads that whole batch in one read
/// transaction. Models of earlier batches that nothing else holds are released, so walking the
/// collection takes memory for one batch, not for every match.
///
/// ```swift
/// let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), batchSize: 500)
/// for book in books { print(book.title) }
/// ```
///
/// The collection belongs to the context's executor, like the context. A model whose row was
/// deleted from the store after the collection was made comes back unloaded, as
/// ``ModelContext/model(for:)`` returns it (``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``
/// skips such models).
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    final class Storage {
        /// Loads the batches; it holds the context and the descriptor.
        let loader: BatchLoader<Element>
        let entries: [BatchLoader<Element>.Match]
        let batchSize: Int
        var loadedBatch = -1
        var batch: [Element?] = []

        init(loader: BatchLoader<Element>, entries: [BatchLoader<Element>.Match], batchSize: Int) {
            self.loader = loader
            self.entries = entries
            self.batchSize = batchSize
        }

        /// The model at `position`, or `nil` when its row is gone from the store.
        func loadedElement(at position: Int) -> Element? {
            let number = position / batchSize
            if number != loadedBatch {
                // The previous batch goes: the context lets go of the models only it still holds.
                let previous = batch.compactMap { $0?.persistentModelID }
                batch = []
                loader.context.identity.releaseIfUnused(previous)
                let start = number * batchSize
                batch = loader.load(entries[start..<start + Swift.min(batchSize, entries.count - start)])
                loadedBatch = number
            }
            return batch[position - number * batchSize]
        }

        func element(at position: Int) -> Element {
            loadedElement(at: position) ?? loader.context.model(for: entries[position].identifier) as! Element
        }
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// Models already loaded, in their order: one batch holding them all (a results observer's
    /// results).
    init(loaded models: [Element], in context: ModelContext, descriptor: FetchDescriptor<Element>) {
        storage = Storage(
            loader: BatchLoader(context: context, descriptor: descriptor),
            entries: models.map { .stored($0.persistentModelID) }, batchSize: Swift.max(models.count, 1))
        storage.loadedBatch = 0
        storage.batch = models
    }

    /// The first position, 0.
    ///
    /// ```swift
    /// let first = books[books.startIndex]
    /// ```
    public var startIndex: Int { 0 }
    /// One past the last position: the number of matches.
    ///
    /// ```swift
    /// print(books.endIndex)
    /// ```
    public var endIndex: Int { storage.entries.count }

    /// The model at `position`, loading its batch when it is not the one in memory.
    ///
    /// ```swift
    /// let tenth = books[9]
    /// ```
    public subscript(position: Int) -> Element {
        precondition(
            position >= 0 && position < endIndex,
            "FetchResultsCollection: index \(position) is out of bounds (count \(endIndex))")
        return storage.element(at: position)
    }
}

extension FetchResultsCollection {
    /// Calls `block` with every model, a batch at a time, skipping models whose rows are gone
    /// (``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``). Unless
    /// `allowEscapingMutations`, a context with different unsaved changes after a batch stops it
    /// with ``FetchError/Code-swift.struct/mutationsEscaped``.
    func enumerate(allowEscapingMutations: Bool, block: (Element) throws -> Void) throws {
        let batchSize = storage.batchSize
        let before = changeSnapshot
        var position = 0
        while position < count {
            let end = position + Swift.min(batchSize, count - position)
            // A match deleted and saved since the enumeration began (by the block, say) is skipped.
            for index in position..<end {
                if let model = storage.loadedElement(at: index) { try block(model) }
            }
            position = end
            if !allowEscapingMutations && changeSnapshot != before {
                throw FetchError(
                    code: .mutationsEscaped,
                    message: "The block given to enumerate(_:batchSize:allowEscapingMutations:block:) over "
                        + "\(Element.self) left unsaved changes in the context (after \(end) of \(count) models). "
                        + "Save inside the block, or pass allowEscapingMutations: true to keep the changes for a "
                        + "later save. The changes are still in the context.",
                    model: nil, underlying: "")
            }
        }
    }

    /// The identities of the context's unsaved inserts, changes and deletes.
    private var changeSnapshot: [Set<PersistentIdentifier>] {
        let context = storage.loader.context
        return [
            Set(context.insertedModelsArray.map(\.persistentModelID)),
            Set(context.changedModelsArray.map(\.persistentModelID)),
            Set(context.deletedModelsArray.map(\.persistentModelID)),
        ]
    }
}

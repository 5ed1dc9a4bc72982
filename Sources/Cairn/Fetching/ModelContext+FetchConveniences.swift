import Foundation

extension ModelContext {
    /// The identifiers of the models that match a descriptor, in its order.
    ///
    /// No models are built for the matches beyond what the predicate and sort need: rows are read
    /// in chunks with only the attributes those use decoded, and only identifiers are kept.
    /// Unsaved inserted models that match have temporary identifiers.
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchDescriptor<Book>(predicate: #Predicate { $0.year < 1900 }))
    /// ```
    /// - Throws: What ``fetch(_:)`` throws.
    /// - Complexity: That of ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        try beginStoreAccess()
        return try BatchLoader(context: self, descriptor: descriptor).orderedMatches().map(\.identifier)
    }

    /// The identifiers of the models that match a descriptor, in its order, as SwiftData's
    /// `fetchIdentifiers(_:batchSize:)` gives them. Identifiers are small (16 bytes), so they come
    /// as one array; `batchSize` is checked as ``fetch(_:batchSize:)`` checks it.
    ///
    /// ```swift
    /// for id in try context.fetchIdentifiers(FetchDescriptor<Book>(), batchSize: 1_000) {
    ///     print(id)
    /// }
    /// ```
    /// - Parameters:
    ///   - descriptor: Which models, in what order.
    ///   - batchSize: At least 1.
    /// - Throws: What ``fetch(_:)`` throws; ``FetchError`` with code `.invalidArgument` when
    ///   `batchSize` is less than 1.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> [PersistentIdentifier] {
        guard batchSize > 0 else { throw FetchError.invalidBatchSize(batchSize, of: "fetchIdentifiers(_:batchSize:)") }
        return try fetchIdentifiers(descriptor)
    }

    /// Deletes every model of `model` that matches `predicate` (all of them when `nil`) from the
    /// store at once, as SwiftData's batch delete does, applying their delete rules: another
    /// context or container sees them gone as soon as this returns. Models of this context that
    /// were deleted (matches, and models their cascades took) read `isDeleted`; unsaved inserted
    /// models that match are deleted too, leaving at the next save.
    ///
    /// The matches are found by stored values (a change this context has not saved does not make
    /// a stored model match), and deleted a part at a time without being loaded, so memory stays
    /// flat however many match; see `Docs/Saving.md`, "Batch deletes".
    ///
    /// ```swift
    /// try context.delete(model: Book.self, where: #Predicate { $0.year < 1800 })
    /// ```
    /// - Parameters:
    ///   - model: The model type.
    ///   - predicate: Which models to delete; all when `nil`.
    ///   - includeSubclasses: Whether models of classes that inherit from `model` are deleted
    ///   too (`@Model class Dog: Animal`); when `false`, only models whose class is `model`.
    /// - Throws: What ``fetch(_:)`` throws while finding the matches, and what ``save()`` throws
    ///   while deleting them (``SaveError`` `.deleteDenied` when a deny rule refuses: nothing is
    ///   deleted then).
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        checkOwner()
        var stored = FetchDescriptor<T>(predicate: predicate)
        stored.includePendingChanges = false
        var ids = try fetchIdentifiers(stored)
        let entityName = Schema.entityName(of: T.self)
        if !includeSubclasses { ids.removeAll { $0.entityName != entityName } }
        for inserted in insertedModelsArray {
            guard let inserted = inserted as? T, includeSubclasses || type(of: inserted) == T.self else { continue }
            if try predicate.map({ try $0.evaluate(inserted) }) ?? true { delete(inserted) }
        }
        // Models of this context that the delete took keep no unsaved change or deletion of
        // their own (the store no longer has them to save); catching up with the deletes then
        // marks every one of them deleted.
        defer { refreshIfNeeded() }
        try BatchDeleter(container: container).delete(ids, of: T.self) { deleted in
            for id in deleted {
                guard let model = registered(id) else { continue }
                pending.forget(model)
                model._$state.clearChanges()
            }
        }
    }
}

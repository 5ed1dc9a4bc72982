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
    /// - Throws: What ``fetch(_:)`` throws.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> [PersistentIdentifier] {
        precondition(
            batchSize > 0, "ModelContext.fetchIdentifiers(_:batchSize:): batchSize must be at least 1, not \(batchSize)"
        )
        return try fetchIdentifiers(descriptor)
    }

    /// Marks every model of `model` that matches `predicate` (all of them when `nil`) for deletion,
    /// as in SwiftData; the next ``save()`` deletes them, applying their delete rules.
    ///
    /// ```swift
    /// try context.delete(model: Book.self, where: #Predicate { $0.year < 1800 })
    /// try context.save()
    /// ```
    /// - Parameters:
    ///   - model: The model type.
    ///   - predicate: Which models to delete; all when `nil`.
    ///   - includeSubclasses: Accepted for SwiftData compatibility; Cairn models have no subclasses.
    /// - Throws: What ``fetch(_:)`` throws.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        for match in try fetch(FetchDescriptor<T>(predicate: predicate)) { delete(match) }
    }
}

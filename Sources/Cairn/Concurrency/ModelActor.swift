/// An actor that owns a ``ModelContext`` and runs on that context's executor, as in SwiftData.
/// Declare one with ``ModelActor()``.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importBooks(_ titles: [String]) throws {
///         for title in titles { modelContext.insert(Book(title: title)) }
///         try modelContext.save()
///     }
/// }
///
/// let importer = Importer(modelContainer: container)
/// try await importer.importBooks(["Emma", "Persuasion"])
/// ```
///
/// Its work runs on a ``DefaultSerialModelExecutor``: one job at a time, on a private queue,
/// never on the main thread. Pass ``PersistentIdentifier``s in and out, not models.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    ///
    /// ```swift
    /// let other = ModelContext(importer.modelContainer)
    /// ```
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that owns the actor's context and runs its work.
    ///
    /// ```swift
    /// let executor = importer.modelExecutor
    /// ```
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its ``modelExecutor``, which must be a ``SerialModelExecutor``.
    ///
    /// ```swift
    /// let executor = importer.unownedExecutor   // the Swift runtime uses this
    /// ```
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure(
                "\(Self.self).modelExecutor is a \(type(of: modelExecutor)), not a SerialModelExecutor; a model actor "
                    + "needs a serial executor such as DefaultSerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    ///
    /// ```swift
    /// let books = try modelContext.fetch(FetchDescriptor<Book>())
    /// ```
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with this identifier in the actor's context, or `nil` when no such model is
    /// stored (or it is not a `T`).
    ///
    /// ```swift
    /// if let book = self[id, as: Book.self] { book.title = "Emma" }
    /// ```
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.existingModel(for: id) as? T
    }
}

import Foundation

/// The store your models live in: its schema and its files, shared by every context that works
/// with them. Create one per store and keep it for the life of your program, as in SwiftData.
///
/// Opening a container validates the schema (a ``SchemaError`` says what to fix), opens the
/// store or creates it, and checks that the store can hold the schema: every attribute keeps a
/// stable place in the stored records across runs, renames with `originalName:` included.
///
/// ```swift
/// let container = try ModelContainer(
///     for: Author.self, Book.self,
///     configurations: ModelConfiguration(url: URL(fileURLWithPath: "/var/lib/app/Library.store")))
/// ```
///
/// A container is `Sendable`: share it between tasks and actors freely.
public final class ModelContainer: Sendable {
    /// The models the container stores.
    ///
    /// ```swift
    /// container.schema.entities.map(\.name)
    /// ```
    public let schema: Schema
    /// The configurations the container was opened with (one: Cairn keeps a container's models
    /// in one store), as a set, as SwiftData has it.
    ///
    /// ```swift
    /// container.configurations.first?.url
    /// ```
    public let configurations: Set<ModelConfiguration>
    /// The migration plan the container was opened with.
    let migrationPlan: (any SchemaMigrationPlan.Type)?
    let store: Store
    private let mainContextHolder = MainContextHolder()

    /// The main actor's context, created on first use, which autosaves.
    @MainActor private final class MainContextHolder {
        var context: ModelContext?
        // Containers are created on any thread; the holder starts empty and is used on the main actor.
        nonisolated init() {}
    }

    /// The container's context for the main actor, as in SwiftData. It autosaves: a burst of
    /// changes is saved on the main actor shortly after it.
    ///
    /// ```swift
    /// @MainActor func addBook() {
    ///     container.mainContext.insert(Book(isbn: "978-0", title: "Walden"))   // saved soon after
    /// }
    /// ```
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextHolder.context { return context }
        let context = ModelContext(self)
        context.owner = .mainActor
        _ = ContextOwner.isOnMainActor  // marks the main queue before the first check
        context.autosaveEnabled = true
        mainContextHolder.context = context
        return context
    }

    /// Opens a container for the given model types.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Book.self, Author.self)
    /// ```
    /// - Parameters:
    ///   - forTypes: The model classes to store; the classes their relationships reach are stored too.
    ///   - migrationPlan: How to move the store between schema versions.
    ///   - configurations: Where and how to store the models; one default configuration when empty.
    /// - Throws: ``SchemaError`` when the schema is invalid or the store holds an incompatible one;
    ///   `StorageError` when the store cannot be opened.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a container for a schema.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema([Book.self]), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    /// ```
    /// - Throws: ``SchemaError`` or `StorageError`, as the other initialiser does.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a container for a schema with a list of configurations.
    ///
    /// Cairn keeps all of a container's models in one store, so at most one configuration may be
    /// given; its `schema`, if set, must be the container's.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: schema, configurations: [ModelConfiguration("Library")])
    /// ```
    /// - Throws: ``SchemaError`` or `StorageError` (`StorageError.Code.unsupported`
    ///   for a configuration that asks for CloudKit sync).
    public init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        try givenSchema.validate()
        guard configurations.count <= 1 else {
            throw StorageError(
                code: .other,
                message: "A container takes at most one configuration: Cairn keeps all of a container's models "
                    + "in one store. Open one container per store.")
        }
        let configuration = configurations.first ?? ModelConfiguration()
        if let database = configuration.cloudKitContainerIdentifier {
            throw StorageError(
                code: .unsupported,
                message: "The configuration asks for sync with the CloudKit database '\(database)', which Cairn does "
                    + "not offer: its stores are local. Pass cloudKitDatabase: .none (or .automatic) to open the "
                    + "store without sync.")
        }
        if let configured = configuration.schema, configured != givenSchema {
            try configured.validate()
        }
        schema = configuration.schema ?? givenSchema
        self.configurations = [configuration]
        self.migrationPlan = migrationPlan
        if let migrationPlan {
            var stages = configuration
            stages.schema = nil
            try MigrationRunner(plan: migrationPlan, configuration: stages, target: schema.version).run()
        }
        store = try Store(schema: schema, configuration: configuration)
        try KeyTableFiller(store: store).fill()
        try TextIndexFiller(store: store).fill()
        try VectorIndexFiller(store: store).fill()
    }

    /// The identifier of the container's store, part of every ``PersistentIdentifier`` it hands out.
    ///
    /// ```swift
    /// print(container.storeIdentifier)
    /// ```
    public var storeIdentifier: String { store.identifier }

    /// The identifier of the store of the configuration named `name` (``ModelConfiguration/name``),
    /// or `nil` when the container has no configuration of that name.
    ///
    /// ```swift
    /// let id = container.storeIdentifier(forConfigurationNamed: "Library")
    /// ```
    public func storeIdentifier(forConfigurationNamed name: String) -> String? {
        configurations.contains { $0.name == name } ? store.identifier : nil
    }

    /// What opening the store had to repair, or `nil` when it opened as it was last saved.
    ///
    /// When the newest commit's meta page, or a page only it uses, is damaged while the commit
    /// before it is intact, the store opens at that earlier commit instead of refusing to open:
    /// `StoreRecovery.skippedTransaction` names the commit that was lost. When only the older
    /// meta page was damaged, it is rewritten and nothing is lost. When the damaged page cannot
    /// tell which commit it held (zeroed or overwritten), `skippedTransaction` names the commit
    /// that may have been lost and `StoreRecovery.lossIsCertain` is `false`: Cairn never says
    /// nothing was lost unless it knows. Stores that no meta page leads
    /// to intact data are refused with `StorageError.Code.damaged`. Recovery rewrites a meta
    /// page, so it needs a writable store that no other process has open; otherwise opening
    /// throws and says so.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Book.self)
    /// if let recovery = container.recovery, let lost = recovery.skippedTransaction {
    ///     showAlert("The last save (\(lost)) was damaged on disk and could not be recovered.")
    /// }
    /// ```
    public var recovery: StoreRecovery? { store.environment.recovery }

    /// Deletes every model in the store; the schema stays.
    ///
    /// ```swift
    /// try container.erase()
    /// ```
    /// - Throws: `StorageError` when the store cannot be written.
    public func erase() throws {
        try store.erase()
    }

    /// Deletes every model in the store, as ``erase()`` does, under SwiftData's older name, which
    /// does not throw: it returns whether the store was written instead. Use ``erase()`` to learn
    /// why it was not (a read-only store, a full disk).
    ///
    /// ```swift
    /// container.deleteAllData()
    /// ```
    @discardableResult
    public func deleteAllData() -> Bool {
        do {
            try erase()
            return true
        } catch {
            return false
        }
    }
}

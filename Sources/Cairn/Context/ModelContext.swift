import Foundation

/// A unit of work over a container's store: insert, change and delete models, then save them all
/// at once, as in SwiftData.
///
/// A context keeps one instance per stored model (its identity map). It keeps models with unsaved
/// changes until they are saved, and lets go of the others once nothing else holds them (in sweeps
/// as its map grows), so working through many models in batches does not keep them all alive.
/// Models load their values lazily: a model obtained by identifier is a fault until a property is
/// read.
///
/// ```swift
/// let context = ModelContext(container)
/// let book = Book(isbn: "978-0", title: "Walden")
/// context.insert(book)
/// try context.save()                      // one transaction: all of it or none of it
/// let id = book.persistentModelID         // permanent now
/// ```
///
/// A context is not `Sendable`: use it on the thread or actor that created it, and pass
/// ``PersistentIdentifier``s, not models, between them.
public final class ModelContext {
    /// The container whose store the context works on.
    ///
    /// ```swift
    /// context.container.schema
    /// ```
    public let container: ModelContainer

    /// Whether the context saves by itself after changes, as in SwiftData: on for a container's
    /// `mainContext`, off for contexts you create, which may turn it on.
    ///
    /// A context that autosaves saves once after each burst of changes: when the current turn of
    /// the executor it belongs to is over (the main actor's for `mainContext` and contexts used on
    /// the main thread, the model actor's for a model actor's context and contexts used inside
    /// its work), coalescing every change made in that turn into one save. A context used where
    /// no serial executor runs (a detached task, a thread of its own) has no turn to save after:
    /// save it yourself, or use ``transaction(block:)``. A failed autosave keeps the changes, and
    /// the next burst tries again.
    ///
    /// ```swift
    /// container.mainContext.autosaveEnabled = false   // save explicitly instead
    ///
    /// @ModelActor actor Importer {
    ///     func add(_ title: String) {
    ///         modelContext.autosaveEnabled = true
    ///         modelContext.insert(Book(title: title))   // saved after this call returns
    ///     }
    /// }
    /// ```
    // Like the properties below, used on the context's executor only, and no access to it
    // outlives its statement: no runtime exclusivity checks (a setter's first change made three,
    // a fetch three, each a thread-local lookup and a set insert).
    @exclusivity(unchecked) public var autosaveEnabled = false

    /// Who makes the context's saves, as the history records it: each save's transaction carries
    /// the context's author at the time (``DefaultHistoryTransaction/author``), so a reader of the
    /// history can tell its own changes from those of a widget, an importer or a sync.
    ///
    /// ```swift
    /// let importer = ModelContext(container)
    /// importer.author = "importer"
    /// importer.insert(Book(title: "Walden"))
    /// try importer.save()
    /// // later, anywhere:
    /// let imported = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.author == "importer" }))
    /// ```
    public var author: String?

    /// Whether an autosave is scheduled (see ``AutosaveTicket``).
    @exclusivity(unchecked) var autosaveScheduled = false

    /// Reads stored rows into models, and holds the identity map (see ``RowLoader``).
    let rows: RowLoader
    /// One instance per stored row (see ``IdentityMap``), kept by ``rows``.
    var identity: IdentityMap {
        // Yielded in place: a `get` copied the map (three arrays retained and released) at every
        // lookup, such as a model's first change.
        _read { yield rows.identity }
        _modify { yield &rows.identity }
    }
    /// What is inserted, changed and deleted since the last save (see ``PendingChanges``).
    @exclusivity(unchecked) var pending = PendingChanges()
    /// What the context's models reach it through (see ``_ContextLink``): emptied when the
    /// context goes away, so a model that outlives it cannot reach it.
    let link: _ContextLink
    /// The shapes of the predicates this context fetched with, for the next fetch of each.
    let plans = PlanCache()
    /// The live results that show this context's unsaved changes (see ``PendingChangeListeners``).
    let pendingListeners = PendingChangeListeners()
    /// Keeps inverse relationships in step; it loads a model's relationship through the context
    /// (bound in `init`). A constant, where a lazy property retained and released the
    /// maintainer at every relationship change and every inverse-state check.
    private let inverses = InverseMaintainer()
    /// How much the context has read from the store: for tests of fetching and prefetching.
    var statistics: ReadStatistics {
        get { rows.statistics }
        set { rows.statistics = newValue }
    }
    /// Which commits this context has taken into account (see `refreshIfNeeded`).
    @exclusivity(unchecked) var commits: CommitTracker
    /// What the store's recent commits changed, read once for all of the context's live queries.
    @exclusivity(unchecked) var liveChangeReader = LiveChangeReader()

    /// Counts of the context's reads.
    typealias ReadStatistics = RowLoader.Statistics

    /// Creates a context for `container`.
    ///
    /// ```swift
    /// let context = ModelContext(container)
    /// ```
    public init(_ container: ModelContainer) {
        self.container = container
        let link = _ContextLink()
        self.link = link
        rows = RowLoader(store: container.store, link: link)
        commits = CommitTracker(lastSeen: (try? container.store.read { txn in txn.id }) ?? 0)
        link.connect(hooks)
        inverses.loadProperty = { [unowned self] model, index in self.fulfill(model, index) }
    }

    deinit {
        link.disconnect()
        releaseModels()
    }

    /// Lets go of the context's models, breaking the cycles of those nothing else holds
    /// (``ContextTeardown``).
    private func releaseModels() {
        var teardown = ContextTeardown(link: link, store: store)
        rows.identity.forEach { teardown.addIfHolding($0) }
        for list in [\PendingChanges.inserted, \.changed, \.keyChanged, \.deleted] {
            for model in pending[keyPath: list] { teardown.addIfHolding(model) }
        }
        teardown.unloadRelationships()
        rows.identity.releaseAll()
        pending.removeAll()
        teardown.restoreReachable()
    }

    /// What generated model code calls on this context (``ContextHooks``), kept off its public API.
    private(set) lazy var hooks = ContextHooks(self)

    // MARK: Ownership

    /// Who may use the context (see ``ContextOwner``).
    var owner = ContextOwner.unchecked

    /// Stops with a message naming the misuse when, in a debug build, the context is used off the
    /// executor that owns it. A no-op in release builds.
    @inline(__always)
    func checkOwner(_ operation: StaticString = #function) {
        #if DEBUG
        owner.check(operation)
        #endif
    }

    var store: Store { container.store }

    // MARK: Changes

    /// Whether the context has inserted, changed or deleted models that are not saved.
    ///
    /// ```swift
    /// if context.hasChanges { try context.save() }
    /// ```
    public var hasChanges: Bool { pending.hasChanges }

    /// The inserted models not yet saved, in insertion order.
    ///
    /// ```swift
    /// context.insertedModelsArray.count
    /// ```
    public var insertedModelsArray: [any PersistentModel] { pending.inserted.array }

    /// The saved models with unsaved changes, in the order they first changed.
    ///
    /// ```swift
    /// context.changedModelsArray.count
    /// ```
    public var changedModelsArray: [any PersistentModel] { pending.changed.array }

    /// The saved models with an unsaved change to an attribute some unique or index table keys:
    /// the only changed models an indexed fetch must consider besides what it reads.
    var keyChangedModels: [any PersistentModel] { pending.keyChanged.array }

    /// Records a change to a keyed attribute (see `keyChangedModels`). Called by generated setters
    /// through `_$didSet`; not for direct use.
    ///
    /// ```swift
    /// context.attributeDidChange(book, 1)   // generated code calls this
    /// ```
    func attributeDidChange(_ model: any PersistentModel, _ index: Int) {
        // Most attributes are keyed by no table: that is the first, cheapest check.
        guard let tables = store.entitiesByType[ObjectIdentifier(type(of: model))],
            tables.keys.attributeIndexes.contains(index), let id = model._$state.persistentIdentifier,
            !id.isTemporary, identity.model(for: id) === model
        else { return }
        pending.markKeyChanged(model)
    }

    /// The models deleted but not yet saved.
    ///
    /// ```swift
    /// context.deletedModelsArray.count
    /// ```
    public var deletedModelsArray: [any PersistentModel] { pending.deleted.array }

    /// Adds a new model to the context; the next ``save()`` stores it.
    ///
    /// Inserting a model the context already has does nothing (or cancels its pending deletion).
    ///
    /// ```swift
    /// context.insert(Book(isbn: "978-0", title: "Walden"))
    /// ```
    /// - Precondition: the model's class is in the container's schema, and the model belongs to no
    ///   other context.
    public func insert<Model: PersistentModel>(_ model: Model) {
        checkOwner()
        // The state once, unretained: each read through the protocol is a call.
        let state = model._$state
        if state.isInContext {
            precondition(
                state { $0.belongs(to: link) }, "ModelContext.insert(_:): this \(Model.self) belongs to another context"
            )
            if pending.undelete(model) {
                inverses.relink(model, in: self)
                pendingListeners.tell()
            }
            return
        }
        // The model's own class: a subclass model inserted as its superclass is of the subclass's entity.
        guard let tables = store.entitiesByType[ObjectIdentifier(type(of: model))] else {
            let entityName = Schema.entityName(of: type(of: model))
            preconditionFailure(
                "ModelContext.insert(_:): \(entityName) is not in the container's schema; add \(entityName).self to it")
        }
        // Keep a temporary identifier the model was already asked for.
        let id = state.persistentIdentifier ?? PersistentIdentifier.temporary(entity: tables.entityName)
        state.persistentIdentifier = id
        state.attach(to: link, reporting: tables.keys.attributeMask)
        // Found by its temporary identifier through the pending inserts (see `registered(_:)`);
        // the identity map holds it once it has a row.
        pending.insert(model)
        // The models it relates to join too, and their inverses point back, as in SwiftData.
        for relationship in tables.entity.relationships where relationship.access.hasTargets(model) {
            relationshipDidChange(model, relationship.index, from: [], to: relationship.access.targets(model))
        }
        // Last: whoever is told may read the results at once.
        pendingChangesDidChange()
    }

    /// Marks a model for deletion; the next ``save()`` removes it from the store, applying its
    /// relationships' delete rules. A deleted model that was never saved is dropped at that save,
    /// its delete rules applied to the models it relates to all the same.
    ///
    /// ```swift
    /// context.delete(book)
    /// try context.save()
    /// ```
    /// - Precondition: the model belongs to this context, or to none.
    public func delete<Model: PersistentModel>(_ model: Model) {
        checkOwner()
        let state = model._$state
        guard state.isInContext else { return }
        precondition(
            state { $0.belongs(to: link) }, "ModelContext.delete(_:): this \(Model.self) belongs to another context")
        guard state.persistentIdentifier != nil else { return }
        // Also for a model never saved: its delete rules apply at save like any other's.
        guard pending.delete(model) else { return }
        inverses.nullifyInverses(deleting: model, in: self)
        pendingChangesDidChange()
    }

    /// Processes the pending changes now rather than at the next save, as Core Data's context
    /// does: the pending deletes' `.cascade` delete rules are applied, so the models they reach
    /// are deleted models of the context (``deletedModelsArray``, `isDeleted`) and their other
    /// relationships' inverses let go of them. Inserts, changes and inverses are recorded as they
    /// are made, so there is nothing else to process (Cairn has no undo manager to tell).
    ///
    /// ```swift
    /// context.delete(author)            // cascades to the author's books
    /// context.processPendingChanges()
    /// author.books.allSatisfy(\.isDeleted)   // true, before any save
    /// ```
    public func processPendingChanges() {
        checkOwner()
        let cascaded = CascadedDeletes(pending.deleted.array, rows: rows)
        for model in cascaded.models where !pending.deleted.contains(model) { delete(model) }
        pendingListeners.tell(always: true)
    }

    /// Discards every unsaved change: inserted models leave the context, deleted ones stay, and
    /// changed ones reload their stored values when next read.
    ///
    /// ```swift
    /// book.title = "Draft"
    /// context.rollback()
    /// book.title   // the saved title again
    /// ```
    public func rollback() {
        checkOwner()
        for model in pending.inserted { SaveApplier.detach(model) }
        for model in pending.changed {
            Refresher.discardChanges(model, entity: store.entity(of: model.persistentModelID))
        }
        pending.removeAll()
        pendingListeners.tell(always: true)
    }

    // MARK: Identity

    /// The model with this identifier if the context has it in memory, else `nil`.
    ///
    /// ```swift
    /// let book: Book? = context.registeredModel(for: id)
    /// ```
    /// - Complexity: O(1).
    public func registeredModel<Model: PersistentModel>(for persistentModelID: PersistentIdentifier) -> Model? {
        checkOwner()
        return registered(persistentModelID) as? Model
    }

    /// The instance the context holds for `id`: a stored row's from the identity map, an inserted
    /// model's by its temporary identifier.
    func registered(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        id.isTemporary ? pending.insertedModel(for: id) : identity.model(for: id)
    }

    /// The model with this identifier if it is registered or stored, else `nil`: no fault is made
    /// for a row that does not exist.
    func existingModel(for persistentModelID: PersistentIdentifier) -> (any PersistentModel)? {
        checkOwner()
        refreshIfNeeded()
        if let registered = registered(persistentModelID) { return registered }
        return rows.hasRow(persistentModelID) ? registeredOrFault(persistentModelID) : nil
    }

    /// The model with this identifier: the registered instance, or a new fault that loads its
    /// values when first read.
    ///
    /// An identifier that names no model of this store — one of another store, or of a model
    /// that was never saved — does not trap: you get an instance whose properties read as their
    /// default values (or `nil` or empty), which the context does not track, and each property
    /// read records a ``FetchError`` (``FetchError/Code/loadFailed``) in ``pendingLoadErrors``
    /// that the next ``save()`` or ``fetch(_:)`` throws. A row deleted since makes a model whose
    /// ``PersistentModel/isDeleted`` becomes `true` when it is first read. To learn whether a
    /// model exists without that, fetch it: `#Predicate { $0.persistentModelID == id }`.
    ///
    /// An identifier whose entity is not in the container's schema (decoded from another app's
    /// data, say) gives an empty model that is already deleted and casts to none of your classes,
    /// and records the same error.
    ///
    /// ```swift
    /// guard let book = context.model(for: id) as? Book, !book.isDeleted else { return }
    /// ```
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        checkOwner()
        refreshIfNeeded()
        return registeredOrFault(persistentModelID)
    }

    /// The registered model for an identifier, or a new registered fault; for an identifier that
    /// names no saved model of this store, an untracked placeholder (see ``model(for:)``).
    func registeredOrFault(_ persistentModelID: PersistentIdentifier) -> any PersistentModel {
        persistentModelID.isTemporary
            ? pending.insertedModel(for: persistentModelID) ?? rows.faultOrPlaceholder(persistentModelID)
            : rows.modelOrFault(persistentModelID)
    }

    /// Tells the live results that show the unsaved changes, and schedules the autosave.
    private func pendingChangesDidChange() {
        pendingListeners.tell()
        scheduleAutosave()
    }

    /// Saves the context after the current turn of the executor it belongs to, once per burst
    /// of changes (see ``autosaveEnabled``).
    private func scheduleAutosave() {
        guard autosaveEnabled, !autosaveScheduled, let place = executorPlace else { return }
        autosaveScheduled = true
        AutosaveTicket(context: self).schedule(on: place)
    }

    /// Where work for the context runs after the current turn (its autosave, its live queries'
    /// updates): on the executor that owns it, or, for a context no executor owns, the one it is
    /// used on now (the main actor or a model actor's queue); `nil` on a thread no serial executor
    /// runs (a detached task, a thread of its own), which has no turn to run after.
    var executorPlace: ExecutorPlace? {
        switch owner {
        case .mainActor: return .mainActor
        case .executor(_, let queue): return .queue(queue)
        case .unchecked:
            if let queue = DefaultSerialModelExecutor.currentQueue { return .queue(queue) }
            return ContextOwner.isOnMainActor ? .mainActor : nil
        }
    }

    // MARK: What generated code calls (through ContextHooks)

    /// Loads a fault's stored values. Called by generated getters through `_$fulfill(_:)`.
    ///
    /// ```swift
    /// context.fulfill(book, 2)   // generated code calls this; not for direct use
    /// ```
    func fulfill(_ model: any PersistentModel, _ index: Int) {
        checkOwner()
        guard let (rowID, tables) = rows.source(of: model, index) else { return }
        refreshIfNeeded()
        rows.load(index, of: model, rowID: rowID, tables: tables)
    }

    /// Keeps a model with its first change until it is saved or rolled back.
    ///
    /// ```swift
    /// context.modelDidChange(book)   // generated setters call this; not for direct use
    /// ```
    func modelDidChange(_ model: any PersistentModel) {
        checkOwner()
        // Only a stored row's registered instance: not an insert (tracked as one), nor an instance
        // left out of the identity map (its row was taken over by an insert).
        guard model._$state.isRegisteredRow else { return }
        pending.markChanged(model)
        pendingChangesDidChange()
    }

    /// Whether the context is setting relationships to keep inverses in step, which their setters
    /// need not report. Read by generated setters; not for direct use.
    ///
    /// ```swift
    /// context.isUpdatingInverses   // false outside a relationship change
    /// ```
    var isUpdatingInverses: Bool { inverses.isMaintaining }

    /// Keeps the addresses of a to-many relationship's members before a change in place, and
    /// every registered model alive until the change ends. Called by generated `_modify`
    /// accessors; not for direct use.
    ///
    /// ```swift
    /// books.withUnsafeBytes { context.beginMembershipChange(author, 4, members: $0) }   // true
    /// ```
    func beginMembershipChange(_ model: AnyObject, _ index: Int, members: UnsafeRawBufferPointer) -> Bool {
        inverses.membersBeforeChange.push(ObjectIdentifier(model), index, members: members)
        rows.identity.hold()
        return true
    }

    /// Hands a generated setter the addresses kept for a change in place. Not for direct use.
    ///
    /// ```swift
    /// let before = context.membersBeforeChange(author, 4)
    /// ```
    func membersBeforeChange(_ model: AnyObject, _ index: Int) -> UnsafeBufferPointer<UnsafeRawPointer>? {
        inverses.membersBeforeChange.members(of: ObjectIdentifier(model), index)
    }

    /// Whether a change in place had a change of the same list inside it. Not for direct use.
    ///
    /// ```swift
    /// context.membershipChangeWasNested(author, 4)
    /// ```
    func membershipChangeWasNested(_ model: AnyObject, _ index: Int) -> Bool {
        inverses.membersBeforeChange.hadNestedChange(of: ObjectIdentifier(model), index)
    }

    /// Whether no to-many relationship is being changed in place (its list out of its model).
    var isChangingNoListInPlace: Bool { inverses.membersBeforeChange.isEmpty }

    /// Ends a change in place. Called by generated `_modify` accessors; not for direct use.
    ///
    /// ```swift
    /// context.endMembershipChange(author, 4)
    /// ```
    func endMembershipChange(_ model: AnyObject, _ index: Int) {
        if inverses.membersBeforeChange.pop(ObjectIdentifier(model), index) { rows.identity.release() }
    }

    /// Called by generated setters after a relationship changed.
    ///
    /// ```swift
    /// context.relationshipDidChange(book, 3, from: [], to: [author])   // not for direct use
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from knownOldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel]
    ) {
        inverses.relationshipDidChange(model, index, from: knownOldTargets, to: newTargets, in: self)
    }

    /// Called by generated setters after a to-one relationship changed.
    ///
    /// ```swift
    /// context.relationshipDidChange(book, 3, from: .some(nil), to: author)   // not for direct use
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from knownOldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?
    ) {
        inverses.relationshipDidChange(model, index, from: knownOldTarget, to: newTarget, in: self)
    }

    /// Removes repeated members of a to-many relationship, each keeping its first place. Called
    /// by generated setters; not for direct use.
    ///
    /// ```swift
    /// context.keepFirstOccurrences(playlist, 1)   // not for direct use
    /// ```
    func keepFirstOccurrences(_ model: any PersistentModel, _ index: Int) {
        guard let tables = store.entitiesByName[model.persistentModelID.entity],
            let relationship = tables.layout.relationshipsByIndex[index]
        else { return }
        var seen = Set<ObjectIdentifier>()
        let members = relationship.access.targets(model).filter { seen.insert(ObjectIdentifier($0)).inserted }
        relationship.access.load(model, members)
    }
}

import Foundation
import Synchronization

/// Watches the store's history for transactions that change the models you name, as SwiftData's
/// `HistoryObserver`: its observable ``eventCounter`` grows when such a transaction commits, in
/// this process or another, so code that syncs or reacts to an extension's writes knows when to
/// fetch the history.
///
/// ```swift
/// @MainActor @Observable final class TripSync {
///     let observer: HistoryObserver
///     var token: DefaultHistoryToken?
///     init(container: ModelContainer) throws {
///         observer = try HistoryObserver(observedModels: [Trip.self], authors: ["widget"], modelContainer: container)
///     }
///     func watch() {
///         withObservationTracking { _ = observer.eventCounter } onChange: {
///             Task { @MainActor in self.processChanges(); self.watch() }
///         }
///     }
///     func processChanges() { /* fetchHistory after `token`, then keep the newest token */ }
/// }
/// ```
///
/// The counter goes up once for each check that finds new matching transactions (several commits
/// close together may be one check). A transaction matches when it changed a model of one of
/// ``observedModels`` (or of a subclass; any model when the list is empty) and was saved by a
/// context whose `author` is in ``authors`` (any author when the set is empty). The observer
/// updates on the actor it was made in (`isolation`), or, made where no actor runs, on a queue of
/// its own.
public final class HistoryObserver: Observable, Sendable, CommitRefreshing {
    /// The container whose store's history is watched.
    ///
    /// ```swift
    /// let context = ModelContext(observer.modelContainer)
    /// ```
    public let modelContainer: ModelContainer
    /// The model types whose changes count; empty for every type.
    ///
    /// ```swift
    /// let watchesTrips = observer.observedModels.contains { $0 == Trip.self }
    /// ```
    nonisolated(unsafe) public let observedModels: [any PersistentModel.Type]
    /// The authors whose transactions count; empty for every author.
    ///
    /// ```swift
    /// let fromWidget = observer.authors.contains("widget")
    /// ```
    public let authors: Set<String>

    /// How many times the observer found new transactions that match: read it where changes are
    /// observed (a view's body, `withObservationTracking`) and fetch the history when it changes.
    ///
    /// ```swift
    /// let _ = observer.eventCounter   // in a SwiftUI view's body: drawn again after each event
    /// ```
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return state.withLock { $0.counter }
    }

    /// Where the observer has read the history up to, by store identifier: fetch the
    /// transactions after these tokens to see what the events were, or pass them to the next
    /// observer to start where this one stopped.
    ///
    /// ```swift
    /// let token = observer.historyTokens.values.first as? DefaultHistoryToken
    /// ```
    public var historyTokens: [String: any HistoryToken] {
        registrar.access(self, keyPath: \.historyTokens)
        let position = state.withLock { $0.position }
        return [store.identifier: DefaultHistoryToken(storeIdentifier: store.identifier, transaction: position)]
    }

    private struct State {
        var counter = 0
        /// The newest commit read.
        var position: UInt64
    }

    private let registrar = ObservationRegistrar()
    private let state: Mutex<State>
    private let store: Store
    /// The entity names that count (the observed models' and their subclasses'); empty for all.
    private let entities: Set<String>
    private let watch = Mutex<CommitWatch?>(nil)

    /// Starts watching the history of `modelContainer`'s store.
    ///
    /// ```swift
    /// let observer = try HistoryObserver(historyTokens: savedTokens, observedModels: [Trip.self],
    ///                                    modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - historyTokens: Where to start, by store identifier (``historyTokens`` of an earlier
    ///     observer, or a transaction's token): transactions after it that match count at once.
    ///     `nil`, or no token of this container's store, starts at the newest transaction.
    ///   - observedModels: The model types whose changes count; empty for every type.
    ///   - authors: The authors whose transactions count; empty for every author.
    ///   - modelContainer: The container whose store's history is watched.
    ///   - isolation: The actor the observer updates on (the caller's).
    /// - Throws: ``SwiftDataError/invalidTransactionFetchRequest`` when a token is not a
    ///   ``DefaultHistoryToken`` or a model type is not in the container's schema; `StorageError`
    ///   when the history cannot be read.
    public init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        let store = modelContainer.store
        self.store = store
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        entities = try Self.entityNames(of: observedModels, in: store)
        let start = try Self.start(historyTokens ?? [:], store: store)
        state = Mutex(State(position: start ?? UInt64(truncatingIfNeeded: store.lastCommittedTransactionID)))
        if start != nil { try check() }
        let place = isolation.map(ExecutorPlace.of) ?? .queue(DispatchQueue(label: "Cairn.HistoryObserver"))
        let watch = CommitWatch(feed: store.commitFeed, place: place, target: self)
        self.watch.withLock { $0 = watch }
    }

    /// Reads the transactions committed since the last check (on the observer's executor).
    func refresh() {
        // A read that fails (a full disk, damage) is tried again at the next commit.
        try? check()
    }

    /// Counts the matching transactions after ``State/position`` and moves past them, as one
    /// step (a check on the observer's executor and one of `refresh()` elsewhere do not count a
    /// transaction twice), then tells observers of what changed.
    private func check() throws {
        let (moved, counted) = try state.withLock { state -> (Bool, Bool) in
            let (newest, accepted) = try HistoryLog(store: store).count(after: state.position) { entry in
                (authors.isEmpty || entry.author.map(authors.contains) == true)
                    && (entities.isEmpty || entry.groups.contains { entities.contains($0.entity) })
            }
            guard newest > state.position else { return (false, false) }
            state.position = newest
            if accepted > 0 { state.counter += 1 }
            return (true, accepted > 0)
        }
        if moved { registrar.withMutation(of: self, keyPath: \.historyTokens) {} }
        if counted { registrar.withMutation(of: self, keyPath: \.eventCounter) {} }
    }

    /// The entity names of `types` and of their subclasses.
    private static func entityNames(of types: [any PersistentModel.Type], in store: Store) throws -> Set<String> {
        var names: Set<String> = []
        for type in types {
            let name = Schema.entityName(of: type)
            guard let tables = store.entities[name], tables.modelType == type else {
                throw SwiftDataError.invalidTransactionFetchRequest.with(
                    message:
                        "HistoryObserver observes \(type), which is not in the container's schema. Add \(type).self "
                        + "to the schema the container is made with, or observe the schema's own model classes.")
            }
            names.formUnion(tables.descendants.map(\.entityName.description))
        }
        return names
    }

    /// The commit of the token of `store` among `tokens`, if there is one.
    private static func start(_ tokens: [String: any HistoryToken], store: Store) throws -> UInt64? {
        var start: UInt64?
        for (key, token) in tokens {
            guard let token = token as? DefaultHistoryToken else {
                throw SwiftDataError.invalidTransactionFetchRequest.with(
                    message:
                        "HistoryObserver starts from Cairn's own history tokens (DefaultHistoryToken); the token for "
                        + "\"\(key)\" is a \(type(of: token)). Pass tokens of this container's transactions or nil.")
            }
            if token.storeIdentifier == store.identifier { start = token.transaction }
        }
        return start
    }
}

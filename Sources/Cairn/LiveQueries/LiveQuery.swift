import Foundation

/// The results of a fetch, kept current as the store changes: after saves of any context of the
/// container, and of other processes. An `Observable` object, so SwiftUI views and
/// `withObservationTracking` see each change.
///
/// ```swift
/// @MainActor final class ShelfModel {
///     let books: LiveQuery<Book>
///     init(container: ModelContainer) {
///         books = LiveQuery(
///             FetchDescriptor(predicate: #Predicate { $0.isOnShelf }, sortBy: [SortDescriptor(\.title)]),
///             in: container.mainContext)
///     }
/// }
/// // …
/// for book in shelf.books.results { print(book.title) }
/// ```
///
/// The query updates on the executor its context belongs to, after each commit: the main actor
/// for `container.mainContext` (and contexts made on the main thread), a model actor's executor
/// for its `modelContext`. A query on a context used where no serial executor runs (a detached
/// task, a thread of its own) has no turn to update in: it brings itself up to date when its
/// ``results`` or ``error`` are read (one look at the store's commit counter when nothing changed).
///
/// Updates are incremental (see <doc:LiveQueries>): a save that changes no row of the fetched
/// entity in a property the predicate or the sort reads leaves the query alone, and one that does
/// has only its changed rows checked, unless the descriptor has a limit or an offset or reads
/// through a relationship, when the query fetches again. Without sort descriptors the results
/// are in the order their rows were first saved.
///
/// The results show the context's unsaved changes, as a fetch does (unless the descriptor's
/// `includePendingChanges` is `false`): while the context has any, reading ``results`` fetches
/// them merged over what the store holds. An insert, a delete, a model's first change, a
/// rollback and ``ModelContext/processPendingChanges()`` tell observers to read again; a further
/// change to a model already changed shows when the results are next read (models are
/// `Observable` themselves) or saved.
@Observable
public final class LiveQuery<Model: PersistentModel>: CommitRefreshing, PendingChangeListening {
    /// The models the descriptor selects, in its order.
    ///
    /// ```swift
    /// let titles = query.results.map(\.title)
    /// ```
    public var results: [Model] {
        if updatesWhenRead { refresh() }
        access(keyPath: \.results)
        toldOfPendingChanges = false
        return tracker.resultsWithPendingChanges() ?? current
    }
    /// The error of the last fetch or check, if it failed (the results are the last good ones);
    /// `nil` once one succeeds.
    ///
    /// ```swift
    /// if let error = query.error { showAlert(error) }
    /// ```
    public var error: (any Error)? {
        if updatesWhenRead { refresh() }
        access(keyPath: \.error)
        return currentError
    }

    @ObservationIgnored private var current: [Model]
    @ObservationIgnored private var currentError: (any Error)?
    @ObservationIgnored let tracker: LiveResultsTracker<Model>
    /// Refreshes the query on its context's executor after commits; `nil` when it updates when read.
    @ObservationIgnored private var watch: CommitWatch?
    /// Whether the context has no executor to update on, so reading updates.
    @ObservationIgnored private let updatesWhenRead: Bool
    /// Whether the context told of unsaved changes since the results were last read.
    @ObservationIgnored private var toldOfPendingChanges = false

    /// Fetches `descriptor` in `context` and keeps the results current.
    ///
    /// ```swift
    /// let recent = LiveQuery(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.date, order: .reverse)]), in: context)
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - context: The context whose models the results are; the query updates on its executor.
    public init(_ descriptor: FetchDescriptor<Model>, in context: ModelContext) {
        context.checkOwner()
        let tracker = LiveResultsTracker(descriptor, in: context)
        self.tracker = tracker
        current = tracker.results
        currentError = tracker.error
        let place = context.executorPlace
        updatesWhenRead = place == nil
        if let place { watch = CommitWatch(feed: context.store.commitFeed, place: place, target: self) }
        context.pendingListeners.add(self)
    }

    /// Tells whoever observes ``results`` that the context's unsaved changes changed.
    func contextDidChange(always: Bool) {
        guard always || !toldOfPendingChanges else { return }
        toldOfPendingChanges = true
        withMutation(keyPath: \.results) {}
    }

    /// Brings the results up to date with the store now. Queries update by themselves (on their
    /// context's executor, or when read); call this to have the newest results before the
    /// update runs.
    ///
    /// ```swift
    /// try worker.save()
    /// query.refresh()   // the save is in query.results now
    /// ```
    public func refresh() {
        if tracker.update() {
            withMutation(keyPath: \.results) { current = tracker.results }
        }
        if tracker.error != nil || currentError != nil {
            withMutation(keyPath: \.error) { currentError = tracker.error }
        }
    }
}

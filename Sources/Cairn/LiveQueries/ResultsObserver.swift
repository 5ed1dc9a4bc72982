import Foundation

/// The results of a fetch, optionally in sections, kept current as the store changes, as
/// SwiftData's `ResultsObserver`: an `Observable` object to hold outside a view (a view model, a
/// sync engine), updated after saves of any context of the container and of other processes.
///
/// ```swift
/// @MainActor @Observable final class Library {
///     let books: ResultsObserver<Book, Never>
///     let byGenre: ResultsObserver<Book, String>
///     init(container: ModelContainer) throws {
///         books = try ResultsObserver(filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)],
///                                     modelContainer: container)
///         byGenre = try ResultsObserver(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre,
///                                       modelContainer: container)
///     }
/// }
/// // …
/// for section in library.byGenre.sections ?? SectionedResults() {
///     print(section.title, section.count)
/// }
/// ```
///
/// `SectionTitle` is `Never` for an observer without sections and `String` for one with a
/// `sectionBy` key path (a `String` or `String?` property; `nil` is the section titled `""`).
///
/// The observer updates on the executor that owns its context (the main actor for
/// `container.mainContext`, a model actor's executor for its `modelContext`), otherwise on the
/// actor it was made in (`isolation`, the caller's by default); made where no actor runs, it
/// brings itself up to date when ``results`` or ``sections`` are read. It is built on the same
/// engine as ``LiveQuery``: updates are incremental, and ties in the sort keep the order rows were
/// first saved in (the order of their `persistentModelID`s), inserted models after them.
///
/// The results show the context's own unsaved changes, as a fetch does (unless the descriptor's
/// `includePendingChanges` is `false`): an insert, a delete or a model's first change tells
/// observers to read ``results`` again, which then merges the changes over what the store holds.
@Observable
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: CommitRefreshing,
    PendingChangeListening, CustomDebugStringConvertible
{
    /// The context the results' models belong to.
    ///
    /// ```swift
    /// observer.modelContext.insert(Book(title: "New"))
    /// ```
    public let modelContext: ModelContext

    /// The key path the results are sectioned by; `nil` without sections.
    ///
    /// ```swift
    /// let sectioned = observer.sectionBy != nil
    /// ```
    public let sectionBy: PartialKeyPath<Element>?

    /// What the observer fetches: set at initialization, changed through ``filterBy`` and
    /// ``sortBy``.
    ///
    /// ```swift
    /// let limit = observer.fetchDescriptor.fetchLimit
    /// ```
    public private(set) var fetchDescriptor: FetchDescriptor<Element>

    /// The predicate the results match; `nil` for all models. Setting it fetches again at once,
    /// on the calling actor: the results are current when the setter returns.
    ///
    /// ```swift
    /// observer.filterBy = #Predicate { $0.title.localizedStandardContains(search) }
    /// ```
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            var descriptor = fetchDescriptor
            descriptor.predicate = newValue
            restart(descriptor)
        }
    }

    /// The results' order. Setting it fetches again at once, on the calling actor; with sections,
    /// the section key is put first again unless the new order already starts with it, and a sort
    /// by `persistentModelID` is added last unless it is there, so that ties have one order (the
    /// order models were first saved in, inserted ones after them), as in SwiftData.
    ///
    /// ```swift
    /// observer.sortBy = [SortDescriptor(\.year, order: .reverse)]
    /// ```
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set {
            var descriptor = fetchDescriptor
            descriptor.sortBy = Self.ordered(newValue, section: section)
            restart(descriptor)
        }
    }

    /// The models the fetch selects, in its order.
    ///
    /// ```swift
    /// let titles = observer.results.map(\.title)
    /// ```
    public var results: FetchResultsCollection<Element> {
        if updatesWhenRead { refresh() }
        access(keyPath: \.results)
        toldOfPendingChanges = false
        guard let pending = tracker.resultsWithPendingChanges() else { return currentResults }
        return FetchResultsCollection(loaded: pending, in: modelContext, descriptor: fetchDescriptor)
    }

    /// The results in sections, in order of each title's first appearance in the sorted
    /// results; `nil` for an observer made without `sectionBy` (`SectionTitle == Never`).
    ///
    /// ```swift
    /// let titles = observer.sections?.sectionTitles ?? []
    /// ```
    public var sections: SectionedResults<Element, SectionTitle>? {
        if updatesWhenRead { refresh() }
        access(keyPath: \.sections)
        toldOfPendingChanges = false
        guard let section, let pending = tracker.resultsWithPendingChanges() else { return currentSections }
        return SectionedResults(pending, title: section.title)
    }

    /// The error of the last fetch or check, if it failed after the observer was made (the
    /// results are the last good ones); `nil` once one succeeds.
    ///
    /// ```swift
    /// if let error = observer.fetchError { log(error) }
    /// ```
    public var fetchError: (any Error)? {
        if updatesWhenRead { refresh() }
        access(keyPath: \.fetchError)
        return currentError
    }

    /// How sections are made: the key path, its sort and the title of a model.
    ///
    /// The sort is kept in an array: a struct that holds a `SortDescriptor` itself has value
    /// witnesses that, in an optimized build, name a type swift-foundation does not export on
    /// Linux (`SortDescriptor.AllowedComparison`), and Cairn failed to link.
    struct Section {
        let keyPath: PartialKeyPath<Element>
        private let sort: [SortDescriptor<Element>]
        let title: (Element) -> SectionTitle

        init(
            keyPath: PartialKeyPath<Element>, sort: SortDescriptor<Element>,
            title: @escaping (Element) -> SectionTitle
        ) {
            self.keyPath = keyPath
            self.sort = [sort]
            self.title = title
        }

        /// `sorts` with the section key first, unless they start with it.
        func sorted(_ sorts: [SortDescriptor<Element>]) -> [SortDescriptor<Element>] {
            sorts.first?.keyPath == sort.first?.keyPath ? sorts : sort + sorts
        }
    }

    /// `sorts` as the observer fetches them: the section key first, the identifier last.
    static func ordered(_ sorts: [SortDescriptor<Element>], section: Section?) -> [SortDescriptor<Element>] {
        let sorts = section?.sorted(sorts) ?? sorts
        let identifier = SortDescriptor(\Element.persistentModelID)
        return sorts.contains { $0.keyPath == identifier.keyPath } ? sorts : sorts + [identifier]
    }

    @ObservationIgnored private let section: Section?
    @ObservationIgnored private var tracker: LiveResultsTracker<Element>
    @ObservationIgnored private var currentResults: FetchResultsCollection<Element>
    @ObservationIgnored private var currentSections: SectionedResults<Element, SectionTitle>?
    @ObservationIgnored private var currentError: (any Error)?
    /// Refreshes the observer on its executor after commits; `nil` when it updates when read.
    @ObservationIgnored private var watch: CommitWatch?
    @ObservationIgnored private let updatesWhenRead: Bool
    /// Whether the context told of unsaved changes since the results were last read.
    @ObservationIgnored private var toldOfPendingChanges = false

    /// Fetches and starts following the store: what every public initialiser calls.
    init(
        descriptor: FetchDescriptor<Element>, section: Section?, context: ModelContext,
        isolation: isolated (any Actor)?
    ) throws {
        context.checkOwner()
        var descriptor = descriptor
        descriptor.sortBy = Self.ordered(descriptor.sortBy, section: section)
        let tracker = LiveResultsTracker(descriptor, in: context)
        if let error = tracker.error { throw error }
        modelContext = context
        sectionBy = section?.keyPath
        self.section = section
        fetchDescriptor = tracker.requested
        self.tracker = tracker
        currentResults = FetchResultsCollection(loaded: tracker.results, in: context, descriptor: tracker.descriptor)
        currentSections = section.map { SectionedResults(tracker.results, title: $0.title) }
        let place = ExecutorPlace.of(context, isolation: isolation)
        updatesWhenRead = place == nil
        if let place { watch = CommitWatch(feed: context.store.commitFeed, place: place, target: self) }
        context.pendingListeners.add(self)
    }

    /// Tells whoever observes ``results`` and ``sections`` that the context's unsaved changes
    /// changed: reading them again shows the changes.
    func contextDidChange(always: Bool) {
        guard always || !toldOfPendingChanges else { return }
        toldOfPendingChanges = true
        withMutation(keyPath: \.results) {}
        if section != nil { withMutation(keyPath: \.sections) {} }
    }

    /// Brings the results up to date with the store now. Observers update by themselves (on
    /// their executor, or when read); call this to have the newest results before that runs.
    ///
    /// ```swift
    /// try worker.save()
    /// observer.refresh()   // the save is in observer.results now
    /// ```
    public func refresh() {
        if tracker.update() { publishResults() }
        if tracker.error != nil || currentError != nil {
            withMutation(keyPath: \.fetchError) { currentError = tracker.error }
        }
    }

    /// Fetches `descriptor` now, in place of the current one.
    private func restart(_ descriptor: FetchDescriptor<Element>) {
        modelContext.checkOwner()
        tracker = LiveResultsTracker(descriptor, in: modelContext)
        fetchDescriptor = tracker.requested
        publishResults()
        withMutation(keyPath: \.fetchError) { currentError = tracker.error }
    }

    private func publishResults() {
        let models = tracker.results
        withMutation(keyPath: \.results) {
            currentResults = FetchResultsCollection(loaded: models, in: modelContext, descriptor: tracker.descriptor)
        }
        guard let section else { return }
        let sections = SectionedResults(models, title: section.title)
        if sections != currentSections { withMutation(keyPath: \.sections) { currentSections = sections } }
    }

    /// The model at `indexPath` (`[section, item]`); `nil` without sections or out of bounds.
    ///
    /// ```swift
    /// let book = observer.element(at: IndexPath(item: 0, section: 2))
    /// ```
    public func element(at indexPath: IndexPath) -> Element? {
        guard indexPath.count == 2, let sections, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        return section.indices.contains(indexPath[1]) ? section[indexPath[1]] : nil
    }

    /// Where `element` is (`[section, item]`); `nil` without sections or when it is not in the results.
    ///
    /// ```swift
    /// if let path = observer.indexPath(for: book) { scroll(to: path) }
    /// ```
    public func indexPath(for element: Element) -> IndexPath? {
        guard let section, let sections, let position = sections.index(ofSectionTitled: section.title(element)),
            let item = sections[position].firstIndex(where: { $0 === element })
        else { return nil }
        return IndexPath(indexes: [position, item])
    }

    /// The model type, the number of results and of sections.
    ///
    /// ```swift
    /// print(observer.debugDescription)   // ResultsObserver<Book, String>(12 results in 3 sections)
    /// ```
    public var debugDescription: String {
        let sections = currentSections.map { " in \($0.count) sections" } ?? ""
        return "ResultsObserver<\(Element.self), \(SectionTitle.self)>(\(currentResults.count) results\(sections))"
    }
}

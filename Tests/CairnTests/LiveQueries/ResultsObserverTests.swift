import Foundation
import Synchronization
import Testing

@testable import Cairn

/// `ResultsObserver`, `SectionedResults` and `ResultsSection`, written as SwiftData code uses them.
@Suite struct ResultsObserverTests {
    private func titles(_ books: some Sequence<ObservedBook>) -> [String] { books.map(\.title) }

    private func shelf(_ context: ModelContext, _ books: [(String, String, String?)]) throws {
        for (title, genre, series) in books { context.insert(ObservedBook(title: title, genre: genre, series: series)) }
        try context.save()
    }

    @Test func anObserverFollowsSavesOfAnotherContext() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let writer = ModelContext(container)
        try shelf(writer, [("Emma", "Novel", nil), ("Odes", "Poetry", nil)])
        let observer = try ResultsObserver<ObservedBook, Never>(
            filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], modelContainer: container)
        #expect(titles(observer.results) == ["Emma", "Odes"])
        #expect(observer.sections == nil && observer.sectionBy == nil)
        try shelf(writer, [("Beowulf", "Poetry", nil)])
        let draft = ObservedBook(title: "Aaa", genre: "Novel", series: nil)
        draft.isPublished = false
        writer.insert(draft)
        try writer.save()
        observer.refresh()
        #expect(titles(observer.results) == ["Beowulf", "Emma", "Odes"], "the draft does not match")
        draft.isPublished = true
        try writer.save()
        observer.refresh()
        #expect(titles(observer.results) == ["Aaa", "Beowulf", "Emma", "Odes"])
        #expect(observer.debugDescription == "ResultsObserver<ObservedBook, Never>(4 results)")
    }

    @Test func sectionsAreInOrderOfFirstAppearanceWithTheSectionKeySortedFirst() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        try shelf(context, [("Odes", "Poetry", nil), ("Emma", "Novel", nil), ("Ariel", "Poetry", nil)])
        let observer = try ResultsObserver<ObservedBook, String>(
            sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        #expect(
            observer.sortBy.map(\.keyPath)
                == [\ObservedBook.genre, \ObservedBook.title, \ObservedBook.persistentModelID],
            "the section key first, the identifier last")
        #expect(observer.sectionBy == \ObservedBook.genre)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Novel", "Poetry"])
        #expect(sections.map { titles($0) } == [["Emma"], ["Ariel", "Odes"]])
        #expect(sections.map(\.id) == ["Novel", "Poetry"])
        #expect(sections[sectionTitle: "Poetry"]?.count == 2 && sections[sectionTitle: "Drama"] == nil)
        #expect(sections.index(ofSectionTitled: "Poetry") == 1 && sections.contains(sectionTitle: "Novel"))
        #expect(titles(observer.results) == ["Emma", "Ariel", "Odes"])
        let odes = sections[1][1]
        #expect(observer.indexPath(for: odes) == IndexPath(indexes: [1, 1]))
        #expect(observer.element(at: IndexPath(indexes: [1, 1])) === odes)
        #expect(observer.element(at: IndexPath(indexes: [2, 0])) == nil)
        #expect(observer.debugDescription == "ResultsObserver<ObservedBook, String>(3 results in 2 sections)")

        odes.genre = "Drama"  // a new section, between the others
        let emma = sections[0][0]
        emma.genre = "Poetry"  // the first section empties and goes
        try context.save()
        observer.refresh()
        let after = try #require(observer.sections)
        #expect(after.sectionTitles == ["Drama", "Poetry"])
        #expect(after.map { titles($0) } == [["Odes"], ["Ariel", "Emma"]])
        #expect(after != sections)
    }

    @Test func anOptionalSectionKeyPutsNilInTheEmptyTitledSection() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        try shelf(context, [("Dune", "Novel", "Dune"), ("Emma", "Novel", nil), ("Messiah", "Novel", "Dune")])
        let observer = try ResultsObserver<ObservedBook, String>(
            fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.series,
            modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["", "Dune"])
        #expect(sections.map { titles($0) } == [["Emma"], ["Dune", "Messiah"]])
    }

    @Test func settingTheFilterOrTheOrderFetchesAtOnceAndKeepsTheSectionKeyFirst() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        try shelf(context, [("Odes", "Poetry", nil), ("Emma", "Novel", nil), ("Ariel", "Poetry", nil)])
        let observer = try ResultsObserver<ObservedBook, String>(sectionBy: \.genre, modelContext: context)
        observer.sortBy = [SortDescriptor(\.title, order: .reverse)]
        #expect(
            observer.sortBy.map(\.keyPath)
                == [\ObservedBook.genre, \ObservedBook.title, \ObservedBook.persistentModelID],
            "the section key again first")
        #expect(observer.sections?.map { titles($0) } == [["Emma"], ["Odes", "Ariel"]])
        observer.sortBy = [SortDescriptor(\.genre, order: .reverse), SortDescriptor(\.title)]
        #expect(observer.sortBy.count == 3, "already first: kept as given, the identifier added")
        #expect(observer.sections?.sectionTitles == ["Poetry", "Novel"])
        observer.filterBy = #Predicate { $0.title.starts(with: "A") || $0.title.starts(with: "E") }
        #expect(observer.fetchDescriptor.predicate != nil)
        #expect(titles(observer.results) == ["Ariel", "Emma"])
        #expect(observer.sections?.map { titles($0) } == [["Ariel"], ["Emma"]])
        observer.filterBy = nil
        #expect(observer.results.count == 3)
    }

    /// The observing context's own unsaved changes are in the results, as in a fetch of it,
    /// and observers hear of each kind at once; a descriptor that leaves them out is followed.
    @MainActor @Test func theContextsOwnUnsavedChangesAreInTheResults() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.autosaveEnabled = false
        try shelf(context, [("Emma", "Novel", nil), ("Odes", "Poetry", nil)])
        let observer = try ResultsObserver<ObservedBook, String>(
            sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        var storedOnly = FetchDescriptor<ObservedBook>(sortBy: [SortDescriptor(\.title)])
        storedOnly.includePendingChanges = false
        let saved = try ResultsObserver<ObservedBook, Never>(fetchDescriptor: storedOnly, modelContext: context)
        let told = Mutex(0)
        func observe() {
            withObservationTracking { _ = observer.results } onChange: { told.withLock { $0 += 1 } }
        }

        observe()
        let ariel = ObservedBook(title: "Ariel", genre: "Poetry", series: nil)
        context.insert(ariel)
        #expect(told.withLock { $0 } == 1, "an insert is told")
        #expect(titles(observer.results) == ["Emma", "Ariel", "Odes"])
        #expect(observer.sections?.map { titles($0) } == [["Emma"], ["Ariel", "Odes"]])
        #expect(observer.indexPath(for: ariel) == IndexPath(indexes: [1, 0]))
        #expect(titles(saved.results) == ["Emma", "Odes"], "includePendingChanges: false")

        observe()
        let emma = observer.results[0]
        emma.genre = "Poetry"  // its first change
        #expect(told.withLock { $0 } == 2, "a first change is told")
        #expect(observer.sections?.map { titles($0) } == [["Ariel", "Emma", "Odes"]])

        observe()
        context.delete(observer.results[2])  // Odes
        #expect(told.withLock { $0 } == 3, "a delete is told")
        #expect(titles(observer.results) == ["Ariel", "Emma"])

        observe()
        context.rollback()
        #expect(told.withLock { $0 } == 4, "a rollback is told")
        #expect(titles(observer.results) == ["Emma", "Odes"])
        #expect(observer.sections?.sectionTitles == ["Novel", "Poetry"])

        context.insert(ObservedBook(title: "Beowulf", genre: "Poetry", series: nil))
        try context.save()
        observer.refresh()
        #expect(titles(observer.results) == ["Emma", "Beowulf", "Odes"], "saved: the same results")
        saved.refresh()
        #expect(titles(saved.results) == ["Beowulf", "Emma", "Odes"])
    }

    /// An observer sorts last by identifier, as SwiftData's does: ties, and an observer without a
    /// sort, keep the order models were first saved in, inserted ones after them.
    @Test func tiesAreInIdentifierOrderWithInsertedModelsLast() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.autosaveEnabled = false
        try shelf(context, [("Odes", "Poetry", nil), ("Emma", "Novel", nil), ("Ariel", "Poetry", nil)])
        let unsorted = try ResultsObserver<ObservedBook, Never>(modelContext: context)
        let byGenre = try ResultsObserver<ObservedBook, Never>(sortBy: [SortDescriptor(\.genre)], modelContext: context)
        #expect(unsorted.sortBy.map(\.keyPath) == [\ObservedBook.persistentModelID])
        #expect(titles(unsorted.results) == ["Odes", "Emma", "Ariel"])
        #expect(titles(byGenre.results) == ["Emma", "Odes", "Ariel"])
        context.insert(ObservedBook(title: "Beowulf", genre: "Poetry", series: nil))
        #expect(titles(unsorted.results) == ["Odes", "Emma", "Ariel", "Beowulf"])
        #expect(titles(byGenre.results) == ["Emma", "Odes", "Ariel", "Beowulf"])
        try context.save()
        unsorted.refresh()
        byGenre.refresh()
        #expect(titles(unsorted.results) == ["Odes", "Emma", "Ariel", "Beowulf"])
        #expect(titles(byGenre.results) == ["Emma", "Odes", "Ariel", "Beowulf"])
    }

    @Test func theFirstFetchThrowsItsError() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        try shelf(context, [("Emma", "Novel", nil)])
        #expect(throws: FetchError.self) {
            _ = try ResultsObserver<ObservedBook, Never>(
                filterBy: #Predicate { $0.series! == "Dune" }, modelContext: context)
        }
    }

    /// Made on the main actor in a new context of the container: it updates on the main actor
    /// by itself, and observation tells of it.
    @MainActor @Test func anObserverIsObservableAndUpdatesOnTheMainActor() async throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let observer = try ResultsObserver<ObservedBook, String>(
            sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContainer: container)
        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = observer.sections
        } onChange: {
            changed.continuation.yield()
        }
        let writer = ObservedBookWriter(modelContainer: container)
        try await writer.add("Emma", genre: "Novel")
        let stream = changed.stream
        let observed = await withTimeout(seconds: 300) { await stream.first { _ in true } != nil }
        #expect(observed == true)
        try await waitUntil { observer.results.count == 1 }
        #expect(observer.sections?.sectionTitles == ["Novel"])
    }

    /// Made inside an actor of the app's own: it updates on that actor, with no read to prompt it.
    @Test func anObserverUpdatesOnTheActorItWasMadeIn() async throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let catalog = ObservingCatalog()
        try await catalog.start(container)
        let writer = ObservedBookWriter(modelContainer: container)
        try await writer.add("Emma", genre: "Novel")
        try await writer.add("Odes", genre: "Poetry")
        // Nothing reads the results until the observer has told of an update: it ran by itself.
        try await waitUntil { await catalog.updates >= 1 }
        try await waitUntil { await catalog.titles() == ["Emma", "Odes"] }
        #expect(await catalog.titles() == ["Emma", "Odes"])
    }

    /// Another process's save reaches an observer on the main actor, sections and all.
    @MainActor @Test func anotherProcessesSaveReachesAnObserver() async throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        context.insert(Tally(label: "shared", amount: 1))
        context.insert(Tally(label: "other", amount: 1))
        try context.save()
        let observer = try ResultsObserver<Tally, String>(
            filterBy: #Predicate { $0.amount > 5 }, sectionBy: \.label, modelContainer: container)
        #expect(observer.results.isEmpty && observer.sections?.isEmpty == true)
        let store = directory.child("Tally.store")
        #expect(try HelperProcess.run(["tally-update", store, "shared", "9"]).output.contains("saved"))
        try await waitUntil { observer.sections?.sectionTitles == ["shared"] }
        #expect(observer.results.map(\.amount) == [9])
    }
}

/// An app's actor holding an observer; counts the updates observation reports.
actor ObservingCatalog {
    private var observer: ResultsObserver<ObservedBook, Never>?
    private(set) var updates = 0

    func start(_ container: ModelContainer) throws {
        let observer = try ResultsObserver<ObservedBook, Never>(
            sortBy: [SortDescriptor(\.title)], modelContainer: container)
        self.observer = observer
        track()
    }

    private func track() {
        withObservationTracking {
            _ = observer?.results
        } onChange: {
            Task { await self.noteUpdate() }
        }
    }

    private func noteUpdate() {
        updates += 1
        track()
    }

    /// The titles as the observer holds them, without refreshing it.
    func titles() -> [String] {
        observer.map { Array($0.results.map(\.title)) } ?? []
    }
}

@ModelActor actor ObservedBookWriter {
    func add(_ title: String, genre: String) throws {
        modelContext.insert(ObservedBook(title: title, genre: genre, series: nil))
        try modelContext.save()
    }
}

@Model final class ObservedBook {
    var title: String
    var genre: String
    var series: String?
    var isPublished = true

    init(title: String, genre: String, series: String?) {
        self.title = title
        self.genre = genre
        self.series = series
    }
}

@Model final class ObservedReader {
    var name: String

    init(name: String) { self.name = name }
}

func observedBooksContainer(_ directory: TemporaryDirectory) throws -> ModelContainer {
    try makeContainer(ObservedBook.self, ObservedReader.self, in: directory, named: "ObservedBooks.store")
}

import Foundation
import Testing

@testable import Cairn

/// `HistoryObserver`, written as SwiftData code uses it: watch `eventCounter`, then fetch the
/// history after the last token processed.
@Suite struct HistoryObserverTests {
    private func counts(_ observers: HistoryObserver...) -> [Int] { observers.map(\.eventCounter) }

    @Test func theCounterGrowsForTransactionsOfTheObservedModelsAndAuthors() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let app = ModelContext(container)
        app.author = "app"
        let widget = ModelContext(container)
        widget.author = "widget"
        app.insert(ObservedBook(title: "Before", genre: "Novel", series: nil))
        try app.save()
        let books = try HistoryObserver(observedModels: [ObservedBook.self], modelContainer: container)
        let fromWidget = try HistoryObserver(authors: ["widget"], modelContainer: container)
        let everything = try HistoryObserver(modelContainer: container)
        #expect(counts(books, fromWidget, everything) == [0, 0, 0], "starts now")

        app.insert(ObservedReader(name: "Ada"))
        try app.save()
        [books, fromWidget, everything].forEach { $0.refresh() }
        #expect(counts(books, fromWidget, everything) == [0, 0, 1])

        widget.insert(ObservedBook(title: "Emma", genre: "Novel", series: nil))
        try widget.save()
        [books, fromWidget, everything].forEach { $0.refresh() }
        #expect(counts(books, fromWidget, everything) == [1, 1, 2])

        let emma = try #require(
            try app.fetch(FetchDescriptor<ObservedBook>(predicate: #Predicate { $0.title == "Emma" })).first)
        emma.genre = "Classic"
        try app.save()
        [books, fromWidget, everything].forEach { $0.refresh() }
        #expect(counts(books, fromWidget, everything) == [2, 1, 3])
        #expect(books.observedModels.count == 1 && fromWidget.authors == ["widget"])
    }

    @Test func theTokensSayWhereToFetchTheHistoryFrom() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let observer = try HistoryObserver(observedModels: [ObservedBook.self], modelContainer: container)
        let start = try #require(observer.historyTokens[container.store.identifier] as? DefaultHistoryToken)
        context.insert(ObservedBook(title: "Emma", genre: "Novel", series: nil))
        try context.save()
        observer.refresh()
        let token = try #require(observer.historyTokens.values.first as? DefaultHistoryToken)
        #expect(token > start)
        let transactions = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.token > start && $0.token <= token }))
        #expect(transactions.count == 1 && transactions.first?.token == token)

        // A later observer starting from a saved token counts what came after it at once, in one event.
        context.insert(ObservedBook(title: "Odes", genre: "Poetry", series: nil))
        try context.save()
        context.insert(ObservedBook(title: "Ariel", genre: "Poetry", series: nil))
        try context.save()
        let resumed = try HistoryObserver(
            historyTokens: [token.storeIdentifier: token], observedModels: [ObservedBook.self],
            modelContainer: container)
        #expect(resumed.eventCounter == 1)
        let resumedToken = try #require(resumed.historyTokens.values.first as? DefaultHistoryToken)
        let caughtUp = try HistoryObserver(
            historyTokens: [token.storeIdentifier: resumedToken], modelContainer: container)
        #expect(caughtUp.eventCounter == 0)
    }

    @Test func badArgumentsAreTypedErrors() throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            _ = try HistoryObserver(observedModels: [LiveAuthor.self], modelContainer: container)
        }
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            _ = try HistoryObserver(historyTokens: ["elsewhere": ForeignToken()], modelContainer: container)
        }
        let otherStore = DefaultHistoryToken(storeIdentifier: "another store", transaction: 1)
        let observer = try HistoryObserver(historyTokens: ["another store": otherStore], modelContainer: container)
        #expect(observer.eventCounter == 0, "another store's token is not this store's position")
    }

    /// Made on the main actor, it updates there by itself and observation tells of it.
    @MainActor @Test func theCounterIsObservableAndUpdatesOnTheMainActor() async throws {
        let container = try observedBooksContainer(TemporaryDirectory())
        let observer = try HistoryObserver(observedModels: [ObservedBook.self], modelContainer: container)
        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = observer.eventCounter
        } onChange: {
            changed.continuation.yield()
        }
        try await ObservedBookWriter(modelContainer: container).add("Emma", genre: "Novel")
        let stream = changed.stream
        let observed = await withTimeout(seconds: 300) { await stream.first { _ in true } != nil }
        #expect(observed == true)
        try await waitUntil { observer.eventCounter == 1 }
    }

    /// Made where no actor runs, it counts on a queue of its own; another process's save counts.
    @Test func anotherProcessesTransactionCounts() async throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        context.insert(Tally(label: "shared", amount: 1))
        try context.save()
        let observer = try await Self.detachedObserver(container)
        let store = directory.child("Tally.store")
        #expect(try HelperProcess.run(["tally-update", store, "shared", "9"]).output.contains("saved"))
        // Nothing reads in this process: the observer's own check, told of the commit, counts it.
        try await waitUntil { observer.eventCounter >= 1 }
        #expect(observer.eventCounter == 1)
    }

    private static func detachedObserver(_ container: ModelContainer) async throws -> HistoryObserver {
        try await Task.detached { try HistoryObserver(observedModels: [Tally.self], modelContainer: container) }.value
    }
}

/// A history token of another store type, which Cairn's observer cannot start from.
private struct ForeignToken: HistoryToken {
    var id: Int { 0 }
    var tokenValue: Int? { 0 }
    static func < (lhs: ForeignToken, rhs: ForeignToken) -> Bool { false }
}

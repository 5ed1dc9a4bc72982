import Foundation
import Testing

@testable import Cairn

/// Live queries and live result streams, as an app uses them.
@Suite struct LiveQueryTests {
    private func names(_ authors: [LiveAuthor]) -> [String] { authors.map(\.name) }

    @Test func aQueryFollowsSavesOfAnotherContext() throws {
        let container = try liveContainer(TemporaryDirectory())
        let reader = ModelContext(container)
        let query = LiveQuery(
            FetchDescriptor<LiveAuthor>(predicate: #Predicate { $0.group == 1 }, sortBy: [SortDescriptor(\.name)]),
            in: reader)
        #expect(query.results.isEmpty)
        let writer = ModelContext(container)
        let cato = LiveAuthor(label: 1, name: "Cato", group: 1, score: 0)
        writer.insert(cato)
        writer.insert(LiveAuthor(label: 2, name: "Ada", group: 1, score: 0))
        writer.insert(LiveAuthor(label: 3, name: "Bo", group: 2, score: 0))
        try writer.save()
        query.refresh()
        #expect(names(query.results) == ["Ada", "Cato"])
        cato.name = "Aaron"
        try writer.save()
        query.refresh()
        #expect(names(query.results) == ["Aaron", "Ada"], "moved to its sorted place")
        cato.group = 2
        try writer.save()
        query.refresh()
        #expect(names(query.results) == ["Ada"], "left the results")
        writer.delete(
            try #require(try writer.fetch(FetchDescriptor<LiveAuthor>(predicate: #Predicate { $0.label == 2 })).first))
        try writer.save()
        query.refresh()
        #expect(query.results.isEmpty)
        #expect(query.tracker.fetches == 1, "every change was taken in without fetching again")
    }

    /// A context used from a task of the global executor has no turn to update in: its query
    /// is current whenever it is read.
    @Test func aQueryOnAContextWithoutAnExecutorIsCurrentWhenRead() async throws {
        let container = try liveContainer(TemporaryDirectory())
        let query = LiveQuery(
            FetchDescriptor<LiveAuthor>(sortBy: [SortDescriptor(\.name)]), in: ModelContext(container))
        #expect(query.results.isEmpty)
        let writer = LiveWriter(modelContainer: container)
        try await writer.add(name: "Ada", group: 1)
        try await writer.add(name: "Bo", group: 2)
        #expect(names(query.results) == ["Ada", "Bo"])
        #expect(query.error == nil)
    }

    /// As a fetch of the context: its unsaved changes are in the results unless the descriptor
    /// leaves them out, and the saved model is the same instance.
    @Test func unsavedChangesOfItsOwnContextAreInTheResultsAsInAFetch() throws {
        let container = try liveContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let ada = LiveAuthor(label: 1, name: "Ada", group: 1, score: 0)
        context.insert(ada)
        let query = LiveQuery(FetchDescriptor<LiveAuthor>(sortBy: [SortDescriptor(\.name)]), in: context)
        var storedOnly = FetchDescriptor<LiveAuthor>(sortBy: [SortDescriptor(\.name)])
        storedOnly.includePendingChanges = false
        let stored = LiveQuery(storedOnly, in: context)
        #expect(query.results.count == 1 && query.results.first === ada)
        #expect(stored.results.isEmpty)
        try context.save()
        query.refresh()
        stored.refresh()
        #expect(query.results.count == 1 && query.results.first === ada, "once, the context's own instance")
        #expect(stored.results.count == 1 && stored.results.first === ada)
        context.delete(ada)
        #expect(query.results.isEmpty && stored.results.count == 1)
    }

    @Test func aSaveThatTouchesNothingTheQueryReadsDoesNotReRunIt() throws {
        let container = try liveContainer(TemporaryDirectory())
        let writer = ModelContext(container)
        let ada = LiveAuthor(label: 1, name: "Ada", group: 1, score: 0)
        let bo = LiveAuthor(label: 2, name: "Bo", group: 2, score: 0)
        writer.insert(ada)
        writer.insert(bo)
        try writer.save()
        let query = LiveQuery(
            FetchDescriptor<LiveAuthor>(predicate: #Predicate { $0.group == 1 }, sortBy: [SortDescriptor(\.name)]),
            in: ModelContext(container))
        bo.score = 5  // not a member, a field the query does not read
        writer.insert(LiveBook(label: 1, title: "Notes"))  // another entity
        try writer.save()
        query.refresh()
        #expect(query.tracker.fetches == 1 && query.tracker.evaluations == 0)
        bo.name = "Bob"  // a field the sort reads, of a row that is not a member: checked alone
        try writer.save()
        query.refresh()
        #expect(query.tracker.fetches == 1 && query.tracker.evaluations == 1)
        #expect(names(query.results) == ["Ada"])
    }

    @Test func limitsAndRelationshipPredicatesFetchAgain() throws {
        let container = try liveContainer(TemporaryDirectory())
        let writer = ModelContext(container)
        let ada = LiveAuthor(label: 1, name: "Ada", group: 1, score: 0)
        writer.insert(ada)
        try writer.save()
        let reader = ModelContext(container)
        var firstTwo = FetchDescriptor<LiveAuthor>(sortBy: [SortDescriptor(\.name)])
        firstTwo.fetchLimit = 2
        let limited = LiveQuery(firstTwo, in: reader)
        let byGroup = LiveQuery(
            FetchDescriptor<LiveBook>(
                predicate: #Predicate { $0.author?.group == 1 }, sortBy: [SortDescriptor(\.title)]),
            in: reader)
        writer.insert(LiveAuthor(label: 2, name: "Aaron", group: 2, score: 0))
        writer.insert(LiveAuthor(label: 3, name: "Zed", group: 2, score: 0))
        let book = LiveBook(label: 1, title: "Notes")
        book.author = ada
        writer.insert(book)
        try writer.save()
        limited.refresh()
        byGroup.refresh()
        #expect(names(limited.results) == ["Aaron", "Ada"])
        #expect(byGroup.results.map(\.title) == ["Notes"])
        ada.group = 3  // changes only the author, which the book's predicate reads
        try writer.save()
        byGroup.refresh()
        #expect(byGroup.results.isEmpty)
    }

    @MainActor @Test func aQueryIsObservable() async throws {
        let container = try liveContainer(TemporaryDirectory())
        let context = container.mainContext
        context.autosaveEnabled = false
        let query = LiveQuery(FetchDescriptor<LiveAuthor>(sortBy: [SortDescriptor(\.name)]), in: context)
        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = query.results
        } onChange: {
            changed.continuation.yield()
        }
        // Another actor's context saves; the query updates on the main actor by itself.
        let writer = LiveWriter(modelContainer: container)
        try await writer.add(name: "Ada", group: 1)
        let stream = changed.stream
        let observed = await withTimeout(seconds: 300) { await stream.first { _ in true } != nil }
        #expect(observed == true, "the observer heard of the change")
        try await waitUntil { query.results.count == 1 }
        #expect(names(query.results) == ["Ada"])
    }

    @Test func aStreamIsConsumedOnAModelActorWhileAnotherActorSaves() async throws {
        let container = try liveContainer(TemporaryDirectory())
        let watcher = LiveWatcher(modelContainer: container)
        let writer = LiveWriter(modelContainer: container)
        let watching = Task { await watcher.watch(until: 3) }
        try await waitUntil { await watcher.deliveries.count >= 1 }
        try await writer.add(name: "Ada", group: 1)
        try await waitUntil { await watcher.deliveries.count >= 2 }
        try await writer.add(name: "Bo", group: 2)  // not in the results: no element
        try await writer.add(name: "Cy", group: 1)
        let deliveries = await watching.value
        #expect(deliveries == [[], ["Ada"], ["Ada", "Cy"]])
    }

    @Test func aStreamEndsWhenItsTaskIsCancelled() async throws {
        let container = try liveContainer(TemporaryDirectory())
        let watcher = LiveWatcher(modelContainer: container)
        let watching = Task { await watcher.watch(until: 100) }
        try await waitUntil { await watcher.deliveries.count >= 1 }
        watching.cancel()
        let deliveries = await withTimeout(seconds: 300) { await watching.value }
        #expect(deliveries == [[]], "the sequence ended after its first element")
    }

    @Test func anotherProcessesSaveReachesALiveStream() async throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        context.insert(Tally(label: "shared", amount: 1))
        try context.save()
        let watcher = TallyWatcher(modelContainer: container)
        let watching = Task { await watcher.watch(until: 2) }
        try await waitUntil { await watcher.deliveries.count >= 1 }
        let store = directory.child("Tally.store")
        #expect(try HelperProcess.run(["tally-update", store, "shared", "9"]).output.contains("saved"))
        let deliveries = await withTimeout(seconds: 300) { await watching.value }
        #expect(deliveries == [[1], [9]])
    }
}

@ModelActor actor LiveWriter {
    func add(name: String, group: Int) throws {
        let count = try modelContext.fetchCount(FetchDescriptor<LiveAuthor>())
        modelContext.insert(LiveAuthor(label: count + 1, name: name, group: group, score: 0))
        try modelContext.save()
    }
}

@ModelActor actor LiveWatcher {
    private(set) var deliveries: [[String]] = []

    func watch(until count: Int) async -> [[String]] {
        let descriptor = FetchDescriptor<LiveAuthor>(
            predicate: #Predicate { $0.group == 1 }, sortBy: [SortDescriptor(\.name)])
        for await authors in modelContext.liveResults(for: descriptor) {
            deliveries.append(authors.map(\.name))
            if deliveries.count == count { break }
        }
        return deliveries
    }
}

@ModelActor actor TallyWatcher {
    private(set) var deliveries: [[Int]] = []

    func watch(until count: Int) async -> [[Int]] {
        for await tallies in modelContext.liveResults(for: FetchDescriptor<Tally>()) {
            deliveries.append(tallies.map(\.amount))
            if deliveries.count == count { break }
        }
        return deliveries
    }
}

/// Waits, polling, until `condition` holds; fails after five minutes. The whole suite runs
/// beside it, and on a two-core machine keeps every thread busy for minutes at a time: a model
/// actor's queue competes for those threads, so a delivery that takes milliseconds alone can
/// wait that long.
func waitUntil(
    isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(300)
    while try await !condition() {
        guard Date() < deadline else {
            Issue.record("the condition did not hold within five minutes")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// `body`'s result, or `nil` when it takes longer than `seconds`.
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

import Foundation
import Testing

@testable import Cairn

@Model
final class Tally {
    var label: String
    var amount: Int
    var holder: TallyHolder?

    init(label: String, amount: Int) {
        self.label = label
        self.amount = amount
    }
}

@Model
final class TallyHolder {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Tally.holder) var tallies: [Tally] = []

    init(name: String) { self.name = name }
}

func tallyContainer(_ directory: TemporaryDirectory = TemporaryDirectory()) throws -> ModelContainer {
    try makeContainer(Tally.self, TallyHolder.self, in: directory, named: "Tally.store")
}

@ModelActor
actor TallyWriter {
    /// Inserts one tally and saves; returns its identifier.
    func add(_ label: String, amount: Int = 1) throws -> PersistentIdentifier {
        let tally = Tally(label: label, amount: amount)
        modelContext.insert(tally)
        try modelContext.save()
        return tally.persistentModelID
    }

    /// Sets the amount and a new holder of an existing tally, then saves.
    func update(_ id: PersistentIdentifier, amount: Int, holder: String) throws {
        guard let tally = self[id, as: Tally.self] else { return }
        tally.amount = amount
        tally.holder = TallyHolder(name: holder)
        try modelContext.save()
    }

    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Tally>()) }

    func runsOnMainThread() -> Bool { Thread.isMainThread }

    /// Stops the process if the actor runs on the main dispatch queue (the main actor's).
    func runsOffTheMainQueue() -> Bool {
        dispatchPrecondition(condition: .notOnQueue(.main))
        return true
    }

    func runsOnItsOwnExecutor() -> Bool {
        (modelExecutor as? DefaultSerialModelExecutor)?.isCurrent == true
    }

    func lookUp(_ id: PersistentIdentifier) -> String? { self[id, as: Tally.self]?.label }

    func lookUpAsHolder(_ id: PersistentIdentifier) -> Bool { self[id, as: TallyHolder.self] != nil }
}

@Suite struct ModelActorTests {
    @Test func concurrentTasksOnTwoActorsCreateExactlyTheirRows() async throws {
        let container = try tallyContainer()
        let first = TallyWriter(modelContainer: container)
        let second = TallyWriter(modelContainer: container)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<100 { group.addTask { _ = try await first.add("first \(n)") } }
            for n in 0..<50 { group.addTask { _ = try await second.add("second \(n)") } }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tally>()) == 150)
        #expect(try await first.count() == 150)
        let labels = try ModelContext(container).fetch(FetchDescriptor<Tally>()).map(\.label)
        #expect(Set(labels).count == 150)
    }

    /// Created on the main actor, a model actor still runs its work on its own executor's queue:
    /// not the main thread, and not the main queue that runs the main actor.
    @MainActor
    @Test func aModelActorNeverRunsOnTheMainThreadOrTheMainActor() async throws {
        let writer = TallyWriter(modelContainer: try tallyContainer())
        #expect(await writer.runsOnMainThread() == false)
        #expect(await writer.runsOnItsOwnExecutor())
        #expect(await writer.runsOffTheMainQueue())
        _ = try await writer.add("from the main actor")
        #expect(await writer.runsOnItsOwnExecutor() && writer.modelExecutor is DefaultSerialModelExecutor)
    }

    @MainActor
    @Test func theMainContextSeesAModelActorsSaveOnItsNextFetch() async throws {
        let container = try tallyContainer()
        let main = container.mainContext
        #expect(try main.fetchCount(FetchDescriptor<Tally>()) == 0)
        let id = try await TallyWriter(modelContainer: container).add("saved elsewhere", amount: 7)
        let fetched = try main.fetch(FetchDescriptor<Tally>())
        #expect(fetched.map(\.label) == ["saved elsewhere"] && fetched.first?.persistentModelID == id)
    }

    @Test func theSubscriptReturnsAStoredModelOrNil() async throws {
        let container = try tallyContainer()
        let writer = TallyWriter(modelContainer: container)
        let id = try await writer.add("here")
        #expect(await writer.lookUp(id) == "here")
        #expect(await writer.lookUpAsHolder(id) == false, "a Tally is not a TallyHolder")
        let context = ModelContext(container)
        let tally = try #require(context.model(for: id) as? Tally)
        context.delete(tally)
        try context.save()
        #expect(await TallyWriter(modelContainer: container).lookUp(id) == nil, "its row is gone")
    }

    /// Three racing updates of one row from two actors: one written value wins whole, and the
    /// row ends with one holder that alone lists it.
    @Test func racingUpdatesLeaveOneValueAndNoDuplicateToOneTargets() async throws {
        let container = try tallyContainer()
        let first = TallyWriter(modelContainer: container)
        let second = TallyWriter(modelContainer: container)
        let id = try await first.add("contested")
        _ = await second.lookUp(id)  // both actors hold the row before the race
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await first.update(id, amount: 1, holder: "one") }
            group.addTask { try await second.update(id, amount: 2, holder: "two") }
            group.addTask { try await first.update(id, amount: 3, holder: "three") }
            try await group.waitForAll()
        }
        let context = ModelContext(container)
        let tally = try #require(context.model(for: id) as? Tally)
        let written = ["one": 1, "two": 2, "three": 3]
        let holder = try #require(tally.holder)
        #expect(written[holder.name] == tally.amount, "amount and holder come from the same update")
        let holders = try context.fetch(FetchDescriptor<TallyHolder>())
        #expect(holders.count == 3, "each update inserted its holder")
        let claiming = holders.filter { $0.tallies.contains { $0.persistentModelID == id } }
        #expect(claiming.map(\.name) == [holder.name], "only the current holder lists the tally")
    }
}

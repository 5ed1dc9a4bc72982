import Foundation
import Testing

@testable import Cairn

/// After another context saves, this context's next fetch or fault sees it: models without
/// unsaved changes reflect the stored values, models deleted elsewhere become deleted models (no
/// crash), and unsaved local changes are kept until a save, which wins.
@Suite struct FreshViewTests {
    func saved(_ container: ModelContainer, _ labels: [String]) throws -> [PersistentIdentifier] {
        let context = ModelContext(container)
        let tallies = labels.enumerated().map { Tally(label: $0.element, amount: $0.offset) }
        for tally in tallies { context.insert(tally) }
        try context.save()
        return tallies.map(\.persistentModelID)
    }

    @Test func unchangedModelsReflectAnotherContextsSaveOnTheNextFetch() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a", "b"])
        let mine = ModelContext(container)
        let a = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(a.label == "a" && a.amount == 0)

        let theirs = ModelContext(container)
        let theirA = try #require(theirs.model(for: ids[0]) as? Tally)
        theirA.amount = 41
        theirA.holder = TallyHolder(name: "holder")
        try theirs.save()

        // A fetch that does not return `a` still makes it current.
        _ = try mine.fetch(FetchDescriptor<Tally>(predicate: #Predicate { $0.label == "b" }))
        #expect(a.amount == 41)
        #expect(a.holder?.name == "holder", "its relationships too")
    }

    @Test func aFaultAfterAnotherContextsSaveLoadsTheNewValues() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a"])
        let mine = ModelContext(container)
        let a = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(a.amount == 0)
        let theirs = ModelContext(container)
        (theirs.model(for: ids[0]) as? Tally)?.amount = 7
        try theirs.save()
        #expect((mine.model(for: ids[0]) as? Tally)?.amount == 7)
    }

    @Test func aModelDeletedElsewhereBecomesADeletedModel() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["loaded", "never read"])
        let mine = ModelContext(container)
        let loaded = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(loaded.label == "loaded")
        let fault = try #require(mine.model(for: ids[1]) as? Tally)  // no property read yet

        let theirs = ModelContext(container)
        for id in ids { theirs.delete(try #require(theirs.model(for: id) as? Tally)) }
        try theirs.save()

        #expect(try mine.fetchCount(FetchDescriptor<Tally>()) == 0)
        #expect(loaded.isDeleted && loaded.label == "loaded", "it keeps the values it had")
        #expect(loaded.holder == nil && loaded.modelContext == nil)
        // A fault whose row is gone reads placeholders instead of stopping the process.
        #expect(fault.label == "" && fault.amount == 0 && fault.isDeleted)
        #expect(mine.registeredModel(for: ids[0]) as Tally? == nil)
    }

    @Test func unsavedLocalChangesAreKeptAndTheLastSaveWins() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a"])
        let mine = ModelContext(container)
        let a = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(a.label == "a")  // loads the model
        a.amount = 100  // unsaved
        let theirs = ModelContext(container)
        (theirs.model(for: ids[0]) as? Tally)?.amount = 200
        (theirs.model(for: ids[0]) as? Tally)?.label = "theirs"
        try theirs.save()
        _ = try mine.fetch(FetchDescriptor<Tally>())
        #expect(a.amount == 100, "the local change is kept")
        #expect(a.label == "theirs", "an attribute this context did not change shows the stored value")
        try mine.save()
        let check = ModelContext(container)
        let stored = try #require(check.model(for: ids[0]) as? Tally)
        #expect(stored.amount == 100 && stored.label == "theirs", "the last save wins for what it changed")
    }

    /// A model changed here and deleted elsewhere: the save reports it and writes nothing.
    @Test func savingAModelDeletedElsewhereIsAConflict() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a", "b"])
        let mine = ModelContext(container)
        let a = try #require(mine.model(for: ids[0]) as? Tally)
        a.amount = 5  // a fault changed without loading the rest
        let other = try #require(mine.model(for: ids[1]) as? Tally)
        other.amount = 6
        let theirs = ModelContext(container)
        theirs.delete(try #require(theirs.model(for: ids[0]) as? Tally))
        try theirs.save()
        let error = #expect(throws: SaveError.self) { try mine.save() }
        #expect(error?.code == .modelDeletedElsewhere && error?.models == [ids[0]])
        #expect(mine.hasChanges, "nothing was saved, every change is kept")
        mine.delete(a)
        try mine.save()
        let check = ModelContext(container)
        #expect(try check.fetch(FetchDescriptor<Tally>()).map(\.amount) == [6])
    }

    /// Models inserted and not saved keep their values when the context refreshes everything.
    @Test func insertedModelsSurviveARefreshOfEverything() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a"])
        let mine = ModelContext(container)
        let fresh = Tally(label: "not saved", amount: 9)
        mine.insert(fresh)
        try container.erase()  // writes no history: other contexts refresh everything
        #expect(try mine.fetchCount(FetchDescriptor<Tally>()) == 1, "only the inserted model")
        #expect(fresh.label == "not saved" && fresh.amount == 9)
        let gone = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(gone.label == "" && gone.isDeleted, "the erased row reads as deleted")
        try mine.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tally>()) == 1)
    }

    @Test func aContextThatMissedTheHistoryRefreshesEverything() throws {
        let container = try tallyContainer()
        let ids = try saved(container, ["a"])
        let mine = ModelContext(container)
        let a = try #require(mine.model(for: ids[0]) as? Tally)
        #expect(a.amount == 0)
        let theirs = ModelContext(container)
        let theirA = try #require(theirs.model(for: ids[0]) as? Tally)
        for n in 1...Int(ChangeLog.readCommitsLimit + 200) {
            theirA.amount = n
            try theirs.save()
        }
        _ = try mine.fetchCount(FetchDescriptor<Tally>())
        #expect(a.amount == Int(ChangeLog.readCommitsLimit) + 200)
    }

    /// Another process's saves reach this process's context on its next fetch or fault.
    @Test func anotherProcessesSaveReachesThisContext() throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let ids = try saved(container, ["kept", "removed"])
        let mine = ModelContext(container)
        let kept = try #require(mine.model(for: ids[0]) as? Tally)
        let removed = try #require(mine.model(for: ids[1]) as? Tally)
        #expect(kept.amount == 0 && removed.label == "removed")
        let store = directory.child("Tally.store")
        #expect(try HelperProcess.run(["tally-update", store, "kept", "42"]).output.contains("saved"))
        #expect(try HelperProcess.run(["tally-update", store, "removed", "delete"]).output.contains("saved"))
        #expect(try mine.fetchCount(FetchDescriptor<Tally>()) == 1)
        #expect(kept.amount == 42, "an unchanged model shows the other process's value")
        #expect(removed.isDeleted && removed.label == "removed")
    }
}

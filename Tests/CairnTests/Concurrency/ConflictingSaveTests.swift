import Foundation
import Testing

@testable import Cairn

/// Two contexts that loaded the same models save conflicting relationship changes: the stored
/// graph stays symmetric (every edge has its inverse), and the later save's lists win.
@Suite struct ConflictingSaveTests {
    @Test func aToOneSetInTwoContextsEndsWithOneHolder() throws {
        let container = try tallyContainer()
        let setup = ModelContext(container)
        let tally = Tally(label: "contested", amount: 0)
        setup.insert(tally)
        try setup.save()
        let id = tally.persistentModelID

        let first = ModelContext(container)
        let second = ModelContext(container)
        let inFirst = try #require(first.model(for: id) as? Tally)
        let inSecond = try #require(second.model(for: id) as? Tally)
        #expect(inFirst.holder == nil && inSecond.holder == nil)
        inFirst.holder = TallyHolder(name: "first")
        try first.save()
        inSecond.holder = TallyHolder(name: "second")  // this context never saw "first"
        try second.save()  // the debug invariant check runs here

        let fresh = ModelContext(container)
        let holders = try fresh.fetch(FetchDescriptor<TallyHolder>(sortBy: [SortDescriptor(\.name)]))
        #expect(holders.map(\.name) == ["first", "second"])
        #expect(holders.map { $0.tallies.map(\.label) } == [[], ["contested"]])
        #expect((fresh.model(for: id) as? Tally)?.holder?.name == "second")
        #expect(try fresh.invariantViolations().isEmpty)
    }

    @Test func aToManyChangedInTwoContextsStaysSymmetric() throws {
        let container = try tallyContainer()
        let setup = ModelContext(container)
        let holder = TallyHolder(name: "shared")
        setup.insert(holder)
        try setup.save()
        let id = holder.persistentModelID

        let first = ModelContext(container)
        let second = ModelContext(container)
        let inFirst = try #require(first.model(for: id) as? TallyHolder)
        let inSecond = try #require(second.model(for: id) as? TallyHolder)
        #expect(inFirst.tallies.isEmpty && inSecond.tallies.isEmpty)  // both load the list
        inFirst.tallies.append(Tally(label: "from first", amount: 1))
        try first.save()
        inSecond.tallies.append(Tally(label: "from second", amount: 2))
        try second.save()

        let fresh = ModelContext(container)
        #expect(try fresh.invariantViolations().isEmpty)
        let tallies = try fresh.fetch(FetchDescriptor<Tally>(sortBy: [SortDescriptor(\.label)]))
        let listed = (fresh.model(for: id) as? TallyHolder)?.tallies.map(\.label) ?? []
        // The later save's list wins; a tally it did not list has no holder, not a dangling one.
        #expect(listed == ["from second"])
        #expect(
            tallies.map { "\($0.label): \($0.holder?.name ?? "none")" } == ["from first: none", "from second: shared"])
    }

    /// Deleting a model whose to-many another context extended since it was loaded: the member
    /// this context never saw loses its edge to the deleted row instead of pointing at it.
    @Test func aDeleteRemovesInverseEdgesThisContextNeverSaw() throws {
        let container = try tallyContainer()
        let setup = ModelContext(container)
        let holder = TallyHolder(name: "holder")
        holder.tallies = [Tally(label: "seen", amount: 1)]
        setup.insert(holder)
        try setup.save()
        let id = holder.persistentModelID

        let mine = ModelContext(container)
        let inMine = try #require(mine.model(for: id) as? TallyHolder)
        #expect(inMine.tallies.map(\.label) == ["seen"])
        let theirs = ModelContext(container)
        let inTheirs = try #require(theirs.model(for: id) as? TallyHolder)
        inTheirs.tallies.append(Tally(label: "unseen", amount: 2))
        try theirs.save()
        mine.delete(inMine)
        try mine.save()

        let check = ModelContext(container)
        #expect(try check.invariantViolations().isEmpty)
        let tallies = try check.fetch(FetchDescriptor<Tally>(sortBy: [SortDescriptor(\.label)]))
        #expect(tallies.map { "\($0.label): \($0.holder?.name ?? "none")" } == ["seen: none", "unseen: none"])
    }

    /// A changed model's relationships it did not change follow other contexts' saves, so a later
    /// save does not drop members it never knew about.
    @Test func aChangedModelsUnchangedRelationshipIsRefreshed() throws {
        let container = try tallyContainer()
        let setup = ModelContext(container)
        let holder = TallyHolder(name: "holder")
        holder.tallies = [Tally(label: "first", amount: 1)]
        setup.insert(holder)
        try setup.save()
        let id = holder.persistentModelID

        let mine = ModelContext(container)
        let inMine = try #require(mine.model(for: id) as? TallyHolder)
        #expect(inMine.tallies.count == 1)
        inMine.name = "renamed"  // a change, but not to its tallies
        let theirs = ModelContext(container)
        (theirs.model(for: id) as? TallyHolder)?.tallies.append(Tally(label: "second", amount: 2))
        try theirs.save()
        _ = try mine.fetchCount(FetchDescriptor<Tally>())
        #expect(inMine.tallies.map(\.label).sorted() == ["first", "second"])
        inMine.tallies.append(Tally(label: "third", amount: 3))
        try mine.save()
        let check = ModelContext(container)
        let stored = try #require(check.model(for: id) as? TallyHolder)
        #expect(stored.name == "renamed" && stored.tallies.map(\.label).sorted() == ["first", "second", "third"])
        #expect(try check.invariantViolations().isEmpty)
    }
}

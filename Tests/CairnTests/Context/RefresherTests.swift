import Foundation
import Testing

@testable import Cairn

/// The refresher on its own: what another context's commits do to the models a context holds,
/// applied when the refresher catches up, not when a model is next read.
@Suite struct RefresherTests {
    /// A stored tally held by `mine` with its attributes loaded, and another context's instance.
    func heldTally() throws -> (mine: ModelContext, theirs: ModelContext, held: Tally, their: Tally) {
        let container = try tallyContainer()
        let writer = ModelContext(container)
        let tally = Tally(label: "a", amount: 1)
        writer.insert(tally)
        try writer.save()
        let (mine, theirs) = (ModelContext(container), ModelContext(container))
        let held = try #require(mine.model(for: tally.persistentModelID) as? Tally)
        #expect(held.amount == 1)
        let their = try #require(theirs.model(for: tally.persistentModelID) as? Tally)
        return (mine, theirs, held, their)
    }

    func isLoaded(_ name: String, of tally: Tally, in context: ModelContext) -> Bool {
        context.store.entities["Tally"]!.entity.attributesByName[name]!.access!.isLoaded(tally)
    }

    @Test func anUpdateElsewhereUnloadsTheAttributesAndMovesTheTrackerOn() throws {
        let (mine, theirs, held, their) = try heldTally()
        their.amount = 2
        try theirs.save()
        var commits = mine.commits
        #expect(Refresher(store: mine.store, rows: mine.rows).catchUp(&commits) == nil)
        #expect(!isLoaded("amount", of: held, in: mine) && !isLoaded("label", of: held, in: mine))
        #expect(commits.lastSeen == UInt64(mine.store.environment.info.lastTransactionID))
        #expect(held.amount == 2)
    }

    @Test func anAttributeChangedHereKeepsItsUnsavedValue() throws {
        let (mine, _, held, _) = try heldTally()
        held.amount = 5
        Refresher.makeAttributesStale(held, tables: mine.store.entities["Tally"]!)
        #expect(isLoaded("amount", of: held, in: mine) && held.amount == 5)
        #expect(!isLoaded("label", of: held, in: mine))
    }

    @Test func aDeleteElsewhereMakesTheHeldModelDeletedUnlessItHasChanges() throws {
        let (mine, theirs, held, their) = try heldTally()
        theirs.delete(their)
        try theirs.save()
        var commits = mine.commits
        _ = Refresher(store: mine.store, rows: mine.rows).catchUp(&commits)
        #expect(held.isDeleted)
        #expect(mine.registeredModel(for: held.persistentModelID) as Tally? == nil)

        let (other, _, changed, _) = try heldTally()
        changed.amount = 9
        Refresher.markDeletedElsewhere(changed, identity: &other.identity)
        #expect(!changed.isDeleted && other.registeredModel(for: changed.persistentModelID) as Tally? === changed)
    }
}

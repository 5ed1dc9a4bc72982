import Foundation
import Testing

@testable import Cairn

/// Defects in taking other contexts' commits into account, each fixed.
@Suite struct FreshnessRegressionTests {
    /// A save that changed nothing in the store (a model inserted and deleted before saving)
    /// opened a write transaction that LMDB committed as nothing, yet the context noted the
    /// transaction's id as its own commit. The next writer's commit got that id, and the context
    /// skipped it as its own: a model another context deleted stayed registered and not deleted
    /// (found by the live query property test). A save whose transaction wrote nothing (its
    /// history has no row) now notes no commit.
    @Test func aSaveThatChangesNothingDoesNotHideTheNextCommit() throws {
        let container = try liveContainer(TemporaryDirectory())
        let mine = ModelContext(container)
        let theirs = ModelContext(container)
        let ada = LiveAuthor(label: 1, name: "Ada", group: 1, score: 0)
        theirs.insert(ada)
        try theirs.save()
        let held = try #require(try mine.fetch(FetchDescriptor<LiveAuthor>()).first)
        let passing = LiveAuthor(label: 2, name: "Passing", group: 1, score: 0)
        mine.insert(passing)
        mine.delete(passing)
        try mine.save()
        theirs.delete(ada)
        try theirs.save()
        #expect(try mine.fetchCount(FetchDescriptor<LiveAuthor>()) == 0)
        #expect(held.isDeleted, "the other context's delete was taken into account")
        #expect(
            try mine.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2, "no empty transaction")
    }
}

import Testing

@testable import Cairn

/// What a context counts as seen: its own commits never make it refresh, other commits do.
@Suite struct CommitTrackerTests {
    @Test func anOwnCommitRightAfterTheLastSeenMovesItOn() {
        var tracker = CommitTracker(lastSeen: 5)
        tracker.noteOwn(6)
        #expect(tracker.lastSeen == 6)
        #expect(!tracker.hasUnseen(upTo: 6))
        #expect(tracker.hasUnseen(upTo: 7))
    }

    @Test func anOwnCommitAfterAnotherWritersIsRememberedNotSkippedTo() {
        // Commit 6 is another writer's: the context must still read it.
        var tracker = CommitTracker(lastSeen: 5)
        tracker.noteOwn(7)
        #expect(tracker.lastSeen == 5)
        #expect(tracker.hasUnseen(upTo: 7))
        #expect(tracker.isOwn(7) && !tracker.isOwn(6))
        tracker.advance(to: 7)
        #expect(tracker.lastSeen == 7 && !tracker.isOwn(7))
    }

    @Test func consecutiveOwnCommitsAreAbsorbedOnceTheGapCloses() {
        var tracker = CommitTracker(lastSeen: 10)
        tracker.noteOwn(12)
        tracker.noteOwn(13)
        #expect(tracker.lastSeen == 10)
        // Another writer's 11 is taken into account by a refresh; 12 and 13 follow without a gap.
        tracker.advance(to: 11)
        #expect(tracker.lastSeen == 13 && !tracker.isOwn(12) && !tracker.isOwn(13))
        tracker.noteOwn(15)
        #expect(tracker.lastSeen == 13 && tracker.isOwn(15))
        tracker.noteOwn(14)
        #expect(tracker.lastSeen == 15)
        var other = CommitTracker(lastSeen: 10)
        for commit in [11, 12, 13] as [UInt64] { other.noteOwn(commit) }
        #expect(other.lastSeen == 13 && !other.isOwn(12))
    }

    @Test func advancingAbsorbsFollowingOwnCommitsAndNeverGoesBack() {
        var tracker = CommitTracker(lastSeen: 3)
        for commit in [5, 8, 9] as [UInt64] { tracker.noteOwn(commit) }
        tracker.advance(to: 7)
        #expect(tracker.lastSeen == 9, "8 and 9 are own commits right after 7")
        #expect(!tracker.isOwn(5) && !tracker.isOwn(8) && !tracker.isOwn(9))
        tracker.advance(to: 4)
        #expect(tracker.lastSeen == 9)
        tracker.noteOwn(2)
        #expect(!tracker.isOwn(2) && tracker.lastSeen == 9)
    }
}

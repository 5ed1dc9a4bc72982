import Foundation
import Testing

@testable import Cairn

/// What a relationship list lost and gained, against a reference that compares sets of
/// identities, for appends, removals, reorders, duplicates and lists long enough to be hashed.
@Suite struct MembershipChangeTests {
    private final class Member {}

    private func change(_ old: [Member], _ new: [Member]) -> (removed: [Member], added: [Member]) {
        let change = _MembershipChange(from: old, to: new, identity: { ObjectIdentifier($0) })
        return (change.removed, Array(change.added))
    }

    /// The members of `old` not in `new` and of `new` not in `old`, each in its list's order.
    private func reference(_ old: [Member], _ new: [Member]) -> (removed: [Member], added: [Member]) {
        let oldSet = Set(old.map(ObjectIdentifier.init))
        let newSet = Set(new.map(ObjectIdentifier.init))
        return (
            old.filter { !newSet.contains(ObjectIdentifier($0)) }, new.filter { !oldSet.contains(ObjectIdentifier($0)) }
        )
    }

    /// The same from the addresses of `old`'s members, as a change in place hands them over.
    private func changeFromAddresses(_ old: [Member], _ new: [Member]) -> (removed: [Member], added: [Member]) {
        let addresses = old.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
        let change = addresses.withUnsafeBufferPointer { _MembershipChange(before: $0, to: new) }
        return (change.removed, Array(change.added))
    }

    private func expectAgrees(_ old: [Member], _ new: [Member], _ comment: Comment) {
        let (expectedRemoved, expectedAdded) = reference(old, new)
        for (removed, added) in [change(old, new), changeFromAddresses(old, new)] {
            #expect(removed.map(ObjectIdentifier.init) == expectedRemoved.map(ObjectIdentifier.init), comment)
            #expect(added.map(ObjectIdentifier.init) == expectedAdded.map(ObjectIdentifier.init), comment)
        }
    }

    @Test func anAppendGainsOnlyTheAppendedMember() {
        let members = (0..<5).map { _ in Member() }
        let (removed, added) = change(Array(members[..<4]), members)
        #expect(removed.isEmpty)
        #expect(added.count == 1 && added[0] === members[4])
    }

    @Test func aReorderChangesNothingAndARemovalLosesTheMember() {
        let members = (0..<4).map { _ in Member() }
        let reordered = change(members, members.reversed())
        #expect(reordered.removed.isEmpty && reordered.added.isEmpty)
        let (removed, added) = change(members, [members[0], members[2], members[3]])
        #expect(added.isEmpty)
        #expect(removed.count == 1 && removed[0] === members[1])
    }

    @Test func aMemberAppendedAgainIsNotGainedAndANewOneListedTwiceIsGainedTwice() {
        let members = (0..<3).map { _ in Member() }
        let again = change(members, members + [members[0]])
        #expect(again.removed.isEmpty && again.added.isEmpty)
        let fresh = Member()
        let twice = change(members, members + [fresh, fresh])
        #expect(twice.added.count == 2 && twice.added.allSatisfy { $0 === fresh })
    }

    @Test func randomChangesOfShortAndLongListsAgreeWithSetsOfIdentities() {
        var generator = SeededGenerator(seed: 0x6d62_6368)
        for round in 0..<400 {
            // Long reordered lists (up to 80) cost less hashed than compared pairwise.
            let pool = (0..<Int(generator.next() % 80 + 1)).map { _ in Member() }
            func pick() -> [Member] {
                (0..<Int(generator.next() % UInt64(pool.count + 1))).map { _ in
                    pool[Int(generator.next() % UInt64(pool.count))]
                }
            }
            let old = pick()
            // Half the rounds keep the old list as the start of the new one, as an append does.
            let new = round % 2 == 0 ? old + pick() : pick()
            expectAgrees(old, new, "round \(round), seed 0x6d626368")
        }
    }
}

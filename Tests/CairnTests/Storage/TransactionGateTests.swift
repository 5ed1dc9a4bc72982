import Foundation
import Testing

@testable import CairnStorage

/// The gate every transaction passes: shared holders side by side, an exclusive holder alone,
/// nested shared entries past a waiting exclusive one but never an active one.
@Suite struct TransactionGateTests {
    /// Counts who is inside the gate, from every thread at once.
    private final class Occupancy: @unchecked Sendable {
        private let lock = NSLock()
        private var shared = 0  // guarded by lock
        private var exclusive = 0  // guarded by lock
        private var violations = 0  // guarded by lock

        func enterShared() {
            lock.withLock {
                shared += 1; if exclusive > 0 { violations += 1 }
            }
        }
        func leaveShared() { lock.withLock { shared -= 1 } }
        func enterExclusive() {
            lock.withLock {
                exclusive += 1
                if shared > 0 || exclusive > 1 { violations += 1 }
            }
        }
        func leaveExclusive() { lock.withLock { exclusive -= 1 } }
        var violationCount: Int { lock.withLock { violations } }
    }

    @Test func sharedHoldersNeverMeetAnExclusiveOne() {
        let gate = TransactionGate()
        let occupancy = Occupancy()
        let readers = (0..<4).map { reader in
            TestThread.detached {
                for round in 0..<20_000 {
                    gate.enterShared(nested: false)
                    occupancy.enterShared()
                    // Every eighth entry nests another, as a read inside a read does.
                    if (round + reader) % 8 == 0 {
                        gate.enterShared(nested: true)
                        gate.leaveShared()
                    }
                    occupancy.leaveShared()
                    gate.leaveShared()
                }
                return true
            }
        }
        let writers = (0..<2).map { _ in
            TestThread.detached {
                for _ in 0..<500 {
                    gate.withExclusive {
                        occupancy.enterExclusive()
                        occupancy.leaveExclusive()
                    }
                }
                return true
            }
        }
        #expect((readers + writers).allSatisfy { $0.join() })
        #expect(occupancy.violationCount == 0)
    }

    @Test func aWaitingExclusiveEntryBlocksNewSharedOnesButNotNestedOnes() throws {
        let gate = TransactionGate()
        gate.enterShared(nested: false)
        let exclusiveDone = Flag()
        let exclusive = TestThread.detached {
            gate.withExclusive { exclusiveDone.set() }
            return true
        }
        // Wait until the exclusive entry is waiting for the shared holder.
        usleep(50_000)
        #expect(!exclusiveDone.isSet, "an exclusive entry passed a shared holder")
        let sharedEntered = Flag()
        let newcomer = TestThread.detached {
            gate.enterShared(nested: false)
            sharedEntered.set()
            gate.leaveShared()
            return true
        }
        usleep(50_000)
        #expect(!sharedEntered.isSet, "a new shared entry passed a waiting exclusive one")
        // The holder's own nested entry passes (waiting there would deadlock).
        gate.enterShared(nested: true)
        gate.leaveShared()
        gate.leaveShared()
        #expect(exclusive.join() && newcomer.join())
        #expect(exclusiveDone.isSet && sharedEntered.isSet)
    }
}

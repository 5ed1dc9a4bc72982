import Foundation
import Testing

@testable import Cairn

/// A read leaves its transaction open in the pool (parked) for the next read, which uses it as
/// it is only while it would read the same: nothing committed by any process and no table opened
/// since. A parked transaction never holds writers back for long.
///
/// A sweep resets a transaction parked longer than `readParkingLimit` (20 ms by default), on
/// another thread: a test that counts parked transactions with that limit races the sweep on a
/// busy machine. The tests that count them park for ten minutes (`parkedForTheTest`); the one
/// that tests the sweep lets a count of zero pass only when the limit had passed.
@Suite struct ParkedReadTests {
    /// Longer than any test: no sweep resets a parked transaction while a test counts it.
    static let parkedForTheTest: UInt64 = 600_000_000_000

    /// The last numbered transaction committed to the numbered store at `path` (`commit-count`).
    private static func last(_ environment: LMDBEnvironment, _ table: Table) throws -> UInt64 {
        try environment.read { txn in
            // The helper's numbered transactions: `last` holds the last one's number, big-endian.
            try txn.get(Array("last".utf8), in: table).map { $0.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } } ?? 0
        }
    }

    @Test func aReadParksItsTransactionUntilAWrite() throws {
        let store = try TemporaryStore { $0.readParkingLimit = Self.parkedForTheTest }
        let table = try store.table()
        try store.environment.write { txn in try txn.put([1], for: [1], in: table) }
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [1])
        #expect(store.environment.parkedReaders == 1)
        // A write of this process resets it first: the pages it frees stay reusable.
        try store.environment.write { txn in try txn.put([2], for: [1], in: table) }
        #expect(store.environment.parkedReaders == 0)
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [2], "renewed: the new commit")
        #expect(store.environment.parkedReaders == 1)
    }

    /// Creating a table is a write too: it resets the parked transaction first, as a save does.
    /// Otherwise where the pages it writes go would depend on whether a sweep had come yet, and a
    /// store's layout, with the calls that write it, on the machine's load.
    @Test func creatingATableResetsTheParkedRead() throws {
        let store = try TemporaryStore { $0.readParkingLimit = Self.parkedForTheTest }
        let table = try store.table()
        try store.environment.write { txn in try txn.put([1], for: [1], in: table) }
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [1])
        #expect(store.environment.parkedReaders == 1)
        _ = try store.environment.openTable("created-after-a-read", create: true)
        #expect(store.environment.parkedReaders == 0)
        // Opening a table that exists writes nothing: the parked read stays.
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [1])
        _ = try store.environment.openTable("created-after-a-read")
        #expect(store.environment.parkedReaders == 1)
    }

    /// Unused past the limit, a parked transaction is reset by a sweep, and the next read renews it.
    @Test func aSweepResetsAReadParkedPastTheLimit() throws {
        let limit: UInt64 = 200_000_000  // 200 ms: long enough that the count below almost always sees it parked
        let store = try TemporaryStore { $0.readParkingLimit = limit }
        let table = try store.table()
        try store.environment.write { txn in try txn.put([2], for: [1], in: table) }
        // The sweep compares the kernel's coarse monotonic clock, which this reads too: a
        // transaction parked after `start` cannot be swept before `start + limit`.
        let start = Self.coarseNow()
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [2])
        let parked = store.environment.parkedReaders
        let elapsed = Self.coarseNow() - start
        #expect(parked == 1 || elapsed >= limit, "swept after \(elapsed) ns, before the limit of \(limit) ns")
        let deadline = Date().addingTimeInterval(Double(limit) / 1e9 * 50)
        while store.environment.parkedReaders > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(store.environment.parkedReaders == 0, "no sweep reset it within 50 times the limit")
        let again = Self.coarseNow()
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [2])
        let parkedAgain = store.environment.parkedReaders
        #expect(parkedAgain == 1 || Self.coarseNow() - again >= limit, "the read after the sweep parks again")
    }

    /// The clock the reader pool stamps and sweeps with (`CLOCK_MONOTONIC_COARSE` on Linux).
    private static func coarseNow() -> UInt64 {
        #if canImport(Darwin)
        return clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        #endif
    }

    /// Another process's commits leave this process's parked transaction on an old snapshot,
    /// without any write here to reset it: the next read sees them all the same.
    @Test func aReadAfterAnotherProcessCommittedSeesTheCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        // Parked for as long as the test takes, so that each read after a commit starts from
        // the parked transaction and its old snapshot.
        var configuration = StorageConfiguration(path: path)
        configuration.readParkingLimit = Self.parkedForTheTest
        let environment = try LMDBEnvironment.openOrCreate(configuration)
        let table = try environment.openTable("t", create: true)!
        #expect(try Self.last(environment, table) == 0)
        for round in 1...3 as ClosedRange<UInt64> {
            #expect(environment.parkedReaders == 1)
            let helper = try HelperProcess.run(["commit-count", path, String(round * 2)])
            #expect(helper.status == 0, "\(helper.errors)")
            #expect(try Self.last(environment, table) == round * 2)
        }
    }

    /// LMDB gives a read transaction only the tables open when it began: a table opened after
    /// the parked one began is read through a renewed transaction.
    @Test func aTableOpenedAfterTheParkedReadBeganIsReadable() throws {
        let directory = TemporaryDirectory()
        var configuration = StorageConfiguration(path: directory.child("store"))
        configuration.readParkingLimit = Self.parkedForTheTest
        do {
            let environment = try LMDBEnvironment.create(configuration)
            let (first, second) = (
                try environment.openTable("a", create: true)!, try environment.openTable("b", create: true)!
            )
            try environment.write { txn in
                try txn.put([1], for: [1], in: first)
                try txn.put([2], for: [2], in: second)
            }
        }
        let environment = try LMDBEnvironment.open(configuration)
        let first = try environment.openTable("a")!
        #expect(try environment.read { txn in try txn.get([1], in: first) } == [1])
        #expect(environment.parkedReaders == 1)
        // Opened without a write: no commit that would renew the parked transaction anyway.
        let second = try environment.openTable("b")!
        #expect(try environment.read { txn in try txn.get([2], in: second) } == [2])
        #expect(try environment.read { txn in try txn.get([1], in: first) } == [1])
    }

    /// The pool keeps at most a quarter of the reader slots: a read nested in another ends with
    /// its transaction aborted when the pool is full, and both reads see the same rows.
    @Test func aFullPoolAbortsTheTransactionsItCannotKeep() throws {
        let store = try TemporaryStore {
            $0.maximumReaders = 4  // a pool of one
            $0.readParkingLimit = Self.parkedForTheTest
        }
        let table = try store.table()
        try store.environment.write { txn in try txn.put([1], for: [1], in: table) }
        let (outer, inner) = try store.environment.read { txn in
            (try txn.get([1], in: table), try store.environment.read { try $0.get([1], in: table) })
        }
        #expect(outer == [1] && inner == [1])
        #expect(store.environment.parkedReaders == 1, "the first to end is kept, the other aborted")
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [1])
        #expect(store.environment.parkedReaders == 1)
    }
}

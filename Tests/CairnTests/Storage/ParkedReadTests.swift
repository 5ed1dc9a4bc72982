import Foundation
import Testing

@testable import Cairn

/// A read leaves its transaction open in the pool (parked) for the next read, which uses it as
/// it is only while it would read the same: nothing committed by any process and no table opened
/// since. A parked transaction never holds writers back for long.
@Suite struct ParkedReadTests {
    /// The last numbered transaction committed to the numbered store at `path` (`commit-count`).
    private static func last(_ environment: LMDBEnvironment, _ table: Table) throws -> UInt64 {
        try environment.read { txn in
            // The helper's numbered transactions: `last` holds the last one's number, big-endian.
            try txn.get(Array("last".utf8), in: table).map { $0.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } } ?? 0
        }
    }

    @Test func aReadParksItsTransactionUntilAWriteOrTheLimit() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn in try txn.put([1], for: [1], in: table) }
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [1])
        #expect(store.environment.parkedReaders == 1)
        // A write of this process resets it first: the pages it frees stay reusable.
        try store.environment.write { txn in try txn.put([2], for: [1], in: table) }
        #expect(store.environment.parkedReaders == 0)
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [2], "renewed: the new commit")
        #expect(store.environment.parkedReaders == 1)
        // Unused past the limit, a sweep resets it.
        let limit = Double(StorageConfiguration(path: store.path).readParkingLimit) / 1e9
        let deadline = Date().addingTimeInterval(limit * 50)
        while store.environment.parkedReaders > 0 && Date() < deadline { Thread.sleep(forTimeInterval: limit) }
        #expect(store.environment.parkedReaders == 0)
        #expect(try store.environment.read { txn in try txn.get([1], in: table) } == [2])
    }

    /// Another process's commits leave this process's parked transaction on an old snapshot,
    /// without any write here to reset it: the next read sees them all the same.
    @Test func aReadAfterAnotherProcessCommittedSeesTheCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        // Parked for as long as the test takes, so that each read after a commit starts from
        // the parked transaction and its old snapshot.
        var configuration = StorageConfiguration(path: path)
        configuration.readParkingLimit = 600_000_000_000
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
        let configuration = StorageConfiguration(path: directory.child("store"))
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
        let store = try TemporaryStore { $0.maximumReaders = 4 }  // a pool of one
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

import Foundation
import Testing

@testable import Cairn

/// Regressions found by reviewing the storage layer. Each test names the bug, the symptom and the fix.
@Suite struct StorageReviewRegressionTests {
    // Bug: `hasWrites` was set only after a put succeeded, but LMDB dirties pages for a
    // `.noDuplicateData` put of an existing pair (MDB_KEYEXIST) and still commits a new snapshot.
    // Symptom: that commit had no commit marker, and the next open refused the healthy store as
    // damaged. Fix: mark the transaction as writing before every mutating call.
    @Test func aPutThatChangesNothingLeavesAnOpenableStore() throws {
        let directory = TemporaryDirectory()
        let configuration = StorageConfiguration(path: directory.child("store"))
        do {
            let environment = try LMDBEnvironment.create(configuration)
            let edges = try environment.openTable("r/A/b", flags: .duplicateSort, create: true)!
            try environment.write { txn in try txn.put(key(2), for: key(1), in: edges) }
            try environment.write { txn in try txn.put(key(3), for: key(1), in: edges) }
            let inserted = try environment.write { txn in
                try txn.put(key(2), for: key(1), in: edges, options: .noDuplicateData)
            }
            #expect(!inserted)
            try environment.write { txn in try txn.delete(key(9), in: edges) }  // absent: changes nothing
        }
        let reopened = try LMDBEnvironment.open(configuration)
        let edges = try reopened.openTable("r/A/b", flags: .duplicateSort)!
        #expect(try reopened.read { txn in try txn.duplicateCount(of: key(1), in: edges) } == 2)
    }

    /// A closed store's data file, and the byte offset of its newest meta page.
    static func closedStore(_ directory: TemporaryDirectory) throws -> (path: String, bytes: [UInt8], newest: Int) {
        let path = directory.child("store")
        do {
            let environment = try LMDBEnvironment.create(StorageConfiguration(path: path))
            let table = try environment.openTable("t", create: true)!
            for batch in 0..<5 {
                try environment.write { txn in
                    for n in batch * 300..<(batch + 1) * 300 {
                        try txn.put([UInt8](repeating: 7, count: 40), for: key(n), in: table)
                    }
                }
            }
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
        let meta = DataFileBytes(storage: bytes)
        let newest =
            meta.uint64(at: 4096 + DataFileValidator.Offset.transactionID)
                > meta.uint64(at: DataFileValidator.Offset.transactionID) ? 4096 : 0
        return (path, bytes, newest)
    }

    static func set(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
    }

    // Bug: the validator required the file to hold every page up to the meta page's last page,
    // but LMDB never writes pages allocated and freed in one transaction, so a healthy file can
    // end earlier. Symptom: "Restore it from a backup" for a healthy store. Fix: a short file is
    // accepted when a walk of every tree finds no referenced page past its end.
    @Test func aHealthyFileShorterThanItsLastPageOpens() throws {
        let directory = TemporaryDirectory()
        var (path, bytes, newest) = try Self.closedStore(directory)
        let lastPage = DataFileBytes(storage: bytes).uint64(at: newest + DataFileValidator.Offset.lastPage)
        // Five pages that nothing references, past the end of the file, as LMDB can leave them.
        Self.set(lastPage + 5, at: newest + DataFileValidator.Offset.lastPage, in: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
        let table = try environment.openTable("t")!
        #expect(try environment.read { txn in try txn.count(of: table) } == 1500)
    }

    // The same walk refuses a short file when the trees do reference a missing page.
    @Test func aShortFileMissingAReferencedPageIsRefused() throws {
        let directory = TemporaryDirectory()
        let (path, bytes, _) = try Self.closedStore(directory)
        // Cut one page from the middle's worth of data: keep the metas, drop the last quarter.
        let kept = Array(bytes.prefix((bytes.count / 4096) * 3 / 4 * 4096))
        try Data(kept).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        #expect { try LMDBEnvironment.open(StorageConfiguration(path: path)) } throws: {
            ($0 as? StorageError)?.code == .damaged
        }
    }

    // Bug: the validator required the map size to be a multiple of the page size; LMDB does not
    // round it (a store created by another program with a map of 10^9 bytes). Fix: dropped.
    @Test func aMapSizeThatIsNotAPageMultipleIsAccepted() throws {
        let directory = TemporaryDirectory()
        var (path, bytes, newest) = try Self.closedStore(directory)
        Self.set(1_000_000_000, at: newest + DataFileValidator.Offset.mapSize, in: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        _ = try LMDBEnvironment.open(StorageConfiguration(path: path))
    }

    // Bug: LMDB 0.9's mdb_dbi_open ignores the requested flags of an existing table, so opening a
    // plain table as .duplicateSort "worked" and a second value silently replaced the first.
    // Fix: compare the stored flags (mdb_dbi_flags) and refuse a mismatch.
    @Test func openingAnExistingTableWithOtherFlagsIsRefused() throws {
        let directory = TemporaryDirectory()
        let configuration = StorageConfiguration(path: directory.child("store"))
        do {
            let environment = try LMDBEnvironment.create(configuration)
            _ = try environment.openTable("i/A/x", create: true)
        }
        let reopened = try LMDBEnvironment.open(configuration)
        #expect { try reopened.openTable("i/A/x", flags: .duplicateSort) } throws: {
            ($0 as? StorageError)?.message.contains("other flags") == true
        }
        #expect(try reopened.openTable("i/A/x") != nil)
    }

    // Bug: a nested shared entry (a read on store B inside a transaction on store A) skipped
    // waiting even while another thread held B's gate exclusively and was remapping B.
    // Fix: nested entries pass only a *waiting* exclusive entry, never an active one.
    @Test func aNestedSharedEntryWaitsForAnActiveExclusiveOne() throws {
        let gate = TransactionGate()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let entered = Flag()
        Foundation.Thread {
            gate.withExclusive {
                inside.signal(); release.wait()
            }
        }.start()
        inside.wait()
        let nested = Foundation.Thread {
            gate.enterShared(nested: true)
            entered.set()
            gate.leaveShared()
        }
        nested.start()
        usleep(50_000)
        #expect(!entered.isSet, "the nested entry passed an active exclusive holder")
        release.signal()
        while !entered.isSet { usleep(1000) }
    }

    // Bug: MDB_GET_BOTH leaves the cursor's key pointing at the caller's bytes, so `current.key`
    // read freed memory after `seek(key:value:)` returned. Fix: re-read the position.
    @Test func seekingAPairPointsTheCursorIntoTheStore() throws {
        let store = try TemporaryStore()
        let edges = try store.table("e", flags: .duplicateSort)
        try store.environment.write { txn in try txn.put(key(2), for: key(1), in: edges) }
        try store.environment.read { txn in
            try txn.withCursor(on: edges) { cursor throws in
                let probe = key(1)
                #expect(try cursor.seek(key: probe, value: key(2)))
                let probeAddress = probe.withUnsafeBytes { $0.baseAddress }
                #expect(cursor.current.key.baseAddress != probeAddress)
                #expect(Array(cursor.current.key) == key(1) && Array(cursor.current.value) == key(2))
            }
        }
    }

    // Two paths to one directory (a symbolic link) reach one environment: the registry keys on
    // the directory's device and inode, not its path.
    @Test func aLinkedPathReachesTheSameEnvironment() throws {
        let store = try TemporaryStore()
        let link = store.directory.child("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store.path)
        #expect(try LMDBEnvironment.open(StorageConfiguration(path: link)) === store.environment)
    }

    // A table handle from one store used in another store's transaction would silently name
    // whatever table has that number there; it stops the process instead.
    @Test func aTableOfAnotherStoreStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let first = try TemporaryStore("first")
            let second = try TemporaryStore("second")
            let table = try first.table("a")
            _ = try second.table("b")
            try second.environment.write { txn in try txn.put([1], for: [1], in: table) }
        }
    }
}

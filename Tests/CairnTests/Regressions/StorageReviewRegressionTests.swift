import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

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

    // Bug: the page walk required a large value's run of overflow pages to be exactly as long as
    // the value needs. LMDB rewrites a value that shrank in place and keeps the run's length (its
    // free list does this at every commit once it spans pages). Symptom: a healthy store with a
    // large free list or a shrunken large value was "recovered" to its previous commit, losing
    // the last one. Fix: a run may be longer than its value needs; the tree's record counts it.
    @Test func largeValuesThatShrankAndLargeFreeListsOpenAsTheyAre() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        do {
            let environment = try LMDBEnvironment.create(StorageConfiguration(path: path))
            let table = try environment.openTable("t", create: true)!
            try environment.write { txn in
                try txn.put([UInt8](repeating: 1, count: 40_000), for: [1], in: table)
                try txn.put([UInt8](repeating: 2, count: 5_000), for: [1], in: table)  // shrinks in place
                for n in 0..<20_000 { try txn.put([UInt8](repeating: 3, count: 100), for: key(n + 10), in: table) }
            }
            // Freeing most pages makes a free list longer than a page, saved at every commit.
            try environment.write { txn in for n in 0..<19_000 { _ = try txn.delete(key(n + 10), in: table) } }
            try environment.write { txn in try txn.put([4], for: [2], in: table) }
            try environment.write { txn in try txn.put([5], for: [3], in: table) }
        }
        let reopened = try LMDBEnvironment.open(StorageConfiguration(path: path))
        #expect(reopened.recovery == nil, "\(String(describing: reopened.recovery))")
        let table = try #require(try reopened.openTable("t"))
        #expect(try reopened.read { txn in try txn.get([1], in: table) } == [UInt8](repeating: 2, count: 5_000))
        #expect(try reopened.checkPages().problems == [])
    }

    // Bug: a meta page in the wrong slot (the two meta pages swapped) passed as sound, was
    // "repaired" in place, and LMDB, which reads commit t from slot t % 2, then read the other
    // slot's trees as commit t. Symptom: every later open refused the store. Fix: a page in the
    // wrong slot is not whole; the chosen commit is written to its own slot.
    @Test func swappedMetaPagesOpenAtTheNewestCommit() throws {
        let directory = TemporaryDirectory()
        var (path, bytes, _) = try Self.closedStore(directory)
        let contents = try Self.entries(path)
        let page0 = Array(bytes[0..<4096]), page1 = Array(bytes[4096..<8192])
        bytes.replaceSubrange(0..<4096, with: page1)
        bytes.replaceSubrange(4096..<8192, with: page0)
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        do {
            let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
            #expect(environment.recovery?.skippedTransaction == nil, "nothing is lost")
            #expect(try Self.entries(path) == contents)
            let table = try #require(try environment.openTable("t"))
            try environment.write { txn in try txn.put([9], for: [0xFE], in: table) }
        }
        let again = try LMDBEnvironment.open(StorageConfiguration(path: path))
        #expect(again.recovery == nil)
        #expect(try Self.entries(path).count == contents.count + 1)
    }

    // Bug: a compacted copy keeps an empty tree in meta page 0 (transaction 0) and its data in
    // page 1 (transaction 1). With page 1 damaged, the empty page 0 was "recovered" to, and the
    // store layer then started a new, empty store over the data still in the file. Fix: a commit
    // is never recovered to an empty snapshot; the store is refused. (Cairn's own compacted copies
    // now name the copied trees in both pages, see the next test; a copy made by LMDB's tools or
    // by an earlier version still has the empty page, which this test rebuilds.)
    @Test func aDamagedCompactedCopyIsRefusedNotEmptied() throws {
        let directory = TemporaryDirectory()
        let source = try TemporaryStore()
        let table = try source.table("t")
        try source.environment.write { txn in for n in 0..<500 { try txn.put([7], for: key(n), in: table) } }
        let copy = directory.child("copy")
        try source.environment.backup(to: copy)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy + "/data.mdb")))
        // What mdb_env_copyfd2(MDB_CP_COMPACT) writes: page 1 the data under transaction 1, page 0
        // an empty main tree under transaction 0 with two pages.
        func set(_ value: UInt64, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
        }
        let dataPage = DataFileBytes(storage: bytes).uint64(at: MetaPage.Offset.transactionID) % 2 == 1 ? 0 : 4096
        bytes.replaceSubrange(4096..<8192, with: bytes[dataPage..<dataPage + 4096])
        bytes.replaceSubrange(0..<4096, with: bytes[4096..<8192])
        set(1, at: 4096 + MetaPage.Offset.pageNumber)
        set(1, at: 4096 + MetaPage.Offset.transactionID)
        set(0, at: MetaPage.Offset.pageNumber)
        set(0, at: MetaPage.Offset.transactionID)
        set(1, at: MetaPage.Offset.lastPage)
        bytes.replaceSubrange(
            MetaPage.Offset.mainDB..<MetaPage.Offset.mainDB + 48,
            with: [UInt8](repeating: 0, count: 40) + [UInt8](repeating: 0xFF, count: 8))
        bytes[4096 + MetaPage.Offset.mainDB + 40] ^= 0x01  // page 1's main root moves
        try Data(bytes).write(to: URL(fileURLWithPath: copy + "/data.mdb"))
        #expect { try LMDBEnvironment.open(StorageConfiguration(path: copy)) } throws: { error in
            (error as? StorageError)?.code == .damaged
        }
        let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy + "/data.mdb")))
        #expect(after == bytes, "the file is left as it was")
    }

    /// A compacted copy made by Cairn goes on from the commit it copied: its meta pages hold that
    /// commit's id and the one before, both naming the copied trees. It opens whole; with its
    /// newest page damaged it is refused (the other page's id does not match the snapshot's
    /// marker), never opened empty or at another commit.
    @Test func aCompactedCopyGoesOnFromTheCopiedCommit() throws {
        let directory = TemporaryDirectory()
        let source = try TemporaryStore()
        let table = try source.table("t")
        for n in 0..<5 { try source.environment.write { txn in try txn.put([7], for: key(n), in: table) } }
        let copied = UInt64(source.environment.lastCommittedTransactionID)
        let copy = directory.child("copy")
        try source.environment.backup(to: copy)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy + "/data.mdb")))
        let ids = [0, 4096].map { DataFileBytes(storage: bytes).uint64(at: $0 + MetaPage.Offset.transactionID) }
        #expect(ids[Int(copied % 2)] == copied && ids[1 - Int(copied % 2)] == copied - 1)
        #expect(try Self.entries(copy).filter { $0.hasPrefix("t ") }.count == 5)
        #expect(UInt64(try LMDBEnvironment.open(StorageConfiguration(path: copy)).lastCommittedTransactionID) == copied)

        let damaged = directory.child("damaged")
        try source.environment.backup(to: damaged)
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: damaged + "/data.mdb")))
        bytes[Int(copied % 2) * 4096 + MetaPage.Offset.mainDB + 40] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: damaged + "/data.mdb"))
        #expect { try LMDBEnvironment.open(StorageConfiguration(path: damaged)) } throws: { error in
            (error as? StorageError)?.code == .damaged
        }
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: damaged + "/data.mdb"))) == bytes)
    }

    /// Every table's entries, as "name key=value" strings.
    static func entries(_ path: String) throws -> [String] {
        let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
        var entries: [String] = []
        for name in try environment.tableNames() {
            let table = try #require(
                try environment.openTable(name, flags: try TableCatalog(environment: environment).storedFlags(of: name))
            )
            try environment.read { txn in
                try txn.scan(table) { key, value in
                    entries.append("\(name) \(Array(key))=\(Array(value))")
                    return true
                }
            }
        }
        return entries
    }
}

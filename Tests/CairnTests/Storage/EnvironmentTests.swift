import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

@Suite struct EnvironmentTests {
    @Test func createAndOpenAreSeparatePaths() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        #expect { try LMDBEnvironment.open(StorageConfiguration(path: path)) } throws: {
            ($0 as? StorageError)?.code == .notFound
        }
        #expect(!FileManager.default.fileExists(atPath: path), "opening must not create a store")
        let created = try LMDBEnvironment.create(StorageConfiguration(path: path))
        #expect { try LMDBEnvironment.create(StorageConfiguration(path: path)) } throws: {
            ($0 as? StorageError)?.code == .alreadyExists
        }
        let opened = try LMDBEnvironment.open(StorageConfiguration(path: path))
        #expect(opened === created, "one environment per directory per process")
        // No scratch directory is left behind by creation.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store"])
    }

    @Test func creationCleansUpAfterProcessesThatDiedCreatingAStore() throws {
        let directory = TemporaryDirectory()
        // A process that no longer exists (a child that has exited) and a live one (this one).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = directory.child(".cairn-creating-\(child.processIdentifier)-1")
        let live = directory.child(".cairn-creating-\(getpid())-2")
        for path in [dead, live] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        _ = try LMDBEnvironment.create(StorageConfiguration(path: directory.child("store")))
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live), "a live process's scratch directory is left alone")
    }

    @Test func theRegistryClosesAndReopensTheSameDirectory() throws {
        let directory = TemporaryDirectory()
        let configuration = StorageConfiguration(path: directory.child("store"))
        var first: LMDBEnvironment? = try LMDBEnvironment.create(configuration)
        let table = try first!.openTable("t", create: true)!
        try first!.write { txn in try txn.put([42], for: key(1), in: table) }
        let firstID = ObjectIdentifier(first!)
        first = nil
        // The files were closed; opening again gives a fresh environment with the committed data.
        let second = try LMDBEnvironment.open(configuration)
        let reopenedTable = try second.openTable("t")!
        #expect(try second.read { txn in try txn.get(key(1), in: reopenedTable) } == [42])
        _ = firstID
    }

    @Test func theLastCommittedTransactionIDIsTheOneInfoReportsAndAdvancesWithEachCommit() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        let before = store.environment.lastCommittedTransactionID
        #expect(before == store.environment.info.lastTransactionID)
        try store.environment.write { txn in try txn.put([1], for: key(1), in: table) }
        try store.environment.write { txn in try txn.put([2], for: key(2), in: table) }
        #expect(store.environment.lastCommittedTransactionID == before + 2)
        #expect(store.environment.lastCommittedTransactionID == store.environment.info.lastTransactionID)
    }

    @Test func readOnlyStoresRefuseWritesWithATypedError() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn in try txn.put([1], for: key(1), in: table) }
        let copy = store.directory.child("copy")
        try store.environment.backup(to: copy)
        var configuration = StorageConfiguration(path: copy)
        configuration.isReadOnly = true
        let readOnly = try LMDBEnvironment.open(configuration)
        let copyTable = try readOnly.openTable("t")!
        #expect(try readOnly.read { txn in try txn.get(key(1), in: copyTable) } == [1])
        #expect { try readOnly.write { _ in } } throws: { ($0 as? StorageError)?.code == .readOnly }
        #expect { try readOnly.openTable("new", create: true) } throws: { ($0 as? StorageError)?.code == .readOnly }
        #expect(try readOnly.openTable("missing") == nil)
    }

    @Test func reopeningAfterAPanicKeepsTableHandlesAndData() throws {
        let store = try TemporaryStore()
        let tables = try (0..<5).map { try store.table("t\($0)") }
        try store.environment.write { txn in
            for (n, table) in tables.enumerated() { try txn.put([UInt8(n)], for: key(n), in: table) }
        }
        try store.environment.reopenForTesting()
        try store.environment.write { txn in try txn.put([9], for: key(9), in: tables[4]) }
        try store.environment.read { txn in
            for (n, table) in tables.enumerated() {
                let value = try txn.get(key(n), in: table); #expect(value == [UInt8(n)])
            }
            #expect(try txn.get(key(9), in: tables[4]) == [9])
        }
    }

    @Test func aBackupIsACompactedVerifiedCopy() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        let index = try store.table("i", flags: .duplicateSort)
        try store.environment.write { txn in
            for n in 0..<2000 {
                try txn.put([UInt8](repeating: UInt8(n % 256), count: 100), for: key(n), in: table)
                try txn.put(key(n), for: [UInt8(n % 7)], in: index)
            }
        }
        try store.environment.write { txn in for n in 0..<1000 { try txn.delete(key(n), in: table) } }
        let backup = store.directory.child("backup")
        try store.environment.backup(to: backup)
        let copy = try LMDBEnvironment.open(StorageConfiguration(path: backup))
        let copiedTable = try copy.openTable("t")!
        let copiedIndex = try copy.openTable("i", flags: .duplicateSort)!
        try copy.read { txn throws in
            #expect(try txn.count(of: copiedTable) == 1000)
            #expect(try txn.count(of: copiedIndex) == 2000)
            #expect(try txn.get(key(1500), in: copiedTable) == [UInt8](repeating: UInt8(1500 % 256), count: 100))
        }
        let original = try FileManager.default.attributesOfItem(atPath: store.path + "/data.mdb")[.size] as! Int
        let compacted = try FileManager.default.attributesOfItem(atPath: backup + "/data.mdb")[.size] as! Int
        #expect(compacted < original)
        #expect { try store.environment.backup(to: backup) } throws: { ($0 as? StorageError)?.code == .alreadyExists }
    }

    @Test func anEnvironmentIsRefusedInAForkedChild() throws {
        let directory = TemporaryDirectory()
        let result = try HelperProcess.run(["fork-check", directory.child("store")])
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.output.contains("child 0"), "the child must get usedAfterFork and be able to reopen")
        #expect(result.output.contains("parent ok"))
    }

    @Test func filesArePrivateUnderUmaskZero() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("store")
        let result = try HelperProcess.run(["create", store, "000"])
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
        }
        for directory in [store, store + ".backup"] {
            #expect(try mode(directory) == 0o700, "\(directory)")
            for file in ["data.mdb", "lock.mdb"] where FileManager.default.fileExists(atPath: directory + "/" + file) {
                #expect(try mode(directory + "/" + file) == 0o600, "\(directory)/\(file)")
            }
        }
        #expect(
            FileManager.default.fileExists(atPath: store + ".backup/lock.mdb"), "the backup was verified by opening it")
    }
}

import Foundation
import Testing

@testable import CairnStorage

/// Opening a store again skips the page walk only while its data file is unchanged.
@Suite struct WalkedFilesTests {
    /// The data file of the store at `path`, as the validator names it.
    private static func dataFile(_ path: String) throws -> String {
        StoreFiles.dataFile(in: try #require(StoreFiles.canonical(path)))
    }

    /// A store in `directory` holding `rows` rows of 100 bytes, closed again (its environment
    /// is released when this returns).
    private static func store(in directory: TemporaryDirectory, rows: Int) throws -> StorageConfiguration {
        let configuration = StorageConfiguration(path: directory.child("store"))
        let environment = try LMDBEnvironment.create(configuration)
        let table = try environment.openTable("t", create: true)!
        try environment.write { txn in
            for row in 0..<rows {
                try txn.put([UInt8](repeating: UInt8(row % 251), count: 100), for: key(row), in: table)
            }
        }
        return configuration
    }

    @Test func anUnchangedFileIsWalkedOnceAndADamagedOneAgain() throws {
        let directory = TemporaryDirectory()
        let configuration = try Self.store(in: directory, rows: 500)
        // A walk is remembered only when the file's last change is older than the margin.
        Thread.sleep(forTimeInterval: WalkedFiles.margin + 0.2)
        let data = try Self.dataFile(configuration.path)
        do { _ = try LMDBEnvironment.open(configuration) }  // walks, and remembers the walk
        do { _ = try LMDBEnvironment.open(configuration) }  // the same file: not walked again
        #expect(WalkedFiles.shared.skippedWalks(of: data) == 1)

        // Every page after the meta pages overwritten, the size kept: a write, so the file's
        // status-change time moves and the next open walks it and refuses it.
        let file = try #require(FileHandle(forWritingAtPath: data))
        let size = try file.seekToEnd()
        try file.seek(toOffset: 2 * 4096)
        try file.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 2 * 4096))
        try file.close()
        #expect { try LMDBEnvironment.open(configuration) } throws: { ($0 as? StorageError)?.code == .damaged }
        #expect(WalkedFiles.shared.skippedWalks(of: data) == 1)
    }

    @Test func aFileChangedJustBeforeItsWalkIsNotRemembered() throws {
        let directory = TemporaryDirectory()
        let configuration = try Self.store(in: directory, rows: 1)
        // The file changed less than the margin ago: a write in the same clock tick could leave
        // its times unchanged, so the walk is not remembered and the next open walks again.
        do { _ = try LMDBEnvironment.open(configuration) }
        do { _ = try LMDBEnvironment.open(configuration) }
        #expect(WalkedFiles.shared.skippedWalks(of: try Self.dataFile(configuration.path)) == 0)
    }
}

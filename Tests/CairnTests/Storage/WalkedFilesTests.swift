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
        let data = try Self.dataFile(configuration.path)
        let changed = try #require(WalkedFiles.Version(path: data)).changed
        Thread.sleep(forTimeInterval: WalkedFiles.margin(after: changed) + 0.1)
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
        // The file changed less than the margin ago (its times set to now, which stamps its
        // status-change time too): a write in the same clock tick could leave its times
        // unchanged, so the walk is not remembered and the next open walks again.
        #expect(utimes(try Self.dataFile(configuration.path), nil) == 0)
        do { _ = try LMDBEnvironment.open(configuration) }
        do { _ = try LMDBEnvironment.open(configuration) }
        #expect(WalkedFiles.shared.skippedWalks(of: try Self.dataFile(configuration.path)) == 0)
    }

    /// A walk counts only when it began more than a clock tick after the file's last change; a
    /// stamp in whole seconds says the file system ticks in seconds.
    @Test func aWalkCountsOnlyWhenItBeganAClockTickAfterTheLastChange() {
        let fine = timespec(tv_sec: 1_000, tv_nsec: 250_000_000)  // 1,000.25 s
        let whole = timespec(tv_sec: 1_000, tv_nsec: 0)
        #expect(WalkedFiles.margin(after: fine) == WalkedFiles.fineMargin)
        #expect(WalkedFiles.margin(after: whole) == WalkedFiles.margin)
        #expect(WalkedFiles.isSettled(changed: fine, walkStarted: 1_000.25 + WalkedFiles.fineMargin + 0.01))
        #expect(!WalkedFiles.isSettled(changed: fine, walkStarted: 1_000.25 + WalkedFiles.fineMargin - 0.01))
        #expect(!WalkedFiles.isSettled(changed: fine, walkStarted: 1_000))  // a walk begun before the change
        #expect(!WalkedFiles.isSettled(changed: whole, walkStarted: 1_001.5), "within a whole-second tick's margin")
        #expect(WalkedFiles.isSettled(changed: whole, walkStarted: 1_000 + WalkedFiles.margin + 0.01))
    }
}

import Foundation
import Testing

@testable import Cairn

#if canImport(Glibc)
import Glibc
#endif

/// `container.backup(to:compact:)`, as an app uses it: while another process keeps saving, and
/// while that process is killed.
@Suite struct ContainerBackupTests {
    @Test(arguments: [(0, true), (1, false), (2, true)])
    func aBackupTakenWhileTheWriterIsKilledHoldsWholeSaves(round: Int, compact: Bool) throws {
        let directory = TemporaryDirectory()
        let writer = try HelperProcess(["ledger", directory.child("Tally.store"), "60"])
        var acknowledged = 0
        while acknowledged < 20 + 20 * round, let line = writer.readLine() {
            if line.hasPrefix("ack") { acknowledged += 1 }
        }
        let container = try tallyContainer(directory)
        // The writer is killed while the backup is taken (at a different moment each round).
        let pid = writer.process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(300 * round)) { _ = kill(pid, SIGKILL) }
        let copyURL = URL(fileURLWithPath: directory.child("Backup.store"))
        try container.backup(to: copyURL, compact: compact)
        _ = writer.waitForExit()

        let copy = try ModelContainer(
            for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: copyURL, allowsSave: false))
        let tallies = try ModelContext(copy).fetch(FetchDescriptor<Tally>())
        #expect(tallies.count % 2 == 0 && tallies.reduce(0) { $0 + $1.amount } == 0, "whole saves only")
        #expect(tallies.count >= 2 * acknowledged, "every save acknowledged before the backup began")
        #expect(try copy.verify().isClean)
        // The store itself still opens whole after the kill.
        let after = try ModelContext(try tallyContainer(directory)).fetch(FetchDescriptor<Tally>())
        #expect(after.count >= tallies.count && after.reduce(0) { $0 + $1.amount } == 0)
    }

    /// A compacted copy goes on from the commit it copied. LMDB's compacting copy numbers its
    /// snapshot 1, so a store restored from one wrote its next saves under the ids of old commits:
    /// their history entries were overwritten and the new changes sorted before the old ones.
    @Test(arguments: [true, false])
    func aStoreOpenedFromABackupKeepsItsHistoryInOrder(compact: Bool) throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        for index in 0..<5 {
            context.insert(Tally(label: "before \(index)", amount: index))
            try context.save()
        }
        let copyURL = URL(fileURLWithPath: directory.child("Backup.store"))
        try container.backup(to: copyURL, compact: compact)

        let copy = try ModelContainer(for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: copyURL))
        let copyContext = ModelContext(copy)
        let before = try copyContext.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(before.count == 5)
        copyContext.insert(Tally(label: "after", amount: 9))
        try copyContext.save()
        let after = try copyContext.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(after.count == 6, "no earlier transaction overwritten")
        #expect(Array(after.prefix(5)).map(\.token) == before.map(\.token))
        #expect(after.last!.token > before.last!.token, "the new save is the newest transaction")
        let inserted = after.last!.changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(inserted.count == 1 && (copyContext.model(for: inserted[0]) as? Tally)?.label == "after")
        #expect(try copy.verify().isClean)
    }

    @Test func aBackupRefusesAnOccupiedPathAndLeavesIt() throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        context.insert(Tally(label: "one", amount: 1))
        try context.save()
        let occupied = URL(fileURLWithPath: directory.child("Occupied"))
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: true)
        #expect { try container.backup(to: occupied) } throws: { ($0 as? StorageError)?.code == .alreadyExists }
        #expect(FileManager.default.fileExists(atPath: occupied.path), "what was there is left alone")
    }
}

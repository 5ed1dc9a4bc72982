import Foundation
import Testing

@testable import Cairn

extension TallyWriter {
    /// One balanced save: a pair `+k`/`-k`, and 3 moved between the tallies of `previous`.
    func ledgerSave(_ n: Int, previous: [PersistentIdentifier]) throws -> [PersistentIdentifier] {
        let k = n % 50 + 1
        let pair = [Tally(label: "actor \(n) +", amount: k), Tally(label: "actor \(n) -", amount: -k)]
        for tally in pair { modelContext.insert(tally) }
        if previous.count == 2, let from = self[previous[0], as: Tally.self], let to = self[previous[1], as: Tally.self]
        {
            from.amount -= 3
            to.amount += 3
        }
        try modelContext.save()
        return pair.map(\.persistentModelID)
    }
}

/// How long the reader/writer stress runs: `CAIRN_STRESS_SECONDS`, 10 by default.
let stressSeconds = Double(ProcessInfo.processInfo.environment["CAIRN_STRESS_SECONDS"] ?? "") ?? 10

/// A count of finished writers, read from many tasks.
final class WriterCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0  // guarded by lock
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// Readers and writers in several actors and processes at once never see a partial save.
@Suite struct ConcurrentStoreTests {
    @Test func eightReadersNeverSeeAPartialSaveOfTwoWritingActors() async throws {
        let container = try tallyContainer()
        let writers = [TallyWriter(modelContainer: container), TallyWriter(modelContainer: container)]
        // Each writer writes for `stressSeconds` from when it starts (on a busy machine tasks start
        // late); readers read until both writers are done.
        let writersDone = WriterCount()
        let (saves, reads) = try await withThrowingTaskGroup(of: (saves: Int, reads: Int).self) { group in
            for writer in writers {
                group.addTask {
                    defer { writersDone.increment() }
                    var n = 0
                    var previous: [PersistentIdentifier] = []
                    let end = Date().addingTimeInterval(stressSeconds)
                    while Date() < end || n < 20 {
                        n += 1
                        previous = try await writer.ledgerSave(n, previous: previous)
                    }
                    return (n, 0)
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    let context = ModelContext(container)  // one context per reader, kept fresh
                    var reads = 0
                    while writersDone.value < 2 || reads < 3 {
                        let tallies = try context.fetch(FetchDescriptor<Tally>())
                        let sum = tallies.reduce(0) { $0 + $1.amount }
                        #expect(sum == 0 && tallies.count % 2 == 0, "read \(reads): \(tallies.count) rows, sum \(sum)")
                        if sum != 0 { return (0, reads) }
                        reads += 1
                        await Task.yield()
                    }
                    return (0, reads)
                }
            }
            var totals = (saves: 0, reads: 0)
            for try await result in group {
                totals.saves += result.saves
                totals.reads += result.reads
            }
            return totals
        }
        #expect(saves > 10 && reads > 8, "\(saves) saves, \(reads) reads")
        print("ConcurrentStoreTests: \(saves) saves by 2 actors and \(reads) reads by 8 readers in \(stressSeconds) s")
        let final = try ModelContext(container).fetch(FetchDescriptor<Tally>())
        #expect(final.count == saves * 2 && final.reduce(0) { $0 + $1.amount } == 0)
    }

    @Test func aSecondProcessWritesWhileThisOneReadsAndWrites() throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        let helper = try HelperProcess(["ledger", directory.child("Tally.store"), "3"])
        var ownSaves = 0
        var reads = 0
        var previous: [Tally] = []
        while helper.process.isRunning {
            ownSaves += 1
            let k = ownSaves % 50 + 1
            let pair = [Tally(label: "test \(ownSaves) +", amount: k), Tally(label: "test \(ownSaves) -", amount: -k)]
            for tally in pair { context.insert(tally) }
            if previous.count == 2 {
                previous[0].amount -= 3
                previous[1].amount += 3
            }
            try context.save()
            previous = pair
            let reader = ModelContext(container)
            let tallies = try reader.fetch(FetchDescriptor<Tally>())
            #expect(tallies.reduce(0) { $0 + $1.amount } == 0 && tallies.count % 2 == 0)
            reads += 1
        }
        let (status, output, errors) = helper.waitForExit()
        #expect(status == 0, "\(errors)")
        let helperSaves = output.split(separator: "\n").last.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        #expect(output.split(separator: "\n").last?.hasPrefix("done") == true && helperSaves > 0)
        let final = try ModelContext(container).fetch(FetchDescriptor<Tally>())
        #expect(final.count == 2 * (helperSaves + ownSaves), "\(helperSaves) helper saves, \(ownSaves) own")
        #expect(helperSaves > 0 && ownSaves > 0)
        print(
            "ConcurrentStoreTests: \(helperSaves) saves by the helper process, \(ownSaves) saves and \(reads) reads here"
        )
        #expect(final.reduce(0) { $0 + $1.amount } == 0)
        #expect(try context.invariantViolations().isEmpty)
        // The other process grew the map (the store starts at 1 MiB); this one kept reading and
        // writing through it, and uses the larger map now.
        context.insert(Tally(label: "last", amount: 0))
        try context.save()
        #expect(container.store.environment.info.mapSize > 1 << 20)
    }

    @Test func killingAReaderProcessMidReadLeavesTheStoreUsable() throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        for n in 0..<200 { context.insert(Tally(label: "row \(n)", amount: n % 2 == 0 ? n : -(n - 1))) }
        try context.save()
        let reader = try HelperProcess(["ledger-reader", directory.child("Tally.store")])
        var lines: [String] = []
        while lines.count < 5, let line = reader.readLine() { lines.append(line) }
        #expect(lines.allSatisfy { $0.contains("sum 0 count 200") }, "\(lines)")
        reader.kill()  // while it is in the middle of its next fetch
        let (status, _, _) = reader.waitForExit()
        #expect(status != 0)

        // Its reader slots are reclaimed, and the store reads and writes as before.
        #expect(try container.store.environment.reclaimStaleReaders() >= 1)
        context.insert(Tally(label: "after", amount: 0))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tally>()) == 201)
        let writer = try HelperProcess.run(["ledger", directory.child("Tally.store"), "0.5"])
        #expect(writer.status == 0 && writer.output.contains("done"), "\(writer.errors)")
    }
}

import Cairn
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ModelConfiguration.Durability.powerLossSafe`, counted through the fault shim: every save that
/// returns has had the data file flushed after its last write, and a failed flush fails the save
/// without losing or doubling anything.
///
/// The helper process appends "ack n" to the shim's log when save `n` returns, so the log holds
/// each save's counted calls in order, followed by its acknowledgement.
@Suite(.enabled(if: FaultShim.isSupportedPlatform, "the fault shim needs Linux's LD_PRELOAD"))
struct DurabilityTests {
    /// One line of the log: a counted call, or a save's acknowledgement.
    enum Event: Equatable {
        case call(index: Int, name: String, outcome: String)
        case acknowledged(Int)
    }

    static let writes: Set<String> = ["write", "pwrite", "writev", "pwritev"]
    static let flushes: Set<String> = ["fsync", "fdatasync"]

    static func events(inLog path: String) -> [Event] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == "ack", let n = Int(fields[1]) { return .acknowledged(n) }
            guard fields.count >= 3, let index = Int(fields[0]) else { return nil }
            return .call(index: index, name: String(fields[1]), outcome: fields[2...].joined(separator: " "))
        }
    }

    /// The saves that returned while a write to the store's files had not been flushed after it,
    /// and the saves that returned without writing anything (which would make the check vacuous).
    static func unflushedSaves(_ events: [Event]) -> (unflushed: [Int], withoutWrites: [Int]) {
        var unflushed: [Int] = [], withoutWrites: [Int] = []
        var wrote = false, pending = false
        for event in events {
            switch event {
            case .call(_, let name, _) where writes.contains(name):
                wrote = true
                pending = true
            case .call(_, let name, _) where flushes.contains(name):
                pending = false
            case .call:
                break
            case .acknowledged(let n):
                if !wrote { withoutWrites.append(n) }
                if pending { unflushed.append(n) }
                wrote = false
                pending = false
            }
        }
        return (unflushed, withoutWrites)
    }

    /// Runs `durable-saves` under the shim; the log lies beside the store's directory, so the
    /// helper's acknowledgements are not counted calls.
    static func run(
        _ durability: String, saves: Int, in root: TemporaryDirectory, name: String, fault: FaultShim.Fault? = nil
    ) throws -> (run: HelperRun, events: [Event], store: String) {
        let directory = root.child(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/store", log = root.child(name + ".log")
        let environment = try FaultShim.environment(directory: directory, log: log, fault: fault)
        let run = try HelperProcess.run(
            ["durable-saves", store, durability, "\(saves)"], environment: environment, timeLimit: 60)
        return (run, events(inLog: log), store)
    }

    @Test func powerLossSafeFlushesEveryCommitBeforeSaveReturns() throws {
        let root = TemporaryDirectory()
        let (run, events, _) = try Self.run("powerLossSafe", saves: 20, in: root, name: "safe")
        try #require(run.acknowledged == Array(1...20), "\(run.ending): \(run.output) \(run.errorTail)")
        #expect(run.lines.last == "stored 20")
        let acknowledgements = events.filter { if case .acknowledged = $0 { true } else { false } }
        #expect(acknowledgements.count == 20, "every acknowledgement is in the log")
        let check = Self.unflushedSaves(events)
        #expect(check.withoutWrites.isEmpty, "saves that wrote nothing the shim counted: \(check.withoutWrites)")
        #expect(check.unflushed.isEmpty, "saves acknowledged before their last write was flushed: \(check.unflushed)")
    }

    /// The check above can fail: under `.full`, LMDB writes the meta page through a descriptor
    /// opened with `O_DSYNC` and calls no flush after it, which is durable on Linux but is not a
    /// flush the check (or `F_FULLFSYNC` on Apple platforms) counts.
    @Test func theFlushCheckTellsAModeThatLeavesTheMetaPageToTheDrive() throws {
        let root = TemporaryDirectory()
        let (run, events, _) = try Self.run("full", saves: 5, in: root, name: "full")
        try #require(run.acknowledged == Array(1...5), "\(run.ending): \(run.output) \(run.errorTail)")
        #expect(Self.unflushedSaves(events).unflushed == Array(1...5))
    }

    /// A failed flush after a commit fails the save with `.notFlushed`: the save stands and the
    /// context holds no changes, so saving again writes nothing twice; the store holds every save
    /// exactly once.
    @Test func aFailedFlushFailsTheSaveAndLosesNothing() throws {
        let root = TemporaryDirectory()
        let counted = try Self.run("powerLossSafe", saves: 5, in: root, name: "count")
        try #require(counted.run.acknowledged == Array(1...5), "\(counted.run.output) \(counted.run.errorTail)")
        // The flush that acknowledges save 3: the last one before its "ack 3".
        let beforeThird = counted.events.prefix { $0 != .acknowledged(3) }
        let flush = beforeThird.compactMap { event -> Int? in
            if case .call(let index, let name, _) = event, Self.flushes.contains(name) { index } else { nil }
        }.last
        let index = try #require(flush, "no flush before the third save's acknowledgement")

        let fault = FaultShim.Fault(index: index, persistent: false, failure: .EIO)
        let faulted = try Self.run("powerLossSafe", saves: 5, in: root, name: "fault", fault: fault)
        #expect(faulted.run.status == 0 && faulted.run.signal == nil, "\(faulted.run.ending): \(faulted.run.errorTail)")
        #expect(
            faulted.events.contains(.call(index: index, name: "fdatasync", outcome: "EIO")),
            "the shim failed the flush it was meant to")
        let error = try #require(faulted.run.errorLine, "the failed flush failed no save: \(faulted.run.output)")
        #expect(error.hasPrefix("save-3 StorageError.notFlushed"), "\(error)")
        #expect(faulted.run.lines.contains("retried 3"))
        #expect(faulted.run.acknowledged == Array(1...5))
        #expect(faulted.run.lines.last == "stored 5")

        let container = try ModelContainer(
            for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: faulted.store)))
        let labels = try ModelContext(container).fetch(FetchDescriptor<Tally>()).map(\.label).sorted()
        #expect(labels == (1...5).map { "durable \($0)" })
        #expect(try container.verify().isClean)
    }
}

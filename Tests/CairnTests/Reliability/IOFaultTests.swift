import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An I/O error at a chosen write, flush, resize or open call of a child process (the fault shim,
/// loaded with `LD_PRELOAD`): every acknowledged save must be there, nothing of the failed one,
/// keys unique and relationships symmetric, and the store must open and take another save.
///
/// The quick tier fails each call index of a fault-free run once, cycling through the six ways
/// (once or persistent × EIO, ENOSPC, short write); `CAIRN_IO_FAULTS=full` runs every index in
/// every way. `CAIRN_IO_FAULT_CASE="existing call 12 once EIO"` replays one case.
///
/// On Linux the shim must build (the Swift toolchain ships `clang`): if it cannot, every test here
/// fails with the reason instead of being skipped. Other systems have no `LD_PRELOAD`.
@Suite(.enabled(if: FaultShim.isSupportedPlatform, "the fault shim needs Linux's LD_PRELOAD"))
struct IOFaultTests {
    static let environment = ProcessInfo.processInfo.environment
    static let isFull = environment["CAIRN_IO_FAULTS"] == "full"
    static let replayedCase = environment["CAIRN_IO_FAULT_CASE"]

    /// A workload: saves made before the faults (without the shim), then the saves made under them.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var baseSaves: Int
        var saves: Int
        var volumes: Int
        var bodyLength: Int

        var testDescription: String { name }

        /// A new store: the faults also hit its creation.
        static let create = Scenario(name: "create", baseSaves: 0, saves: 3, volumes: 3, bodyLength: 100)
        /// An existing store with two saves.
        static let existing = Scenario(name: "existing", baseSaves: 2, saves: 3, volumes: 3, bodyLength: 100)
        /// Saves of about 400 KB each, so the file and the 1 MiB initial map grow.
        static let grow = Scenario(name: "grow", baseSaves: 2, saves: 3, volumes: 4, bodyLength: 100_000)
    }

    @Test(.timeLimit(.minutes(30)), arguments: [Scenario.create, .existing, .grow])
    func everyFailedCallKeepsAcknowledgedSaves(_ scenario: Scenario) throws {
        let root = TemporaryDirectory("IOFaults-\(scenario.name)")
        let base = root.child("base/store")
        try FileManager.default.createDirectory(atPath: root.child("base"), withIntermediateDirectories: true)
        if scenario.baseSaves > 0 {
            let made = try HelperProcess.run(
                ["fault-save", base, "1", "\(scenario.baseSaves)", "3", "100"], environment: [:], timeLimit: 60)
            try #require(made.acknowledged.count == scenario.baseSaves, "base store: \(made.output) \(made.errors)")
        }

        // A fault-free run under the shim: the calls to fail, and the contents after each save.
        let counting = try runCase(scenario, base: base, directory: root.child("count"), fault: nil, printsStates: true)
        try #require(
            counting.run.lines.last == "done", "fault-free run: \(counting.run.output) \(counting.run.errors)")
        var states: [Int: String] = [:]
        for line in counting.run.lines where line.hasPrefix("state ") {
            let fields = line.dropFirst(6).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            states[Int(fields[0])!] = fields.count > 1 ? String(fields[1]) : ""
        }
        let calls = counting.calls
        try #require(calls.count >= 10, "the shim counted the store's calls: \(calls.count)")
        let kinds = Dictionary(calls.map { ($0.name, 1) }, uniquingKeysWith: +)
        print(
            "IOFaultTests \(scenario.name): a fault-free run makes \(calls.count) counted calls \(kinds.sorted { $0.key < $1.key })"
        )

        let tally = FaultTally("IOFaultTests \(scenario.name)")
        let codes = FaultTally("IOFaultTests \(scenario.name) error codes")
        for (n, fault) in Self.plan(calls).enumerated() {
            let label = "\(scenario.name) \(fault)"
            if let replayedCase = Self.replayedCase, replayedCase != label { continue }
            let directory = root.child("case-\(n)")
            let result = try runCase(scenario, base: base, directory: directory, fault: fault, printsStates: false)
            let (outcome, detail) = Self.classify(result, scenario: scenario, states: states)
            tally.record(label, outcome, detail: detail, failed: outcome != "passed" && outcome != "faultNotReached")
            if let error = result.run.errorLine {
                let code = error.split(separator: " ").dropFirst(error.hasPrefix("save") ? 2 : 1).first ?? "?"
                codes.record(label, "\(fault.failure.rawValue)→\(code)", failed: false)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
        _ = codes.finish()
        for failure in tally.finish().prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(tally.failureCount == 0, "\(tally.summary)")
        if Self.replayedCase == nil { #expect(tally.total >= calls.count) }
    }

    /// The full tier: every index × {once, persistent} × {EIO, ENOSPC, short write}, short only for
    /// writes. The quick tier: every index once, the way cycling through the six.
    static func plan(_ calls: [FaultShim.Call]) -> [FaultShim.Fault] {
        var faults: [FaultShim.Fault] = []
        let ways = [false, true].flatMap { persistent in
            FaultShim.Fault.Failure.allCases.map { (persistent, $0) }
        }
        for (position, call) in calls.enumerated() {
            let applicable = ways.filter { $0.1 != .short || call.isWrite }
            if isFull || replayedCase != nil {
                faults += applicable.map { FaultShim.Fault(index: call.index, persistent: $0.0, failure: $0.1) }
            } else {
                let way = applicable[position % applicable.count]
                faults.append(FaultShim.Fault(index: call.index, persistent: way.0, failure: way.1))
            }
        }
        return faults
    }

    struct CaseResult {
        var run: HelperRun
        var calls: [FaultShim.Call]
        var check: FaultStoreCheck?
    }

    /// Copies the base store into a fresh directory and runs the scenario's saves under the shim,
    /// then checks the store without it.
    func runCase(
        _ scenario: Scenario, base: String, directory: String, fault: FaultShim.Fault?, printsStates: Bool
    ) throws -> CaseResult {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/store"
        if scenario.baseSaves > 0 { try FileManager.default.copyItem(atPath: base, toPath: store) }
        let log = directory + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var environment = try FaultShim.environment(directory: directory, log: log, fault: fault)
        if printsStates { environment["CAIRN_FAULT_STATES"] = "1" }
        let arguments = [
            "fault-save", store, "\(scenario.baseSaves + 1)", "\(scenario.saves)", "\(scenario.volumes)",
            "\(scenario.bodyLength)",
        ]
        let run = try HelperProcess.run(arguments, environment: environment, timeLimit: 30)
        let calls = FaultShim.calls(inLog: log)
        let check = fault == nil ? nil : FaultStoreCheck(store)
        return CaseResult(run: run, calls: calls, check: check)
    }

    /// The case's class and what happened: passed, faultNotReached (the run made fewer calls),
    /// hang, crash, untypedError, lockedOut, lostSave, failedSaveVisible, wrongData,
    /// brokenInvariant or noFurtherSave.
    static func classify(_ result: CaseResult, scenario: Scenario, states: [Int: String]) -> (String, String) {
        let run = result.run
        let said = run.errorLine.map { "reported \($0)" } ?? "no error reported"
        if run.timedOut { return ("hang", said) }
        if run.signal != nil || run.status != 0 {
            return ("crash", "\(run.ending), \(said), stderr: \(run.errorTail)")
        }
        if let error = run.errorLine, error.contains(" untyped ") { return ("untypedError", error) }
        guard let check = result.check else { return ("passed", "") }
        if let openError = check.openError { return ("lockedOut", "\(said); opening afterwards: \(openError)") }
        let acknowledged = run.acknowledged.max() ?? scenario.baseSaves
        if check.canonical != states[acknowledged] {
            let match = states.first { $0.value == check.canonical }?.key
            switch match {
            case let k? where k > acknowledged:
                return ("failedSaveVisible", "acknowledged up to \(acknowledged), the store holds save \(k); \(said)")
            case let k? where k < acknowledged:
                return ("lostSave", "acknowledged up to \(acknowledged), the store holds save \(k); \(said)")
            default:
                return ("wrongData", "acknowledged up to \(acknowledged), the store holds no save's contents; \(said)")
            }
        }
        if !check.problems.isEmpty { return ("brokenInvariant", check.problems.prefix(3).joined(separator: "; ")) }
        if let error = check.furtherSaveError { return ("noFurtherSave", "\(said); the next save: \(error)") }
        if !result.calls.contains(where: { $0.outcome != "ok" }) { return ("faultNotReached", said) }
        return ("passed", "")
    }
}

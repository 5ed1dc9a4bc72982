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
/// The shim logs every counted call, and a failed call where it fails it: each case asserts from
/// that log that its fault fired at the planned call, the planned way, and the sweep asserts that
/// its faults fired at every index of the fault-free run, up to the last. A shim that stopped
/// injecting, or injected elsewhere, fails the suite instead of leaving unfaulted runs to pass.
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
        try #require(
            calls.map(\.index) == Array(1...calls.count), "the fault-free run's calls are numbered 1…\(calls.count)")
        try #require(
            !calls.contains { $0.fired }, "the fault-free run injected nothing: \(calls.filter { $0.fired }.prefix(3))")
        let kinds = Dictionary(calls.map { ($0.name, 1) }, uniquingKeysWith: +)
        print(
            "IOFaultTests \(scenario.name): a fault-free run makes \(calls.count) counted calls \(kinds.sorted { $0.key < $1.key })"
        )

        let tally = FaultTally("IOFaultTests \(scenario.name)")
        let codes = FaultTally("IOFaultTests \(scenario.name) error codes")
        let plan = Self.plan(calls)
        // The indexes at which the shim reported the planned fault, from the cases' own logs.
        var firedAt = Set<Int>()
        var casesRun = 0
        for (n, fault) in plan.enumerated() {
            let label = "\(scenario.name) \(fault)"
            if let replayedCase = Self.replayedCase, replayedCase != label { continue }
            let directory = root.child("case-\(n)")
            let result = try runCase(scenario, base: base, directory: directory, fault: fault, printsStates: false)
            casesRun += 1
            let injection = Self.injectionProblem(fault, calls: result.calls, faultFree: calls)
            if injection == nil { firedAt.insert(fault.index) }
            let (outcome, detail) = Self.classify(result, scenario: scenario, states: states, injection: injection)
            tally.record(label, outcome, detail: detail, failed: outcome != "passed")
            if let error = result.run.errorLine {
                let code = error.split(separator: " ").dropFirst(error.hasPrefix("save") ? 2 : 1).first ?? "?"
                codes.record(label, "\(fault.failure.rawValue)→\(code)", failed: false)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
        _ = codes.finish()
        for failure in tally.finish().prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(tally.failureCount == 0, "\(tally.summary)")
        if let replayedCase = Self.replayedCase {
            if replayedCase.hasPrefix("\(scenario.name) ") {
                #expect(casesRun == 1, "no case is named \(replayedCase)")
            }
            return
        }
        // The sweep reached what it meant to: every index the fault-free run counted, the last too.
        let swept = Set(calls.map(\.index))
        print(
            "IOFaultTests \(scenario.name): \(casesRun) cases over call indexes 1…\(calls.count); the shim reported "
                + "the planned fault at \(firedAt.count) of them, the last at call \(firedAt.max() ?? 0)")
        #expect(casesRun == plan.count && plan.count >= swept.count, "cases run: \(casesRun) of \(plan.count)")
        let missed = swept.subtracting(firedAt).sorted()
        #expect(
            firedAt == swept, "faults fired at \(firedAt.count) of \(swept.count) indexes; not at \(missed.prefix(10))")
        #expect(firedAt.contains(calls.count), "the fault at the last call, \(calls.count), fired")
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

    /// Whether the shim injected `fault` as planned, from the case's log: nil when it did, else
    /// what it did instead. The first call it failed must be the fault's index, the same call as in
    /// the fault-free run, failed the planned way; a fault injected once fails that call alone, a
    /// persistent one every later counted call too (a short write only the writes).
    static func injectionProblem(
        _ fault: FaultShim.Fault, calls: [FaultShim.Call], faultFree: [FaultShim.Call]
    ) -> String? {
        let fired = calls.filter { $0.fired }
        guard let first = fired.first else {
            guard let target = calls.first(where: { $0.index == fault.index }) else {
                return "the run made \(calls.count) counted calls and never reached call \(fault.index)"
            }
            return "the shim let call \(fault.index) (\(target.name)) through: no fault was injected"
        }
        guard first.index == fault.index else { return "the first fault fired at call \(first.index)" }
        let planned = faultFree[fault.index - 1].name
        guard first.name == planned else {
            return "call \(fault.index) was \(first.name) here and \(planned) in the fault-free run"
        }
        guard first.fired(as: fault.failure) else { return "call \(fault.index) failed as \(first.outcome)" }
        for call in calls where call.index > fault.index {
            let due = fault.persistent && (fault.failure != .short || call.isWrite)
            if call.fired != due || (due && !call.fired(as: fault.failure)) {
                return "call \(call.index) (\(call.name)) after the fault: \(call.outcome)"
            }
        }
        return nil
    }

    /// The case's class and what happened: passed, faultNotInjected (the shim's log does not show
    /// the planned fault, `injection`), hang, crash, untypedError, lockedOut, lostSave,
    /// failedSaveVisible, wrongData, brokenInvariant or noFurtherSave.
    static func classify(
        _ result: CaseResult, scenario: Scenario, states: [Int: String], injection: String? = nil
    ) -> (String, String) {
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
        if let injection { return ("faultNotInjected", "\(injection); \(said)") }
        return ("passed", "")
    }
}

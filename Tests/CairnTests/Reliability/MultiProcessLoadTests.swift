import Cairn
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Several processes, each with model actors moving balances between accounts and claiming
/// shared unique keys, write one store at once; one of them is killed with SIGKILL mid-run. Every
/// snapshot any process read must have been balanced, and afterwards `verify()` and `cairn verify`
/// are clean, every acknowledged save is there, every balance is explained by the transfers saved
/// with it, unique keys are unique, and the store takes another save.
///
/// The quick tier runs one round of a few seconds; `CAIRN_HOSTILE=long` runs more rounds, longer,
/// with more processes. Each round prints its seed; `CAIRN_HOSTILE_SEED=<seed>` replays it (which
/// process is killed and when, and every worker's choices; thread timing cannot be replayed).
@Suite struct MultiProcessLoadTests {
    struct Plan: CustomStringConvertible {
        var seed: UInt64
        var processes: Int
        var workers: Int
        var seconds: Double
        /// The process killed, and after how many seconds.
        var victim: Int
        var killAfter: Double

        init(seed: UInt64, long: Bool) {
            var random = LoadRandom(state: seed)
            self.seed = seed
            processes = long ? 3 + random.next(3) : 3
            workers = 2
            seconds = long ? 20 : 4
            victim = random.next(processes)
            killAfter = 0.5 + Double(random.next(1_000)) / 1_000 * seconds * 0.6
        }

        var total: Int { LoadLedger.total(processes: processes, workers: workers) }
        var description: String {
            "seed \(seed): \(processes) processes × \(workers) actors for \(seconds) s, process \(victim) killed at \(killAfter) s"
        }
    }

    static let environment = ProcessInfo.processInfo.environment
    static let isLong = environment["CAIRN_HOSTILE"] == "long"

    static var plans: [Plan] {
        if let seed = environment["CAIRN_HOSTILE_SEED"].flatMap(UInt64.init) { return [Plan(seed: seed, long: isLong)] }
        return (0..<(isLong ? 6 : 1)).map { _ in Plan(seed: UInt64.random(in: 1...(1 << 48)), long: isLong) }
    }

    @Test(.timeLimit(.minutes(30)))
    func processesMovingBalancesWithOneKilledLoseNothing() throws {
        for plan in Self.plans {
            print("MultiProcessLoadTests: \(plan)")
            try Self.run(plan)
        }
    }

    static func run(_ plan: Plan) throws {
        let directory = TemporaryDirectory("Load-\(plan.seed)")
        let store = directory.child("Ledger.store")
        try LoadLedger.setUp(store, processes: plan.processes, workers: plan.workers)
        let processes = try (0..<plan.processes).map { index in
            try LoadProcess([
                "load", store, "\(index)", "\(plan.workers)", "\(plan.seconds)", "\(plan.seed)", "\(plan.total)",
            ])
        }
        usleep(UInt32(plan.killAfter * 1_000_000))
        processes[plan.victim].kill()
        let runs = processes.map { $0.finish(timeLimit: plan.seconds + 120) }

        var acknowledged = Set<String>()
        for (index, run) in runs.enumerated() {
            let lines = run.output.split(separator: "\n")
            acknowledged.formUnion(lines.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) })
            #expect(!run.timedOut, "\(plan): process \(index) hangs")
            let unbalanced = lines.filter { $0.hasPrefix("unbalanced ") || $0.hasPrefix("error ") }
            #expect(unbalanced.isEmpty, "\(plan): process \(index): \(unbalanced.prefix(3))")
            if index != plan.victim {
                #expect(run.status == 0 && lines.last?.hasPrefix("done ") == true,
                        "\(plan): process \(index) \(run.status): \(lines.suffix(2)) \(run.errors.suffix(300))")
            }
        }
        #expect(acknowledged.count > plan.processes, "\(plan): the processes saved almost nothing")
        let all = runs.flatMap { $0.output.split(separator: "\n") }
        let reads = all.compactMap { $0.hasPrefix("done reads ") ? Int($0.dropFirst(11)) : nil }.reduce(0, +)
        print(
            "MultiProcessLoadTests: seed \(plan.seed): \(acknowledged.count) saves acknowledged, "
                + "\(all.filter { $0.hasPrefix("gave-up ") }.count) given up to contention, \(reads) snapshots checked")

        let container = try LoadLedger.container(store)
        let problems = try LoadLedger.problems(in: container, acknowledged: acknowledged, total: plan.total)
        #expect(problems.isEmpty, "\(plan): \(problems)")
        let report = try container.verify()
        #expect(report.isClean, "\(plan): \(report)")
        let tool = try CairnTool.run(["verify", store], timeout: 120)
        #expect(tool.status == 0 && !tool.timedOut, "\(plan): cairn verify: \(tool.output) \(tool.errors)")
        // The killed process's locks and reader slots do not stop the next writer.
        let context = ModelContext(container)
        context.insert(LoadClaim(key: LoadLedger.claimKeys + 1, holder: "after"))
        try context.save()
    }
}

/// One `load` helper process: started at once, its output collected while it runs.
final class LoadProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe(), errors = Pipe()
    private let collected = DispatchGroup()
    // Each written once by its reading thread before it leaves `collected`, read after waiting.
    private var outputData = Data(), errorData = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = HelperProcess.executableURL
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        collected.enter()
        collected.enter()
        DispatchQueue.global().async {
            self.outputData = self.output.fileHandleForReading.readDataToEndOfFile()
            self.collected.leave()
        }
        DispatchQueue.global().async {
            self.errorData = self.errors.fileHandleForReading.readDataToEndOfFile()
            self.collected.leave()
        }
    }

    func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the process to end, killing it after `timeLimit` seconds.
    func finish(timeLimit: Double) -> (status: Int32, timedOut: Bool, output: String, errors: String) {
        let deadline = Date().addingTimeInterval(timeLimit)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill()
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        collected.wait()
        return (
            process.terminationStatus, timedOut, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }
}

import Foundation
import Testing

@testable import Cairn

#if canImport(Glibc)
import Glibc
#endif

/// A writer runs out of room: under a file-size limit (`RLIMIT_FSIZE`, what `ulimit -f` sets)
/// with SIGXFSZ at its default and ignored, and on a small tmpfs when the tests may mount one.
/// Every run must end in a typed `diskFull` error (never a SIGXFSZ kill, never `ioError`), keep
/// every acknowledged save, and save again in the same process once space is freed.
///
/// The quick tier runs one model run per way; `CAIRN_DISK_FULL_RUNS=<count>` runs that many,
/// cycling through the three ways × six payload sizes.
///
/// A tmpfs run that cannot mount its tmpfs (mounting needs root, or `CAP_SYS_ADMIN`) tests nothing:
/// it is counted apart from the passed runs, and the summary says how many were skipped and why.
@Suite struct DiskFullTests {
    static let runs = Int(ProcessInfo.processInfo.environment["CAIRN_DISK_FULL_RUNS"] ?? "") ?? 3
    static let ways = ["rlimit", "rlimit-ignored", "tmpfs"]
    static let payloads = [2_000, 30_000, 150_000, 400_000, 800_000, 1_500_000]

    /// With `SIGXFSZ` ignored a write past the limit fails; at its default it would kill the
    /// process, so the map must never grow past the limit.
    /// A writer whose file-size limit is below the store's size (set after the store grew, with
    /// SIGXFSZ at its default and ignored) gets `diskFull` on its first save and is never killed:
    /// the map never grows past the limit, and a write is refused while the store's pages reach
    /// past it (LMDB could otherwise reuse a free page, or append, beyond the limit).
    @Test(arguments: ["ignored-signal", "default-signal"])
    func aLimitBelowTheStoresSizeIsDiskFullNotAKill(signal: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        // A store of about 2 MiB whose map has grown past it, written without a limit.
        let writer = try HelperProcess(["commit-loop", path, "400"])
        var acknowledged = 0
        while acknowledged < 120, let line = writer.readLine() { if line.hasPrefix("ack") { acknowledged += 1 } }
        writer.kill()
        _ = writer.waitForExit()
        let size = try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as! Int
        #expect(size > 1 << 20, "the store is larger than the limit to come: \(size) bytes")
        let before = try LMDBEnvironment.open(StorageConfiguration(path: path)).info.lastTransactionID

        // Another writer now starts under a limit of 1 MiB, below the store's size.
        let result = try HelperProcess.run(["fill", path, "\(1 << 20)", signal])
        #expect(result.status == 0, "killed or failed: status \(result.status) \(result.output) \(result.errors)")
        let errorLine = result.output.split(separator: "\n").first { $0.hasPrefix("error ") }
        #expect(errorLine?.hasPrefix("error diskFull") == true, "\(errorLine ?? "no error line")")
        #expect(NumberedStore.acknowledged(result.output).isEmpty, "nothing was saved past the limit")
        let after = try LMDBEnvironment.open(StorageConfiguration(path: path))
        #expect(after.info.lastTransactionID == before, "nothing was committed, and the store opens")
    }

    @Test(arguments: ["ignored-signal", "default-signal"])
    func aFullDiskIsATypedErrorAndEarlierCommitsSurvive(signal: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        let result = try HelperProcess.run(["fill", path, "\(3 << 20)", signal])
        #expect(result.status == 0, "killed or failed: status \(result.status) \(result.output) \(result.errors)")
        let errorLine = result.output.split(separator: "\n").first { $0.hasPrefix("error ") }
        #expect(errorLine?.hasPrefix("error diskFull") == true, "\(errorLine ?? "no error line")")
        let acknowledged = NumberedStore.acknowledged(result.output)
        #expect(acknowledged.count > 10, "the writer committed before the disk filled")
        let last = try NumberedStore.verify(path, keysPerTransaction: 8)
        #expect(last == acknowledged.max(), "every acknowledged commit survived and the failed one left nothing")
        // The store stays writable once there is room again.
        let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
        let table = try environment.openTable("t")!
        try environment.write { txn in try txn.put([1], for: [0xFF], in: table) }
    }

    /// One run: a way of filling the disk, a payload per save, and the room there is.
    struct Run: CustomStringConvertible {
        var way: String
        var payload: Int
        /// The file-size limit, or the tmpfs size.
        var room: Int

        var description: String { "\(way) payload \(payload) room \(room)" }

        /// The n-th run: ways fastest, then payloads, then more room on each later round.
        init(_ n: Int) {
            way = DiskFullTests.ways[n % DiskFullTests.ways.count]
            payload = DiskFullTests.payloads[(n / DiskFullTests.ways.count) % DiskFullTests.payloads.count]
            let round = n / (DiskFullTests.ways.count * DiskFullTests.payloads.count)
            room = (6 + 2 * round) << 20
        }
    }

    /// The class of a tmpfs run that could not mount its tmpfs: not a failure, and not a pass.
    static let cannotMount = "skipped (cannot mount a tmpfs)"

    @Test(.timeLimit(.minutes(30)))
    func modelSavesMeetAFullDiskWithDiskFullAndResume() throws {
        let tally = FaultTally("DiskFullTests")
        var skipped: [String] = []  // why each skipped run could not mount its tmpfs
        for n in 0..<Self.runs {
            let run = Run(Self.runs <= Self.ways.count ? n + 2 * Self.ways.count : n)  // the quick tier: 150 KB saves
            let (outcome, detail) = try Self.perform(run)
            if outcome == Self.cannotMount { skipped.append(detail) }
            let failed = outcome != "passed" && outcome != Self.cannotMount
            tally.record("run \(n) (\(run))", outcome, detail: detail, failed: failed)
        }
        for failure in tally.finish().prefix(20) { Issue.record(Comment(rawValue: failure)) }
        print(Self.skipSummary(runs: Self.runs, skipped: skipped))
        #expect(tally.failureCount == 0, "\(tally.summary)")
    }

    /// "DiskFullTests: 3 of 3 runs tested, none skipped", or how many were skipped and why.
    static func skipSummary(runs: Int, skipped: [String]) -> String {
        guard !skipped.isEmpty else { return "DiskFullTests: \(runs) of \(runs) runs tested, none skipped" }
        let reasons = Set(skipped).sorted().joined(separator: "; ")
        return "DiskFullTests: \(runs - skipped.count) of \(runs) runs tested; \(skipped.count) tmpfs "
            + "run\(skipped.count == 1 ? "" : "s") SKIPPED, not passed: cannot mount a tmpfs here (\(reasons)); "
            + "mounting needs root or CAP_SYS_ADMIN"
    }

    static func perform(_ run: Run) throws -> (String, String) {
        let directory = TemporaryDirectory("DiskFull")
        var root = directory.path
        var arguments: [String]
        if run.way == "tmpfs" {
            root = directory.child("mount")
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
            let mounted = try HelperRunner.shell(["mount", "-t", "tmpfs", "-o", "size=\(run.room)", "tmpfs", root])
            guard mounted.status == 0 else {
                let reason = "mount exited \(mounted.status): \(mounted.output.isEmpty ? "no message" : mounted.output)"
                print("DiskFullTests: skipping \(run): cannot mount a tmpfs (\(reason))")
                return (cannotMount, reason)
            }
            // A filler takes half the room; removing it is how the run frees space.
            let filler = root + "/filler"
            try Data(count: run.room / 2).write(to: URL(fileURLWithPath: filler))
            arguments = ["disk-full", root + "/store", "filler", "\(run.payload)", "0", filler]
        } else {
            arguments = ["disk-full", root + "/store", run.way, "\(run.payload)", "\(run.room)"]
        }
        defer { if run.way == "tmpfs" { _ = try? HelperRunner.shell(["umount", root]) } }
        // The debug builds' invariant check after every save reads the whole store: thousands of
        // small saves would take minutes. The store check afterwards covers the invariants.
        let result = try HelperProcess.run(arguments, environment: ["CAIRN_CHECK_INVARIANTS": "0"], timeLimit: 120)
        return classify(result, store: root + "/store")
    }

    static func classify(_ result: HelperRun, store: String) -> (String, String) {
        let said = result.errorLine ?? "no error line"
        if result.timedOut { return ("hang", said) }
        if result.signal == SIGXFSZ { return ("killedBySIGXFSZ", "after \(result.acknowledged.max() ?? 0) saves") }
        if result.signal != nil || result.status != 0 {
            return ("crash", "\(result.ending); \(said); stderr: \(result.errorTail)")
        }
        guard let error = result.errorLine, error.hasPrefix("save "), !error.hasPrefix("save none") else {
            return ("noDiskFull", said)
        }
        let fields = error.split(separator: " ")
        let (outcome, detail) = afterwards(result, store: store)
        if fields.count < 3 || fields[2] != "StorageError.diskFull" {
            return ("notDiskFull \(fields.count > 2 ? fields[2] : "?")", "\(said); afterwards: \(outcome) \(detail)")
        }
        return (outcome, detail)
    }

    /// The store after the run: every acknowledged save there and no other, invariants, resumption.
    static func afterwards(_ result: HelperRun, store: String) -> (String, String) {
        let check = FaultStoreCheck(store)
        if let openError = check.openError { return ("lockedOut", openError) }
        let resumed = result.lines.contains("done")
        let acknowledged = Set(result.acknowledged)
        let held = Set(
            check.canonical.split(separator: " ").filter { $0.hasPrefix("S:s") }.compactMap {
                Int($0.dropFirst(3).prefix { $0.isNumber })
            })
        if !acknowledged.isSubset(of: held) {
            return ("lostSave", "saves \(acknowledged.subtracting(held).sorted().prefix(5)) acknowledged but missing")
        }
        if !held.isSubset(of: acknowledged) {
            return (
                "failedSaveVisible", "saves \(held.subtracting(acknowledged).sorted().prefix(5)) there unacknowledged"
            )
        }
        if !check.problems.isEmpty { return ("brokenInvariant", check.problems.prefix(3).joined(separator: "; ")) }
        if !resumed {
            let resume = result.lines.last { $0.hasPrefix("error ") } ?? result.lines.last ?? ""
            return ("notResumed", String(resume))
        }
        if let error = check.furtherSaveError { return ("noFurtherSave", error) }
        return ("passed", "")
    }
}

/// Runs a system command (mount, umount) and collects its output.
enum HelperRunner {
    static func shell(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

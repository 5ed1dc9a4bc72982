import Foundation
import Testing

/// Seeded damage to a copy of a model store (truncation, page garbage, bit flips, byte runs,
/// swapped and zeroed pages, meta field edits, lock-file damage, a missing data file), each
/// opened, read, checked and saved to by a child process under a time limit. Each case is a
/// typed error, a correct read (the newest commit, or an earlier one when the container reports
/// the recovery), wrong data, a crash or a hang; only the first two pass.
///
/// `CAIRN_DAMAGE_CASES` sets the number of cases (40 by default); every failure prints its seed,
/// and `CAIRN_DAMAGE_SEED=<seed>` replays that one case.
@Suite struct DamageFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let cases = Int(environment["CAIRN_DAMAGE_CASES"] ?? "") ?? 40
    static let replayedSeed = environment["CAIRN_DAMAGE_SEED"].flatMap { UInt64($0) }
    static let commits = 30

    /// The template store: a model store with shelves, volumes of several sizes (some spanning
    /// pages), relationships, deletions and `commits` commits, and its contents after each.
    struct Template {
        let directory = TemporaryDirectory("DamageTemplate")
        var data: [UInt8] = []
        var lock: [UInt8] = []
        var states: [Int: String] = [:]
        var usedPages = 2

        init() throws {
            let path = directory.child("store")
            let made = try HelperProcess.run(
                ["damage-template", path, "\(DamageFuzzTests.commits)"], environment: [:], timeLimit: 120)
            try #require(made.lines.last == "done", "template: \(made.output.suffix(500)) \(made.errors)")
            for line in made.lines where line.hasPrefix("state ") {
                let fields = line.dropFirst(6).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                states[Int(fields[0])!] = fields.count > 1 ? String(fields[1]) : ""
            }
            data = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
            lock = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/lock.mdb")))
            func uint64(_ offset: Int) -> UInt64 {
                data[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            let newest = uint64(StoreDamage.Meta.transactionID) > uint64(4096 + StoreDamage.Meta.transactionID) ? 0 : 1
            usedPages = Int(uint64(newest * 4096 + StoreDamage.Meta.lastPage)) + 1
        }
    }

    @Test(.timeLimit(.minutes(60)))
    func damagedStoresAreRefusedOrReadCorrectly() throws {
        let template = try Template()
        let baseSeed = UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: baseSeed)
        let seeds = Self.replayedSeed.map { [$0] } ?? (0..<Self.cases).map { _ in generator.next() }
        if Self.replayedSeed == nil {
            print(
                "DamageFuzzTests: \(Self.cases) cases from base seed \(baseSeed), template of \(template.data.count) bytes"
            )
        }
        let tally = FaultTally("DamageFuzzTests")
        // Two cases at a time: each is a child process that mostly waits on its own start-up.
        let workers = 2
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: seeds.count, by: workers) {
                let seed = seeds[index]
                let damage = StoreDamage(
                    seed: seed, data: template.data, lock: template.lock, usedPages: template.usedPages)
                let (outcome, detail) = Self.run(
                    damage, in: template.directory.child("case-\(seed)"), template: template)
                // A schema error would tell the user to change their models for damage to the file.
                let passed =
                    (outcome.hasPrefix("typedError") && !outcome.contains("SchemaError"))
                    || outcome == "readCorrectly" || outcome == "recoveredEarlier"
                tally.record(
                    "seed \(seed) (\(damage.description))", outcome, detail: detail, failed: !passed)
            }
        }
        for failure in tally.finish().prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(tally.failureCount == 0, "\(tally.summary)")
        #expect(tally.total == seeds.count)
    }

    /// Writes the damaged store, runs the reading child and classifies what it printed.
    static func run(_ damage: StoreDamage, in path: String, template: Template) -> (String, String) {
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { try damage.write(to: path) } catch { return ("setupFailed", "\(error)") }
        let run: HelperRun
        do {
            // Debug builds check a context's invariants after each save and trap on a violation;
            // release builds do not, and what a damaged store does in a release build is the question.
            run = try HelperProcess.run(
                ["damage-read", path], environment: ["CAIRN_CHECK_INVARIANTS": "0"], timeLimit: 20)
        } catch {
            return ("setupFailed", "\(error)")
        }
        return classify(run, template: template)
    }

    static func classify(_ run: HelperRun, template: Template) -> (String, String) {
        if run.timedOut { return ("hang", "no exit within 20 s; last output: \(run.lines.last?.prefix(80) ?? "none")") }
        if run.signal != nil || run.status != 0 {
            return (
                "crash", "\(run.ending); last output: \(run.lines.last?.prefix(80) ?? "none"); stderr: \(run.errorTail)"
            )
        }
        let problems = run.lines.filter { $0.hasPrefix("problem ") }.map { $0.dropFirst(8) }
        let recovery = run.lines.first { $0.hasPrefix("recovery ") }
        let error = run.errorLine
        if let contents = run.lines.first(where: { $0.hasPrefix("contents ") || $0 == "contents" }) {
            let canonical = String(contents.dropFirst(9))
            let newest = template.states[DamageFuzzTests.commits]
            if canonical != newest {
                if let earlier = template.states.first(where: { $0.value == canonical })?.key {
                    if recovery == nil {
                        return (
                            "wrongData", "read commit \(earlier) of \(DamageFuzzTests.commits) and reported no recovery"
                        )
                    }
                } else {
                    let entries = canonical.split(separator: " ").count
                    return ("wrongData", "read \(entries) entries matching no commit; then \(error ?? "no error")")
                }
            }
            if !problems.isEmpty { return ("wrongData", problems.prefix(3).joined(separator: "; ")) }
            if let error {
                if error.contains(" untyped ") { return ("untypedError", error) }
                return ("typedError \(Self.code(error))", "after reading correctly: \(error)")
            }
            return (canonical == newest ? "readCorrectly" : "recoveredEarlier", recovery.map(String.init) ?? "")
        }
        guard let error else { return ("crash", "exit 0 without contents or an error: \(run.output.suffix(300))") }
        if error.contains(" untyped ") { return ("untypedError", error) }
        return ("typedError \(Self.code(error))", error)
    }

    /// "StorageError.damaged" from "open StorageError.damaged The store …".
    static func code(_ errorLine: String) -> String {
        errorLine.split(separator: " ").first { $0.contains("Error.") }.map(String.init) ?? "?"
    }
}

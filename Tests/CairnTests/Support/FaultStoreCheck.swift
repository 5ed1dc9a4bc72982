import Cairn
import Foundation

/// What a store written by the fault, damage and disk-full helpers holds, read in the test process
/// (without the fault shim): whether it opens, its canonical contents, its broken invariants, and
/// whether it takes one more save that reads back.
struct FaultStoreCheck: Sendable {
    /// Why the store could not be opened ("locked out"), or nil when it opened.
    var openError: String?
    /// ``FaultContents/canonical(_:)`` before the extra save.
    var canonical = ""
    /// Unique keys held twice or not found, relationships whose inverse disagrees, read errors.
    var problems: [String] = []
    /// Why the extra save failed or did not read back, or nil when it worked.
    var furtherSaveError: String?

    init(_ path: String) {
        let container: ModelContainer
        do {
            container = try FaultContents.container(path)
        } catch {
            openError = describe(error)
            return
        }
        let context = ModelContext(container)
        do {
            canonical = try FaultContents.canonical(context)
            problems = try FaultContents.problems(context)
        } catch {
            problems.append("reading failed: \(describe(error))")
        }
        let key = "verified-\(UUID().uuidString)"
        do {
            let writer = ModelContext(container)
            writer.insert(FaultShelf(key: key, name: "after the fault"))
            try writer.save()
            let found = try ModelContext(container).fetch(
                FetchDescriptor<FaultShelf>(predicate: #Predicate { $0.key == key }))
            if found.map(\.name) != ["after the fault"] {
                furtherSaveError = "the save after the fault read back as \(found.map(\.name))"
            }
        } catch {
            furtherSaveError = describe(error)
        }
    }
}

/// Per-class counts over a tier's cases and the cases that failed; prints a summary line and one
/// line per failure, and records a test issue for each of the first failures.
final class FaultTally: @unchecked Sendable {
    let suite: String
    // `lock` guards `counts` and `failures`; cases run on several threads.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var failures: [String] = []

    init(_ suite: String) { self.suite = suite }

    /// Counts one case in `outcome`; `failed` cases are listed with `label` and `detail`.
    func record(_ label: String, _ outcome: String, detail: String = "", failed: Bool) {
        let line = "\(suite) FAILED \(label): \(outcome)\(detail.isEmpty ? "" : " — \(detail)")"
        lock.withLock {
            counts[outcome, default: 0] += 1
            if failed { failures.append(line) }
        }
        if failed { print(line) }
    }

    var total: Int { lock.withLock { counts.values.reduce(0, +) } }
    var failureCount: Int { lock.withLock { failures.count } }

    /// "IOFaultTests: 120 cases — passed 100, lostSave 2, …", classes sorted by name.
    var summary: String {
        lock.withLock {
            let classes = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(suite): \(counts.values.reduce(0, +)) cases — \(classes); \(failures.count) failed"
        }
    }

    /// Prints the summary and returns the failure lines (the caller records them as issues).
    func finish() -> [String] {
        print(summary)
        return lock.withLock { failures }
    }
}

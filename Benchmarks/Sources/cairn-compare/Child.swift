import BenchmarkModels
import Foundation

// W6 runs each size in a process of its own: a process's peak resident set only grows, so
// measuring 10,000 after 1,000,000 in one process would report the larger run's peak.

/// Runs one W6 measurement in a child process (this executable with `--child SYSTEM N`) and
/// reads back its throughput and peak resident memory.
func runInChild(_ system: String, _ n: Int) throws -> (perSecond: Double, peakMB: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    }
    process.arguments = ["--child", system, String(n)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
        Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard process.terminationStatus == 0, fields.count == 2 else {
        throw ChildFailure(system: system, n: n, status: process.terminationStatus)
    }
    return (fields[0], fields[1])
}

struct ChildFailure: Error, CustomStringConvertible {
    let system: String
    let n: Int
    let status: Int32
    var description: String { "the W6 child for \(system) at \(n) exited with status \(status)" }
}

/// The child's side: inserts `n` authors, generated as they are consumed (so the input takes
/// no memory), into a new store; prints "per-second peak-MB" and exits.
func runChild(_ arguments: [String]) -> Never {
    guard arguments.count == 2, let n = Int(arguments[1]) else {
        print("usage: cairn-compare --child cairn-upsert|grdb|grdb-wal|lmdb N")
        exit(2)
    }
    let values = (0..<Int64(n)).lazy.map { AuthorValues($0) }
    let directory = scratchDirectory("w6-\(arguments[0])-\(n)")
    let resident = ResidentPeaks()
    do {
        let figure: (perSecond: Double, peakMB: Double)
        switch arguments[0] {
        case "cairn-upsert":
            let container = try CairnSystem.container(directory)
            figure = try measure { try CairnSystem.upsert(values, into: container) }
        case "grdb": figure = try measure { try GRDBSystem.preparedInsert(values, into: directory, wal: false) }
        case "grdb-wal": figure = try measure { try GRDBSystem.preparedInsert(values, into: directory, wal: true) }
        case "lmdb":
            let lmdb = RawLMDB(directory)
            figure = measure { lmdb.insert(values) }
        default:
            print("unknown system \(arguments[0])")
            exit(2)
        }
        try? FileManager.default.removeItem(at: directory)
        // What the peak is made of, for a reader of the run: the store's mapped pages count in it.
        FileHandle.standardError.write(Data("W6 \(arguments[0]) \(n): \(resident.stop())\n".utf8))
        print("\(figure.perSecond) \(figure.peakMB)")
        exit(0)
    } catch {
        try? FileManager.default.removeItem(at: directory)
        FileHandle.standardError.write("\(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

/// The process's resident memory (anonymous: the heap; file-backed: mapped files, such as a
/// store's pages LMDB has read), in KiB.
func residentKB() -> (anonymous: Int, file: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func value(_ name: String) -> Int {
        status.split(separator: "\n").first { $0.hasPrefix(name) }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    }
    return (value("RssAnon:"), value("RssFile:"))
}

/// Samples ``residentKB()`` every 5 ms on a thread of its own and keeps the peaks of each part.
final class ResidentPeaks: @unchecked Sendable {
    // `peaks` and `running` only under `lock`.
    private let lock = NSLock()
    private var peaks = (anonymous: 0, file: 0)
    private var running = true

    init() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let now = residentKB()
                lock.withLock { peaks = (max(peaks.anonymous, now.anonymous), max(peaks.file, now.file)) }
                usleep(5_000)
            }
        }
    }

    /// Stops sampling; the peaks, in MiB.
    func stop() -> String {
        let peaks = lock.withLock { running = false; return self.peaks }
        return String(format: "peak anonymous %.1f MB, peak file-backed %.1f MB",
            Double(peaks.anonymous) / 1024, Double(peaks.file) / 1024)
    }
}

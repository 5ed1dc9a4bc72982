import Foundation

/// One figure: a workload on a system at a size, measured over several interleaved rounds.
struct Figure {
    let workload: String
    let system: String
    let n: Int
    var perSecond: [Double] = []
    var peakRSSMB: Double = 0
    /// Each round's minor page faults: fresh memory the run took from the kernel.
    var minorFaults: [Int] = []

    var median: Double { perSecond.sorted()[perSecond.count / 2] }

    var json: String {
        let sorted = perSecond.sorted()
        return #"{"workload":"\#(workload)","system":"\#(system)","n":\#(n),"median_per_s":\#(Int(median)),"#
            + #""min_per_s":\#(Int(sorted.first ?? 0)),"max_per_s":\#(Int(sorted.last ?? 0)),"#
            + #""peak_rss_mb":\#(String(format: "%.1f", peakRSSMB)),"#
            + #""rounds_per_s":[\#(perSecond.map { String(Int($0)) }.joined(separator: ","))],"#
            + #""rounds_minor_faults":[\#(minorFaults.map(String.init).joined(separator: ","))]}"#
    }
}

/// Resets the process's peak resident set (Linux: `clear_refs` 5), so each run's peak is its own.
func resetPeakRSS() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// The process's peak resident set since the last reset, in MiB (`VmHWM`).
func peakRSSMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kb / 1024
}

/// The scratch directories made so far, removed by ``removeScratchDirectories()``.
nonisolated(unsafe) var scratchDirectories: [URL] = []

/// A new directory, removed when the run ends (``removeScratchDirectories()``).
func scratchDirectory(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "cairn-compare-\(getpid())-\(name)-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    scratchDirectories.append(url)
    return url
}

func removeScratchDirectories() {
    for url in scratchDirectories { try? FileManager.default.removeItem(at: url) }
    scratchDirectories.removeAll()
}

/// The minor page faults of the last ``measure(_:)``.
nonisolated(unsafe) var lastMinorFaults = 0

/// The process's minor page faults so far.
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// Runs `body` (which returns how many items it processed) and returns items per second.
func measure(_ body: () throws -> Int) rethrows -> (perSecond: Double, peakMB: Double) {
    // Earlier runs' dirty pages go to disk first, so their writeback does not land in this
    // run's synced commit.
    sync()
    resetPeakRSS()
    let faults = minorFaults()
    let start = DispatchTime.now().uptimeNanoseconds
    let items = try body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    lastMinorFaults = minorFaults() - faults
    return (Double(items) / seconds, peakRSSMB())
}

func printTable(_ figures: [Figure]) {
    print("")
    print("workload  system                                   n          median/s       min/s       max/s   peak MB")
    for figure in figures {
        let sorted = figure.perSecond.sorted()
        print(
            figure.workload.padding(toLength: 9, withPad: " ", startingAt: 0) + " "
                + figure.system.padding(toLength: 38, withPad: " ", startingAt: 0)
                + String(
                    format: "%9d %12.0f %11.0f %11.0f %9.1f", figure.n, figure.median, sorted.first ?? 0,
                    sorted.last ?? 0, figure.peakRSSMB))
    }
}

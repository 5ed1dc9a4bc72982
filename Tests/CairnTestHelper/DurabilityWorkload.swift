// The durability tests' workload: numbered saves under a chosen ModelConfiguration.Durability,
// each acknowledged both on standard output and in the fault shim's log, so that the log shows
// which flushes happened before each save returned.
import Cairn
import Foundation

#if canImport(Glibc)
import Glibc
#endif

enum DurabilityWorkload {
    /// `durable-saves <store> <durability> <count>`: saves a new `Tally` `count` times. After
    /// save `n` returns it appends "ack n" to the file named by CAIRN_FAULT_LOG (when set) and
    /// prints it. A save that throws is printed as "error save-n …" and tried once more, with
    /// the same changes; "retried n" follows when that succeeds.
    static func run(_ arguments: [String]) {
        let path = arguments[2], count = Int(arguments[4])!
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        switch arguments[3] {
        case "powerLossSafe": configuration.durability = .powerLossSafe
        case "full": configuration.durability = .full
        case "noMetaSync": configuration.durability = .noMetaSync
        default: fail("unknown durability \(arguments[3])")
        }
        let container = step("open") {
            try ModelContainer(for: Tally.self, TallyHolder.self, configurations: configuration)
        }
        let marks = ProcessInfo.processInfo.environment["CAIRN_FAULT_LOG"].map { open($0, O_WRONLY | O_APPEND) } ?? -1
        let context = ModelContext(container)
        for n in 1...max(count, 1) {
            context.insert(Tally(label: "durable \(n)", amount: n))
            do {
                try context.save()
            } catch {
                say("error save-\(n) \(describe(error))")
                step("retry") { try context.save() }
                say("retried \(n)")
            }
            if marks >= 0 {
                let line = Array("ack \(n)\n".utf8)
                _ = line.withUnsafeBytes { write(marks, $0.baseAddress, $0.count) }
            }
            say("ack \(n)")
        }
        let stored = step("count") { try ModelContext(container).fetchCount(FetchDescriptor<Tally>()) }
        say("stored \(stored)")
    }
}

// The multi-process load test's workload: model actors move balances between their own accounts,
// log each transfer, and claim and release shared unique keys, while the main thread checks
// that every snapshot it reads is balanced. A test runs several of these processes at once and
// kills one with SIGKILL (MultiProcessLoadTests).
import Cairn
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard output with a single write(2): lines of concurrent workers never
/// interleave, and a line is out before the next step begins.
func sayAtomically(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

@ModelActor
actor LoadWorker {
    var random = LoadRandom(state: 0)
    var owner = ""
    var mine: [LoadAccount] = []

    func prepare(process: Int, worker: Int, workers: Int, seed: UInt64) throws {
        random = LoadRandom(state: seed &+ UInt64(process * 1_000 + worker))
        owner = LoadLedger.owner(process: process, worker: worker)
        let numbers = LoadLedger.accounts(process: process, worker: worker, workers: workers)
        mine = try modelContext.fetch(FetchDescriptor<LoadAccount>(predicate: #Predicate { numbers.contains($0.number) }))
        guard mine.count == numbers.count else { throw CocoaError(.fileReadCorruptFile) }
    }

    /// One save: a transfer between two of this worker's accounts with its log entry, and on some
    /// steps a claim on a shared key, or the release of one. Returns the line to print: "ack
    /// <reference>" once the save returned, "gave-up <reference>" when contention made it roll
    /// back, or "error …".
    func step(_ n: Int) -> String {
        let from = mine[random.next(mine.count)]
        var to = mine[random.next(mine.count)]
        if to === from { to = mine[(mine.firstIndex { $0 === from }! + 1) % mine.count] }
        let amount = 1 + random.next(50)
        from.balance -= amount
        to.balance += amount
        let reference = "\(owner)-\(n)"
        modelContext.insert(LoadTransfer(reference: reference, from: from.number, to: to.number, amount: amount))
        do {
            if n % 3 == 0 { modelContext.insert(LoadClaim(key: random.next(LoadLedger.claimKeys), holder: reference)) }
            if n % 5 == 0 {
                let key = random.next(LoadLedger.claimKeys)
                for claim in try modelContext.fetch(FetchDescriptor<LoadClaim>(predicate: #Predicate { $0.key == key })) {
                    modelContext.delete(claim)
                }
            }
            for _ in 0..<5 {
                do {
                    try modelContext.save()
                    return "ack \(reference)"
                } catch let error as SaveError
                    where error.code == .uniquenessViolated || error.code == .modelDeletedElsewhere
                {
                    // Another process claimed or released the key meanwhile: plan the save again.
                    continue
                }
            }
            modelContext.rollback()
            return "gave-up \(reference)"
        } catch {
            return "error \(describe(error))"
        }
    }
}

enum LoadWorkload {
    /// `load <store> <process> <workers> <seconds> <seed> <total>`.
    static func run(_ arguments: [String]) {
        let path = arguments[2]
        let process = Int(arguments[3])!, workers = Int(arguments[4])!
        let seconds = Double(arguments[5])!, seed = UInt64(arguments[6])!, total = Int(arguments[7])!
        let container = step("open") { try LoadLedger.container(path) }
        let deadline = Date().addingTimeInterval(seconds)
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<workers {
            let worker = LoadWorker(modelContainer: container)
            Task.detached {
                do {
                    try await worker.prepare(process: process, worker: index, workers: workers, seed: seed)
                    var n = 0
                    while Date() < deadline {
                        n += 1
                        sayAtomically(await worker.step(n))
                    }
                    sayAtomically("worker \(index) steps \(n)")
                } catch {
                    sayAtomically("error prepare \(describe(error))")
                }
                finished.signal()
            }
        }
        // Every snapshot this process reads while the workers write is balanced.
        var reads = 0
        while Date() < deadline {
            do {
                let sum = try ModelContext(container).fetch(FetchDescriptor<LoadAccount>()).reduce(0) { $0 + $1.balance }
                if sum != total { sayAtomically("unbalanced \(sum)") }
                reads += 1
            } catch {
                sayAtomically("error read \(describe(error))")
            }
        }
        for _ in 0..<workers { finished.wait() }
        sayAtomically("done reads \(reads)")
    }
}

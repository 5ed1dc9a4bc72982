import Foundation
import Testing

@testable import Cairn

#if canImport(Glibc)
import Glibc
#endif

/// An I/O error at a chosen call of a store's rewrite under a new key (encrypting a plaintext
/// store, decrypting an encrypted one), injected by the fault shim into a child process: the
/// store must be left whole, the old one or the new one, never neither; a rewrite that said it
/// was done must have left the new one; the error must be typed; and the next rewrite must
/// succeed and leave no copy behind.
///
/// Each call index of a fault-free rewrite is failed once, the way cycling through the six (once
/// or persistent × EIO, ENOSPC, short write), as `IOFaultTests` does; `CAIRN_IO_FAULTS=full`
/// fails every index in every way. `CAIRN_IO_FAULT_CASE="encrypt call 12 once EIO"` replays one.
@Suite(.enabled(if: FaultShim.isSupportedPlatform, "the fault shim needs Linux's LD_PRELOAD"))
struct RekeyIOFaultTests {
    static let transactions: UInt64 = 60

    @Test(.timeLimit(.minutes(20)), arguments: ["encrypt", "decrypt"])
    func aFailedCallLeavesTheOldStoreOrTheNewWhole(_ direction: String) throws {
        let root = TemporaryDirectory("RekeyIOFaults-\(direction)")
        let base = root.child("base/store")
        try FileManager.default.createDirectory(atPath: root.child("base"), withIntermediateDirectories: true)
        let made = try HelperProcess.run(["commit-count", base, "\(Self.transactions)"])
        try #require(made.status == 0, "\(made.errors)")
        let startsEncrypted = direction == "decrypt"
        if startsEncrypted {
            let encrypted = try HelperProcess.run(["rekey-once", base, "plain"], environment: [:], timeLimit: 60)
            try #require(encrypted.lines.last == "rekeyed", "\(encrypted.output) \(encrypted.errors)")
        }

        let counting = try runCase(base: base, directory: root.child("count"), fault: nil, encrypted: startsEncrypted)
        try #require(counting.run.lines.last == "rekeyed", "fault-free run: \(counting.run.output) \(counting.run.errors)")
        let calls = counting.calls
        try #require(calls.count >= 10, "the shim counted the rewrite's calls: \(calls.count)")
        try #require(!calls.contains { $0.fired }, "the fault-free run injected nothing")
        print("RekeyIOFaultTests \(direction): a fault-free rewrite makes \(calls.count) counted calls")

        let replayed = IOFaultTests.replayedCase
        var failures: [String] = []
        var (casesRun, firedAt, errors) = (0, Set<Int>(), 0)
        for (n, fault) in IOFaultTests.plan(calls).enumerated() {
            let label = "\(direction) \(fault)"
            if let replayed, replayed != label { continue }
            let directory = root.child("case-\(n)")
            let result = try runCase(base: base, directory: directory, fault: fault, encrypted: startsEncrypted)
            casesRun += 1
            if let problem = IOFaultTests.injectionProblem(fault, calls: result.calls, faultFree: calls) {
                failures.append("\(label): fault not injected as planned: \(problem)")
            } else {
                firedAt.insert(fault.index)
            }
            if result.run.errorLine != nil { errors += 1 }
            if let problem = Self.check(result.run, store: directory + "/store", directory: directory, wasEncrypted: startsEncrypted) {
                failures.append("\(label): \(problem)")
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
        for failure in failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        print("RekeyIOFaultTests \(direction): \(casesRun) cases, \(errors) typed errors, \(failures.count) failures")
        if replayed == nil {
            #expect(firedAt == Set(calls.map(\.index)), "faults fired at \(firedAt.count) of \(calls.count) indexes")
            #expect(errors > 0, "some faults made the rewrite fail")
        }
    }

    struct CaseResult {
        var run: HelperRun
        var calls: [FaultShim.Call]
    }

    /// Copies the base store into `directory` and rewrites it under the shim.
    func runCase(base: String, directory: String, fault: FaultShim.Fault?, encrypted: Bool) throws -> CaseResult {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/store"
        try FileManager.default.copyItem(atPath: base, toPath: store)
        let log = directory + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let environment = try FaultShim.environment(directory: directory, log: log, fault: fault)
        let run = try HelperProcess.run(
            ["rekey-once", store, encrypted ? "encrypted" : "plain"], environment: environment, timeLimit: 30)
        return CaseResult(run: run, calls: FaultShim.calls(inLog: log))
    }

    /// What is wrong with the store a faulted rewrite left, or `nil`: it must not have hung or
    /// crashed, must have said it was done or thrown a typed error, must hold every transaction
    /// in one of the two states (the new one if it said it was done), and must take the next
    /// rewrite, which leaves no copy behind.
    static func check(_ run: HelperRun, store: String, directory: String, wasEncrypted: Bool) -> String? {
        guard !run.timedOut, run.signal == nil, run.status == 0 else { return "\(run.ending): \(run.errorTail)" }
        let said = run.lines.last == "rekeyed"
        guard said || run.errorLine != nil else { return "neither done nor a typed error: \(run.output)" }
        let isEncrypted: Bool
        do {
            isEncrypted = try state(of: store)
        } catch {
            return "the store is not whole after \(run.errorLine ?? "success"): \(error)"
        }
        if said && isEncrypted == wasEncrypted { return "the rewrite said it was done, but the store is as it was" }
        do {
            let next = try HelperProcess.run(
                ["rekey-once", store, isEncrypted ? "encrypted" : "plain"], environment: [:], timeLimit: 60)
            guard next.lines.last == "rekeyed" else { return "the next rewrite failed: \(next.output) \(next.errors)" }
            guard try state(of: store) != isEncrypted else { return "the next rewrite changed nothing" }
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains("compacting") }
            guard left.isEmpty else { return "copies left after the next rewrite: \(left)" }
        } catch {
            return "the next rewrite: \(error)"
        }
        return nil
    }

    /// Whether the store opens encrypted (else plaintext), after checking it holds every transaction.
    static func state(of store: String) throws -> Bool {
        do {
            let last = try NumberedStore.verify(store, keysPerTransaction: 1)
            guard last == transactions else { throw NumberedStore.Damage(description: "\(last) of \(transactions) transactions") }
            return false
        } catch let error as StorageError where error.code == .encryptionKeyRequired {
            let last = try NumberedStore.verify(store, keysPerTransaction: 1, encryption: NumberedStore.secret)
            guard last == transactions else { throw NumberedStore.Damage(description: "\(last) of \(transactions) transactions") }
            return true
        }
    }
}

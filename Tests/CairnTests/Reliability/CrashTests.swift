import Foundation
import Testing

@testable import Cairn

#if canImport(Glibc)
import Glibc
#endif

/// A writer process is killed with SIGKILL at random moments; every transaction it acknowledged
/// must survive, and nothing partial may appear.
@Suite struct CrashTests {
    /// Rounds in the default run; `CAIRN_CRASH_ROUNDS` raises it for longer runs.
    static let rounds = Int(ProcessInfo.processInfo.environment["CAIRN_CRASH_ROUNDS"] ?? "") ?? 100

    @Test(.timeLimit(.minutes(5)))
    func killedWritersLoseNoAcknowledgedTransaction() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        var lastCommitted: UInt64 = 0
        var killsDuringWrites = 0
        for round in 0..<Self.rounds {
            let writer = try HelperProcess(["commit-loop", path, "10"])
            // Most rounds kill mid-stream after the first commit; some during start-up.
            var firstAck: String?
            if round % 10 != 0 {
                firstAck = writer.readLine()
                killsDuringWrites += 1
            }
            usleep(UInt32.random(in: 0...20_000))
            writer.kill()
            let result = writer.waitForExit()
            let acknowledged = NumberedStore.acknowledged((firstAck.map { $0 + "\n" } ?? "") + result.output)
            let last = try NumberedStore.verify(path, keysPerTransaction: 10)
            if let highest = acknowledged.max() {
                #expect(
                    highest <= last,
                    "round \(round): transaction \(highest) was acknowledged but the store ends at \(last)")
            }
            #expect(last >= lastCommitted, "round \(round): the store went back from \(lastCommitted) to \(last)")
            lastCommitted = last
        }
        #expect(killsDuringWrites >= Self.rounds * 8 / 10)
        #expect(lastCommitted >= UInt64(killsDuringWrites), "every mid-stream round committed at least one transaction")
    }
}

/// A process that encrypts and decrypts a store, over and over, is killed with SIGKILL at random
/// moments: the store must always be whole, plaintext or encrypted, holding every transaction.
@Suite struct RekeyCrashTests {
    @Test(.timeLimit(.minutes(5)))
    func aRewriteKilledAtAnyMomentLeavesTheOldStoreOrTheNew() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        let made = try HelperProcess.run(["commit-count", path, "400"])
        try #require(made.status == 0, "\(made.errors)")
        var encrypted = false
        var rewrites = 0, killsMidRewrite = 0
        for round in 0..<Int(CrashTests.rounds / 4) {
            let rekeyer = try HelperProcess(["rekey-loop", path, "1000", encrypted ? "encrypted" : "plain"])
            // A rewrite of this store takes tens of milliseconds, most of them flushing.
            usleep(UInt32.random(in: 0...400_000))
            rekeyer.kill()
            let acknowledged = rekeyer.waitForExit().output.split(separator: "\n").filter { $0.hasPrefix("rekeyed") }.count
            // The rewrite the kill stopped may have replaced the file before it could say so.
            let plainOpens = Result { try NumberedStore.verify(path, keysPerTransaction: 1) }
            let nowEncrypted: Bool
            switch plainOpens {
            case .success(let last):
                #expect(last == 400, "round \(round): the plaintext store holds \(last) of 400 transactions")
                nowEncrypted = false
            case .failure(let error as StorageError) where error.code == .encryptionKeyRequired:
                let last = try NumberedStore.verify(path, keysPerTransaction: 1, encryption: NumberedStore.secret)
                #expect(last == 400, "round \(round): the encrypted store holds \(last) of 400 transactions")
                nowEncrypted = true
            case .failure(let error):
                Issue.record("round \(round): the store does not open: \(error)")
                return
            }
            // A kill during a copy leaves its scratch directory, which the next rewrite removes.
            let scratch = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("compacting") }
            if !scratch.isEmpty { killsMidRewrite += 1 }
            rewrites += acknowledged
            encrypted = nowEncrypted
        }
        #expect(rewrites > 0, "some rewrites completed")
        #expect(killsMidRewrite > 0, "some kills stopped a rewrite while it copied")
        // Copies the killed rewrites left behind are removed by the next one.
        let finish = try HelperProcess.run(["rekey-loop", path, "1", encrypted ? "encrypted" : "plain"])
        #expect(finish.status == 0, "\(finish.errors)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("compacting") }
        #expect(left.isEmpty, "\(left)")
    }
}

/// Opening a store that another process is committing to.
@Suite struct OpenWhileWritingTests {
    // Bug (found while adding the page walk at open): a walk of the file without LMDB raced a
    // writer in another process, which reuses freed pages two commits later. Symptom: a healthy
    // store could be reported damaged, or "recovered", while another process wrote to it. Fix:
    // when another process has the store open, its pages are walked only once LMDB's read
    // transaction pins the snapshot.
    @Test(.timeLimit(.minutes(2)))
    func aStoreAnotherProcessIsWritingOpensEveryTime() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        let writer = try HelperProcess(["commit-loop", path, "50"])
        defer {
            writer.kill()
            _ = writer.waitForExit()
        }
        #expect(writer.readLine()?.hasPrefix("ack") == true, "the writer commits")
        for round in 0..<10 {
            do {
                let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
                #expect(environment.recovery == nil, "round \(round): nothing to recover")
                let last = try NumberedStore.verify(path, keysPerTransaction: 50)
                #expect(last > 0, "round \(round)")
            } catch {
                Issue.record("round \(round): \(error)")
            }
        }
    }
}

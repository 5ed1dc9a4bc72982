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

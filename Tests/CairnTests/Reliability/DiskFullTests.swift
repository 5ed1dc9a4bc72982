import Foundation
import Testing

@testable import Cairn

/// A writer under a file-size limit (`RLIMIT_FSIZE`, what `ulimit -f` sets) runs out of room.
@Suite struct DiskFullTests {
    /// With `SIGXFSZ` ignored a write past the limit fails; at its default it would kill the
    /// process, so the map must never grow past the limit.
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
}

import Foundation
import Testing

/// A long import in chunks keeps memory flat: the context holds only unsaved models strongly.
@Suite struct ImportMemoryTests {
    struct Run {
        let imported: Int
        let peakBytes: Int
    }

    static func importInHelper(_ count: Int, chunk: Int) throws -> Run {
        let directory = TemporaryDirectory("import\(count)")
        let result = try HelperProcess.run(["import", directory.child("Import.store"), "\(count)", "\(chunk)"])
        guard result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: ["output": result.output + result.errors])
        }
        let words = result.output.split(separator: " ")
        return Run(imported: Int(words[1])!, peakBytes: Int(words[3])!)
    }

    @Test(.timeLimit(.minutes(5)))
    func aMillionModelsInChunksNeedLessThanThreeTimesTheMemoryOfAHundredThousand() throws {
        let small = try Self.importInHelper(100_000, chunk: 10_000)
        let large = try Self.importInHelper(1_000_000, chunk: 10_000)
        #expect(small.imported == 100_000 && large.imported == 1_000_000)
        let ratio = Double(large.peakBytes) / Double(small.peakBytes)
        print(
            "Import peak memory: 100,000 → \(small.peakBytes / 1_048_576) MiB, 1,000,000 → \(large.peakBytes / 1_048_576) MiB, ratio \(ratio)"
        )
        #expect(ratio < 3, "peak \(large.peakBytes) bytes for 1,000,000 against \(small.peakBytes) for 100,000")
    }
}

import Foundation
import Testing

@testable import Cairn

/// `[Float]`'s direct path gives and reads exactly the bytes of the general `Codable` path
/// (which `ContiguousArray<Float>` still takes), and hands anything else to it.
@Suite struct BinaryFloatArrayTests {
    @Test(arguments: [0, 1, 24, 25, 26, 384, 5_000])
    func theDirectPathMatchesTheGeneralCoder(count: Int) throws {
        var random = SeededGenerator(seed: UInt64(count))
        let floats = (0..<count).map { _ in Float.random(in: -1e6...1e6, using: &random) } + (count > 0 ? [.nan] : [])
        let direct = try BinaryEncoder().encode(floats)
        let general = try BinaryEncoder().encode(ContiguousArray(floats))
        #expect(direct == general)
        let decoded = try BinaryDecoder().decode([Float].self, from: general)
        #expect(decoded.map(\.bitPattern) == floats.map(\.bitPattern))
        #expect(BinaryFloatArray.decode(general)?.map(\.bitPattern) == floats.map(\.bitPattern))
    }

    @Test func otherBytesGoToTheGeneralDecoder() throws {
        // Doubles, a nil, a cut-off value: the direct path declines, the general one decides.
        let doubles = try BinaryEncoder().encode([1.5, 2.5] as [Double])
        #expect(BinaryFloatArray.decode(doubles) == nil)
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([Float].self, from: doubles) }
        let withNil = try BinaryEncoder().encode([1.5, nil] as [Float?])
        #expect(BinaryFloatArray.decode(withNil) == nil)
        let floats = try BinaryEncoder().encode([1, 2, 3] as [Float])
        for end in 0..<floats.count {
            #expect(BinaryFloatArray.decode(Array(floats[..<end])) == nil)
            #expect(throws: DecodingError.self) {
                try BinaryDecoder().decode([Float].self, from: Array(floats[..<end]))
            }
        }
    }
}

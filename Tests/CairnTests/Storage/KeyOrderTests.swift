import Foundation
import Testing

@testable import CairnStorage

/// LMDB's byte order of keys (`mdb_cmp_memn`, `compareBytes(to:)`, which the page walk and the
/// full-text index's terms use) against the standard library's lexicographic order, for keys of
/// 0 to 20 bytes that often share long prefixes (the first eight bytes are compared as one word).
@Suite struct KeyOrderTests {
    private func reference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    @Test func byteOrderAgreesWithLexicographicOrder() {
        var generator = SeededGenerator(seed: 0x6b65_796f_7264)
        func key() -> [UInt8] {
            let length = Int(generator.next() % 21)
            // Few byte values, so that keys often share their first eight bytes or more.
            return (0..<length).map { _ in UInt8(generator.next() % 3) * 0x7f }
        }
        for round in 0..<20_000 {
            let (a, b) = (key(), key())
            let order = a.withUnsafeBytes { a in b.withUnsafeBytes { b in a.compareBytes(to: b) } }
            #expect(order.signum() == reference(a, b), "round \(round), seed 0x6b65796f7264: \(a) vs \(b)")
        }
    }
}

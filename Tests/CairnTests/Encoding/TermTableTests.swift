import Testing

@testable import Cairn

/// The full-text term table against a dictionary: every term gets one number, the same each
/// time, and gives its bytes back, across growth and for terms that share their first eight
/// bytes and lengths (which only the stored bytes tell apart).
@Suite struct TermTableTests {
    private static func intern(_ term: [UInt8], in table: inout TermTable) -> Int {
        term.withUnsafeBufferPointer { table.intern($0) }
    }

    @Test func everyTermKeepsOneNumberAndItsBytes() {
        var random = SeededGenerator(seed: 45)
        var table = TermTable()
        var reference: [[UInt8]: Int] = [:]
        var terms: [[UInt8]] = []
        for index in 0..<20_000 {
            let shape = index % 4
            let term: [UInt8] =
                switch shape {
                case 0: Array("w\(index)".utf8)  // short: decided in the slot
                case 1: Array("sharedprefix\(index % 997)".utf8)  // long, same first eight bytes
                case 2: Array("東京\(index % 313)".utf8)  // multi-byte
                default:
                    (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                }
            terms.append(term)
        }
        for _ in 0..<2 {
            for term in terms {
                let id = Self.intern(term, in: &table)
                if let known = reference[term] {
                    #expect(id == known, "a term met again keeps its number")
                } else {
                    #expect(id == reference.count, "a new term takes the next number")
                    reference[term] = id
                }
            }
        }
        #expect(table.count == reference.count)
        for (term, id) in reference { #expect(Array(table.term(id)) == term) }
    }

    /// Two terms of one length and first eight bytes whose hashes agree in the bits a slot keeps
    /// and in the first slot they probe: only their stored bytes tell them apart.
    @Test func termsAlikeInTheirSlotAreToldApartByTheirBytes() throws {
        let seed: UInt64 = 7
        var seen: [UInt64: [UInt8]] = [:]
        var pair: ([UInt8], [UInt8])?
        for number in 0..<2_000_000 where pair == nil {
            let term = Array("collision-probe-\(String(number + 10_000_000))".utf8)
            let hash = term.withUnsafeBytes { ByteHashing.hash($0, seed: seed) }
            let key = (hash >> 40) << 10 | (hash & 1023)
            if let other = seen[key] { pair = (other, term) } else { seen[key] = term }
        }
        let (first, second) = try #require(pair, "two terms alike in their slot")
        var table = TermTable(seed: seed)
        let ids = (Self.intern(first, in: &table), Self.intern(second, in: &table))
        #expect(ids.0 != ids.1)
        #expect(Self.intern(first, in: &table) == ids.0 && Self.intern(second, in: &table) == ids.1)
        #expect(Array(table.term(ids.1)) == second)
    }
}

import Foundation
import Testing

@testable import Cairn

@Suite struct KeyBuilderTests {
    @Test func encodesTheDocumentedBytes() {
        #expect(KeyBuilder.key(42 as Int64, "x") == [0x80, 0, 0, 0, 0, 0, 0, 0x2A, 0x78, 0x00, 0x01])
        #expect(KeyBuilder.key(-1 as Int16) == [0x7F, 0xFF])
        #expect(KeyBuilder.key(1.0 as Double) == [0xBF, 0xF0, 0, 0, 0, 0, 0, 0])
        #expect(KeyBuilder.key(1.0 as Float) == [0xBF, 0x80, 0, 0])
        #expect(KeyBuilder.key("a\u{0}") == [0x61, 0x00, 0xFF, 0x00, 0x01])
        #expect(KeyBuilder.key(Int8?.none, Int8?(1)) == [0x00, 0x01, 0x81])
        #expect(KeyBuilder.key(true, false) == [0x01, 0x00])
        #expect(KeyBuilder.key(Data([0x00, 0x01])) == [0x00, 0xFF, 0x01, 0x00, 0x01])
    }

    @Test func canonicalisesNegativeZeroAndNaN() {
        #expect(KeyBuilder.key(-0.0 as Double) == KeyBuilder.key(0.0 as Double))
        let signalling = Double(bitPattern: 0x7FF0_0000_0000_0001)
        let negativeNaN = Double(bitPattern: 0xFFF8_0000_0000_0000)
        #expect(KeyBuilder.key(signalling) == KeyBuilder.key(Double.nan))
        #expect(KeyBuilder.key(negativeNaN) == KeyBuilder.key(Double.nan))
        #expect(KeyBuilder.key(Double.infinity).lexicographicallyPrecedes(KeyBuilder.key(Double.nan)))
        #expect(KeyBuilder.key(-Float.nan) == KeyBuilder.key(Float.nan))
        #expect(KeyBuilder.key(Float.infinity).lexicographicallyPrecedes(KeyBuilder.key(Float.nan)))
    }

    @Test func cutsLongKeysToExactly511BytesKeepingThePrefix() {
        var key = KeyBuilder()
        key.append(String(repeating: "a", count: 1000))
        let stored = key.finalized()
        #expect(stored.count == 511)
        #expect(Array(stored[..<479]) == Array(key.bytes[..<479]))
        #expect(Array(stored[479...]) == SHA256.hash(key.bytes))
    }

    @Test func longKeysSharingAPrefixStayDistinct() {
        let shared = String(repeating: "p", count: 600)
        let first = KeyBuilder.key(shared + "1")
        let second = KeyBuilder.key(shared + "2")
        #expect(first.count == 511 && second.count == 511)
        #expect(first[..<479] == second[..<479])
        #expect(first != second)
    }

    @Test func keysJustUnderTheLimitAreKeptWhole() {
        // A string of n bytes encodes to n + 2 bytes.
        let fits = KeyBuilder.key(String(repeating: "z", count: 508))
        #expect(fits.count == 510)
        #expect(fits.last == 0x01)
        let cut = KeyBuilder.key(String(repeating: "z", count: 509))
        #expect(cut.count == 511)
        #expect(cut != Array(String(repeating: "z", count: 509).utf8) + [0, 1])
    }

    @Test func readingAHashedKeyStopsAtTheCut() throws {
        let key = KeyBuilder.key(7 as Int32, String(repeating: "q", count: 700))
        var reader = KeyReader(key)
        #expect(reader.isHashed)
        #expect(try reader.decode(Int32.self) == 7)
        #expect(throws: StorageError.self) { try reader.decode(String.self) }
        do {
            _ = try reader.decode(String.self)
        } catch {
            #expect(error.code == .unsupportedValue)
        }
    }

    @Test func successorBoundsAPrefixScan() {
        #expect(KeyBuilder.successor(of: [0x61, 0xFF]) == [0x62])
        #expect(KeyBuilder.successor(of: [0x01, 0x02]) == [0x01, 0x03])
        #expect(KeyBuilder.successor(of: [0xFF, 0xFF]) == nil)
        #expect(KeyBuilder.successor(of: []) == nil)

        var prefix = KeyBuilder()
        prefix.appendStringPrefix("Ad")
        let upper = KeyBuilder.successor(of: prefix.bytes)!
        for name in ["Ad", "Ada", "Adz\u{10FFFF}", "Ad\u{0}"] {
            let key = KeyBuilder.key(name, 1 as Int)
            #expect(!key.lexicographicallyPrecedes(prefix.bytes) && key.lexicographicallyPrecedes(upper), "\(name)")
        }
        for name in ["Ac", "Ae", "A", "B"] {
            let key = KeyBuilder.key(name)
            #expect(key.lexicographicallyPrecedes(prefix.bytes) || !key.lexicographicallyPrecedes(upper), "\(name)")
        }
    }

    @Test func decodesTuplesAndRejectsLeftovers() throws {
        let id = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        var reader = KeyReader(KeyBuilder.key("Ada", 1815 as Int, id, date, UInt8?.none))
        let (name, year, uuid, when, missing) = try reader.decode(
            String.self, Int.self, UUID.self, Date.self, UInt8?.self)
        #expect(name == "Ada" && year == 1815 && uuid == id && when == date && missing == nil)

        var extra = KeyReader(KeyBuilder.key(1 as Int16, 2 as Int16))
        #expect(try extra.decode(Int16.self) == 1)
        #expect(throws: StorageError.self) { try extra.finish() }
    }

    @Test func rejectsMalformedKeys() {
        let bad: [[UInt8]] = [
            [0x61, 0x00, 0x02],  // invalid escape
            [0x61, 0x62],  // no terminator
            [0x61, 0x00],  // cut terminator
            [0xC3, 0x00, 0x01],  // invalid UTF-8
        ]
        for bytes in bad {
            var reader = KeyReader(bytes)
            #expect(throws: StorageError.self) { try reader.decode(String.self) }
        }
        var optional = KeyReader([0x02])
        #expect(throws: StorageError.self) { try optional.decode(Int8?.self) }
        var bool = KeyReader([0x07])
        #expect(throws: StorageError.self) { try bool.decode(Bool.self) }
        var short = KeyReader([0x80, 0x00])
        #expect(throws: StorageError.self) { try short.decode(Int32.self) }
        var negativeZero = KeyReader(KeyBuilder.key(UInt64(0x7FFF_FFFF_FFFF_FFFF)))
        #expect(throws: StorageError.self) { try negativeZero.decode(Double.self) }
    }

    @Test func rawRepresentableEnumsKeyByRawValue() throws {
        #expect(KeyBuilder.key(KeyTestPriority.high) == KeyBuilder.key(2 as Int))
        var reader = KeyReader(KeyBuilder.key(KeyTestPriority.low))
        #expect(try reader.decode(KeyTestPriority.self) == .low)
        var unknown = KeyReader(KeyBuilder.key(9 as Int))
        #expect(throws: StorageError.self) { try unknown.decode(KeyTestPriority.self) }
    }
}

enum KeyTestPriority: Int, KeyComponent {
    case low = 1
    case high = 2
}

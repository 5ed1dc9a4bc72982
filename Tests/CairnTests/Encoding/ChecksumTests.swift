import Testing

@testable import Cairn

@Suite struct CRC32CTests {
    @Test func matchesTheStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    // Test vectors from RFC 3720, appendix B.4.
    @Test func matchesTheISCSIVectors() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
    }

    @Test func emptyInputIsZero() {
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            var crc = CRC32C()
            crc.update(Array(bytes[..<split]))
            crc.update(bytes[split...])
            #expect(crc.value == CRC32C.checksum(bytes))
        }
    }

    /// The table-driven code (for processors without a CRC-32C instruction) gives the vectors'
    /// values and the same results as `update`, whichever that uses here, at every length and
    /// alignment.
    @Test func theTableDrivenCodeAgreesWithTheVectorsAndWithUpdate() {
        func tables(_ bytes: [UInt8]) -> UInt32 {
            var crc = CRC32C()
            bytes.withUnsafeBytes { crc.updateWithTables($0) }
            return crc.value
        }
        #expect(tables(Array("123456789".utf8)) == 0xE306_9283)
        #expect(tables((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        var random = SeededGenerator(seed: 32)
        let bytes = (0..<600).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for start in 0..<9 {
            for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 591 - start] {
                let slice = Array(bytes[start..<(start + length)])
                bytes.withUnsafeBytes { buffer in
                    let part = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])
                    var crc = CRC32C()
                    crc.update(part)
                    #expect(crc.value == tables(slice))
                }
            }
        }
    }
}

@Suite struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    // FIPS 180-4 examples (NIST CSRC "SHA256.pdf" and the short/long message vectors).
    @Test func matchesTheFIPSVectors() {
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(
            hex(
                SHA256.hash(
                    Array(
                        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
                            .utf8
                    )
                )
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        )
    }

    @Test func hashesAMillionAs() {
        let digest = SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000))
        #expect(hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func paddingBoundariesMatchIncrementalHashing() {
        for length in [55, 56, 63, 64, 65, 119, 120, 128] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            var hasher = SHA256()
            hasher.update(bytes[..<(length / 2)])
            hasher.update(bytes[(length / 2)...])
            #expect(hasher.finalize() == SHA256.hash(bytes))
        }
        // A known 64-byte-boundary vector: 64 bytes of "a".
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 64)))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"
        )
    }
}

import CairnStorage
import Crypto
import Foundation
import Testing

/// The cipher that seals an encrypted store's values: AES-256-GCM's known answers, the processor's
/// instructions against swift-crypto byte for byte, and every changed bit refused.
@Suite struct ValueCipherTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// Test cases 13, 14 and 16 of "The Galois/Counter Mode of Operation" (McGrew and Viega), the
    /// AES-256 ones with a 96-bit nonce.
    static let knownAnswers: [(key: String, nonce: String, plaintext: String, aad: String, ciphertext: String, tag: String)] = [
        (String(repeating: "0", count: 64), String(repeating: "0", count: 24), "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
        (
            String(repeating: "0", count: 64), String(repeating: "0", count: 24), String(repeating: "0", count: 32), "",
            "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"
        ),
        (
            "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
            "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            "76fc6ece0f4e1768cddf8853bb2d551b"
        ),
    ]

    @Test(arguments: [true, false]) func knownAnswersOfAES256GCM(hardware: Bool) throws {
        for answer in Self.knownAnswers {
            let cipher = ValueCipher(dataKey: Self.bytes(answer.key), hardware: hardware && ValueCipher.hardwareAvailable)
            var nonces = NonceSequence(first: Self.bytes(answer.nonce))
            let sealed = cipher.sealed(Self.bytes(answer.plaintext), additionalData: Self.bytes(answer.aad), nonces: &nonces)
            #expect(sealed == [0x01] + Self.bytes(answer.nonce) + Self.bytes(answer.ciphertext) + Self.bytes(answer.tag))
            #expect(cipher.opened(sealed, additionalData: Self.bytes(answer.aad)) == Self.bytes(answer.plaintext))
        }
    }

    /// Random keys, nonces, additional data (to 600 bytes) and lengths from 0 to 300 bytes (every
    /// tail length of the first batch of seven blocks and the eight-block batches after it), and
    /// two longer ones: the processor's code and swift-crypto make the same bytes, and each opens
    /// what the other sealed.
    @Test func processorAndSwiftCryptoAgree() throws {
        var generator = SeededGenerator(seed: 0xC1F4)
        for length in Array(0...300) + [1_000, 4_103] {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let aad = (0..<Int.random(in: 0...(length % 3 == 0 ? 600 : 40), using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hardware = ValueCipher(dataKey: key, hardware: ValueCipher.hardwareAvailable)
            let software = ValueCipher(dataKey: key, hardware: false)
            var first = NonceSequence(first: nonce), second = NonceSequence(first: nonce)
            let sealedByHardware = hardware.sealed(plaintext, additionalData: aad, nonces: &first)
            let sealedBySoftware = software.sealed(plaintext, additionalData: aad, nonces: &second)
            #expect(sealedByHardware == sealedBySoftware, "length \(length)")
            #expect(software.opened(sealedByHardware, additionalData: aad) == plaintext)
            #expect(hardware.opened(sealedBySoftware, additionalData: aad) == plaintext)
            // swift-crypto's own API opens it too.
            let box = try AES.GCM.SealedBox(combined: Array(sealedByHardware.dropFirst()))
            #expect(try Array(AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: aad)) == plaintext)
        }
    }

    @Test(arguments: [true, false]) func everyChangedBitIsRefused(hardware: Bool) {
        let cipher = ValueCipher(dataKey: Array(repeating: 7, count: 32), hardware: hardware && ValueCipher.hardwareAvailable)
        var nonces = NonceSequence()
        let aad = Array("e/Book\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 5]
        let sealed = cipher.sealed(Array("a record of some seventy bytes, as an author's is here...".utf8), additionalData: aad, nonces: &nonces)
        for bit in 0..<(sealed.count * 8) {
            var changed = sealed
            changed[bit / 8] ^= 1 << (bit % 8)
            #expect(cipher.opened(changed, additionalData: aad) == nil, "bit \(bit)")
        }
        var otherKey = aad
        otherKey[otherKey.count - 1] = 4
        #expect(cipher.opened(sealed, additionalData: otherKey) == nil)
        #expect(cipher.opened(Array(sealed.dropLast()), additionalData: aad) == nil)
        #expect(ValueCipher(dataKey: Array(repeating: 8, count: 32)).opened(sealed, additionalData: aad) == nil)
    }

    @Test func noncesOfOneSequenceDiffer() {
        var nonces = NonceSequence()
        var seen = Set<[UInt8]>()
        for _ in 0..<10_000 {
            var nonce = [UInt8](repeating: 0, count: 12)
            nonce.withUnsafeMutableBytes { nonces.next(into: $0.baseAddress!) }
            seen.insert(nonce)
        }
        #expect(seen.count == 10_000)
    }
}

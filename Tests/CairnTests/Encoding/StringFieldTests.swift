import Foundation
import Testing

@testable import Cairn

/// A stored string decodes exactly, ASCII by the fast path and other text validated, and bytes
/// that are not UTF-8 are damage, never repaired into a different string.
@Suite struct StringFieldTests {
    @Test(arguments: ["", "Ada", "Brontë", "日本語", "e\u{301}", String(repeating: "x", count: 300)])
    func storedTextReadsBackExactly(_ text: String) throws {
        let decoded = try String(fieldPayload: .bytes(ArraySlice(Array(text.utf8))))
        #expect(decoded == text && Array(decoded.utf8) == Array(text.utf8))
    }

    @Test(
        arguments: [
            [0xC3], [0x41, 0xFF], [0xED, 0xA0, 0x80], [0x41, 0x42, 0x80, 0x43],
            // Overlong, truncated, past U+10FFFF, never-valid lead bytes, a lone continuation.
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xF4, 0x90, 0x80, 0x80],
            [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0x42, 0xC3, 0xA9, 0xBF],
        ] as [[UInt8]])
    func bytesThatAreNotUTF8AreDamage(_ bytes: [UInt8]) {
        #expect(throws: StorageError.self) { try String(fieldPayload: .bytes(ArraySlice(bytes))) }
    }
}

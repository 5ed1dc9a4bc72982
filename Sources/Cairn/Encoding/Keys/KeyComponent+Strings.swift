import Foundation

// Strings and Data are keyed as their bytes with 0x00 escaped as 0x00 0xFF and a 0x00 0x01
// terminator. The terminator's second byte is below the escape's, so a string sorts before every
// longer string it prefixes, and the encoding is self-delimiting whatever component follows.
//
// A string is keyed in Unicode normalization form C. Swift compares strings by canonical
// equivalence, ordering them by the scalars of their NFC forms, so the NFC bytes give exactly
// Swift's `==` and `<`: "é" precomposed and "e" + U+0301 are one key, and U+212A KELVIN SIGN is
// the key of "K".

extension String: KeyComponent {
    /// Appends the UTF-8 bytes of the string's normalization form C, escaped and terminated.
    ///
    /// Keys therefore agree with Swift's `String` comparison: equal keys for canonically
    /// equivalent strings ("é" precomposed and "e" + U+0301), and key order is `<` (Unicode
    /// scalar order of the NFC forms; no locale).
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// "a\u{0}".appendKey(to: &key)       // 61 00 FF 00 01
    /// "e\u{301}".appendKey(to: &key)     // C3 A9 00 01, as "\u{E9}"
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        if isNFCByConstruction {
            key.appendEscapedAndTerminated(utf8)
        } else {
            key.appendEscapedAndTerminated(_nfcCodeUnits)
        }
    }

    /// The UTF-8 bytes of the string's normalization form C, from the standard library's own
    /// normalizer: the one `String`'s `==` and hashing use. (Foundation's
    /// `precomposedStringWithCanonicalMapping` on Linux leaves some Hangul syllables decomposed,
    /// `"\u{AC00}\u{11A8}"` among them, which `==` equates with `"\u{AC01}"`.)
    ///
    /// ```swift
    /// "e\u{301}".nfcBytes   // [0xC3, 0xA9]
    /// ```
    package var nfcBytes: [UInt8] { isNFCByConstruction ? Array(utf8) : _nfcCodeUnits }

    /// Whether every UTF-8 byte is below `0xCC`: scalars below U+0300, which NFC never changes
    /// and which never combine with what precedes them, so the string is its own NFC form.
    private var isNFCByConstruction: Bool { utf8.allSatisfy { $0 < 0xCC } }

    /// Reads an escaped, terminated UTF-8 string.
    ///
    /// ```swift
    /// let name = try String.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The string, in normalization form C (equal, by `==`, to the one keyed).
    /// - Throws: `StorageError` when the terminator is missing, an escape is invalid, or the
    ///   bytes are not valid UTF-8.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> String {
        let raw = try reader.readEscapedAndTerminated()
        guard let string = raw.withUnsafeBufferPointer({ String.validatingUTF8($0) }) else {
            throw StorageError.damagedKey("A string in the key is not valid UTF-8.")
        }
        return string
    }

    /// Moves past the escaped, terminated bytes, making no string (and checking no UTF-8).
    ///
    /// ```swift
    /// try String.skipKey(in: &reader)
    /// ```
    package static func skipKey(in reader: inout KeyReader) throws(StorageError) {
        try reader.skipEscapedAndTerminated()
    }
}

extension Data: KeyComponent {
    /// Appends the bytes, escaped and terminated like a string.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// Data([0x00, 0x01]).appendKey(to: &key)   // 00 FF 01 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendEscapedAndTerminated(self)
    }

    /// Reads escaped, terminated bytes.
    ///
    /// ```swift
    /// let blob = try Data.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The bytes.
    /// - Throws: `StorageError` when the terminator is missing or an escape is invalid.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Data {
        Data(try reader.readEscapedAndTerminated())
    }
}

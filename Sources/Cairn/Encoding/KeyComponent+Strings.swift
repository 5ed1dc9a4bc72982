import Foundation

// Strings and Data are keyed as their bytes with 0x00 escaped as 0x00 0xFF and a 0x00 0x01
// terminator. The terminator's second byte is below the escape's, so a string sorts before every
// longer string it prefixes, and the encoding is self-delimiting whatever component follows.

extension String: KeyComponent {
    /// Appends the UTF-8 bytes, escaped and terminated.
    ///
    /// Strings therefore order by their UTF-8 bytes, which is Unicode scalar order: no locale,
    /// no normalization ("é" precomposed and "e" + U+0301 are different keys).
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// "a\u{0}".appendKey(to: &key)   // 61 00 FF 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendEscapedAndTerminated(utf8)
    }

    /// Reads an escaped, terminated UTF-8 string.
    ///
    /// ```swift
    /// let name = try String.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The string.
    /// - Throws: ``StorageError`` when the terminator is missing, an escape is invalid, or the
    ///   bytes are not valid UTF-8.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> String {
        let raw = try reader.readEscapedAndTerminated()
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw StorageError.damagedKey("A string in the key is not valid UTF-8.")
        }
        return string
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
    /// - Throws: ``StorageError`` when the terminator is missing or an escape is invalid.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Data {
        Data(try reader.readEscapedAndTerminated())
    }
}

/// Reads values back out of an order-preserving key.
///
/// Decoding keys serves range bounds, `explain` output and the store verifier. A reader checks
/// every byte: a key that is not a valid encoding is a `StorageError` with code
/// `.damagedRecord`, never a wrong value.
///
/// A key of exactly ``KeyBuilder/maximumLength`` bytes was cut and completed by a hash (see
/// ``isHashed``); only its first ``KeyBuilder/hashedPrefixLength`` bytes can be read, and
/// reading a component that extends past them throws `.unsupportedValue`.
///
/// ```swift
/// var reader = KeyReader(KeyBuilder.key("Ada", 1815 as Int))
/// let name = try reader.decode(String.self)
/// let year = try reader.decode(Int.self)
/// try reader.finish()
/// ```
package struct KeyReader: Sendable {
    private let bytes: [UInt8]
    private let end: Int

    /// The offset of the next unread byte.
    ///
    /// ```swift
    /// let consumed = reader.position
    /// ```
    package private(set) var position: Int

    /// Whether this key was cut to LMDB's limit and completed by a SHA-256 hash.
    ///
    /// ```swift
    /// if reader.isHashed { /* load the record for the full value */ }
    /// ```
    package let isHashed: Bool

    /// Creates a reader over a finalized key (or a key prefix).
    ///
    /// ```swift
    /// var reader = KeyReader(storedKey)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key bytes, as ``KeyBuilder/finalized()`` produced them.
    package init(_ key: [UInt8]) {
        self.init(key, length: key.count)
    }

    /// Creates a reader over the key in the first `length` bytes of `buffer` (a buffer reused
    /// for key after key).
    ///
    /// ```swift
    /// var reader = KeyReader(scratch, length: key.count)
    /// ```
    package init(_ buffer: [UInt8], length: Int) {
        bytes = buffer
        position = 0
        let length = min(max(length, 0), buffer.count)
        isHashed = length == KeyBuilder.maximumLength
        end = isHashed ? KeyBuilder.hashedPrefixLength : length
    }

    /// Whether every readable byte has been consumed.
    ///
    /// For a hashed key this is the end of the kept prefix.
    ///
    /// ```swift
    /// while !reader.isAtEnd { values.append(try reader.decode(Int.self)) }
    /// ```
    package var isAtEnd: Bool { position == end }

    /// Reads the next component.
    ///
    /// ```swift
    /// let year = try reader.decode(Int.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of the component.
    /// - Returns: The decoded value.
    /// - Throws: `StorageError` (`.damagedRecord` for bytes that are no valid encoding,
    ///   `.unsupportedValue` for a component cut off by the long-key hash).
    package mutating func decode<Value: KeyComponent>(_ type: Value.Type) throws(StorageError) -> Value {
        try Value.readKey(from: &self)
    }

    /// Reads several components in order and checks that nothing follows them.
    ///
    /// ```swift
    /// let (name, year) = try reader.decode(String.self, Int.self)
    /// ```
    ///
    /// - Parameters:
    ///   - types: The component types, first component first.
    /// - Returns: The decoded tuple.
    /// - Throws: `StorageError` as ``decode(_:)-(Value.Type)`` does, and `.damagedRecord` when
    ///   bytes are left over.
    package mutating func decode<each Value: KeyComponent>(
        _ types: repeat (each Value).Type
    ) throws(StorageError) -> (repeat each Value) {
        let values = (repeat try (each Value).readKey(from: &self))
        try finish()
        return values
    }

    /// Checks that every byte of the key was read.
    ///
    /// ```swift
    /// try reader.finish()
    /// ```
    ///
    /// - Throws: `StorageError` with code `.damagedRecord` when bytes are left over.
    package func finish() throws(StorageError) {
        guard position == end else {
            throw StorageError.damagedKey(
                "The key has \(end - position) unexpected bytes after its last component."
            )
        }
    }

    /// Reads exactly `count` bytes; for ``KeyComponent`` conformances.
    ///
    /// ```swift
    /// let raw = try reader.readRawBytes(count: 8)
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many bytes to read.
    /// - Returns: The bytes, as a slice of the key.
    /// - Throws: `StorageError` when fewer bytes remain.
    package mutating func readRawBytes(count: Int) throws(StorageError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - position else { throw endError(needed: count) }
        let slice = bytes[position..<(position + count)]
        position += count
        return slice
    }

    /// Reads one byte; for ``KeyComponent`` conformances.
    ///
    /// ```swift
    /// let presence = try reader.readRawByte()
    /// ```
    ///
    /// - Returns: The byte.
    /// - Throws: `StorageError` when no byte remains.
    package mutating func readRawByte() throws(StorageError) -> UInt8 {
        guard position < end else { throw endError(needed: 1) }
        let byte = bytes[position]
        position += 1
        return byte
    }

    /// Reads an escaped, terminated byte string written by
    /// ``KeyBuilder/appendEscapedAndTerminated(_:)``.
    ///
    /// ```swift
    /// let utf8 = try reader.readEscapedAndTerminated()
    /// ```
    ///
    /// - Returns: The unescaped bytes.
    /// - Throws: `StorageError` when the terminator is missing or an escape is invalid.
    package mutating func readEscapedAndTerminated() throws(StorageError) -> [UInt8] {
        var result: [UInt8] = []
        try walkEscapedAndTerminated { result.append($0) }
        return result
    }

    /// Moves past an escaped, terminated byte string, checking its escapes, keeping nothing.
    ///
    /// ```swift
    /// try reader.skipEscapedAndTerminated()
    /// ```
    /// - Throws: What ``readEscapedAndTerminated()`` throws.
    package mutating func skipEscapedAndTerminated() throws(StorageError) {
        try walkEscapedAndTerminated { _ in }
    }

    /// Walks an escaped, terminated byte string, handing each unescaped byte to `byte`.
    private mutating func walkEscapedAndTerminated(_ byte: (UInt8) -> Void) throws(StorageError) {
        var index = position
        while index < end {
            let next = bytes[index]
            index += 1
            guard next == 0x00 else {
                byte(next)
                continue
            }
            guard index < end else { break }
            let marker = bytes[index]
            index += 1
            switch marker {
            case 0x01:
                position = index
                return
            case 0xFF:
                byte(0x00)
            default:
                throw StorageError.damagedKey(
                    "A string in the key has the invalid escape 0x00 0x\(String(marker, radix: 16)) at byte \(index - 2)."
                )
            }
        }
        throw endError(needed: nil)
    }

    private func endError(needed: Int?) -> StorageError {
        if isHashed {
            return StorageError.unsupported(
                "The key component at byte \(position) lies beyond the first \(KeyBuilder.hashedPrefixLength) bytes "
                    + "of a long key, which were replaced by a hash.",
                remedy: "Read the value from the record instead of the key."
            )
        }
        let what = needed.map { "\($0) more bytes" } ?? "a string terminator"
        return StorageError.damagedKey("The key ends at byte \(end) but needs \(what) at byte \(position).")
    }
}

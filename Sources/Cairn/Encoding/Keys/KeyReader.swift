import Foundation

/// Reads values back out of an order-preserving key.
///
/// Decoding keys serves aggregates read from index entries, which need no record. A reader checks
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
package struct KeyReader {
    /// The key's bytes: the reader's own copy (``init(_:)``), or the caller's memory
    /// (``init(unsafeBytes:)``).
    private let bytes: UnsafeRawBufferPointer
    /// Keeps the reader's own copy alive.
    private let copy: KeyCopy?
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

    /// Creates a reader over a copy of a finalized key (or a key prefix).
    ///
    /// ```swift
    /// var reader = KeyReader(storedKey)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key bytes, as ``KeyBuilder/finalized()`` produced them.
    package init(_ key: [UInt8]) {
        let copy = KeyCopy(key)
        self.init(bytes: copy.bytes, copy: copy)
    }

    /// Creates a reader over a key in memory the caller keeps valid and unchanged while it
    /// reads (a key LMDB returned, read before the cursor moves): nothing is copied.
    ///
    /// ```swift
    /// let (key, _) = cursor.current
    /// var reader = KeyReader(unsafeBytes: key)
    /// ```
    @inline(__always)
    package init(unsafeBytes key: UnsafeRawBufferPointer) {
        self.init(bytes: key, copy: nil)
    }

    @inline(__always)
    private init(bytes: UnsafeRawBufferPointer, copy: KeyCopy?) {
        (self.bytes, self.copy) = (bytes, copy)
        position = 0
        isHashed = bytes.count == KeyBuilder.maximumLength
        end = isHashed ? KeyBuilder.hashedPrefixLength : bytes.count
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
    /// - Returns: The bytes, valid while the key's memory is (use them at once).
    /// - Throws: `StorageError` when fewer bytes remain.
    package mutating func readRawBytes(count: Int) throws(StorageError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= end - position else { throw endError(needed: count) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
        position += count
        return slice
    }

    /// Reads a big-endian unsigned integer at its own width; for ``KeyComponent`` conformances.
    ///
    /// ```swift
    /// let raw = try reader.readBigEndian(UInt64.self)
    /// ```
    /// - Throws: `StorageError` when fewer bytes remain.
    package mutating func readBigEndian<Value: FixedWidthInteger & UnsignedInteger>(
        _ type: Value.Type
    ) throws(StorageError) -> Value {
        let width = MemoryLayout<Value>.size
        guard width <= end - position else { throw endError(needed: width) }
        let value = Value(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: Value.self))
        position += width
        return value
    }

    /// Moves past `count` bytes the caller knows to hold whole components (bytes equal to
    /// another key's components already read).
    ///
    /// ```swift
    /// try reader.skip(count: sharedPrefix.count)
    /// ```
    /// - Throws: `StorageError` when fewer bytes remain.
    package mutating func skip(count: Int) throws(StorageError) {
        guard count >= 0, count <= end - position else { throw endError(needed: count) }
        position += count
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
        // Only a 0x00 byte starts an escape or the terminator: the bytes between are skipped
        // a search at a time.
        var index = position
        while index < end, let zero = memchr(bytes.baseAddress! + index, 0, end - index) {
            index = bytes.baseAddress!.distance(to: UnsafeRawPointer(zero)) + 1
            guard index < end else { break }
            let marker = bytes[index]
            index += 1
            if marker == 0x01 {
                position = index
                return
            }
            guard marker == 0xFF else { throw Self.invalidEscape(marker, at: index - 2) }
        }
        throw endError(needed: nil)
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
                throw Self.invalidEscape(marker, at: index - 2)
            }
        }
        throw endError(needed: nil)
    }

    private static func invalidEscape(_ marker: UInt8, at offset: Int) -> StorageError {
        StorageError.damagedKey(
            "A string in the key has the invalid escape 0x00 0x\(String(marker, radix: 16)) at byte \(offset).")
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

/// A key's bytes, copied for a ``KeyReader`` that owns them.
private final class KeyCopy {
    let bytes: UnsafeRawBufferPointer

    init(_ key: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: key.count, alignment: 1)
        key.withUnsafeBytes { copy.copyMemory(from: $0) }
        bytes = UnsafeRawBufferPointer(copy)
    }

    deinit { bytes.deallocate() }
}

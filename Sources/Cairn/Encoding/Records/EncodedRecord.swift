/// A finished record and the checksum of its content, ready to be sealed for the key it is
/// stored under.
///
/// A stored record's last four bytes hold `CRC-32C(content) XOR CRC-32C(key)`, little-endian,
/// where the content is the format byte and the fields, and the key is the one the record is
/// stored under (an `e/<Entity>` row key, an `x/<Entity>` external key). A bit flipped in a row
/// key that keeps the key's order (row 5 reading as row 4) then fails the record's check
/// instead of moving the row to another identifier. The CRC-32C of no bytes is 0, so a record
/// sealed for no key (built in memory, never stored) carries its plain content checksum.
///
/// Records are encoded before a save's write transaction, and a new row's id is allocated
/// inside it, so the seal is a separate step: ``seal(forKey:)`` rewrites the four checksum bytes
/// from ``contentChecksum`` and one CRC over the key, in place, with no second pass over the
/// content. It sets them rather than toggling them, so a transaction body that runs again (after
/// the map grows) may seal the same record for another row.
///
/// ```swift
/// var record = writer.encoded()
/// try txn.put(record.sealed(forRow: row), for: EntryLayout.rowKey(row), in: table)
/// // later, with the bytes read back under that key:
/// let reader = try RecordReader(stored, key: EntryLayout.rowKey(row))
/// ```
package struct EncodedRecord: Sendable {
    /// The record's bytes, sealed for the key of the last ``seal(forKey:)`` (no key at first).
    package private(set) var bytes: [UInt8]

    /// The CRC-32C of the record's content: the same for every key it is sealed for, so it
    /// identifies which version of a row a model's values came from.
    package let contentChecksum: UInt32

    /// The record's size in bytes, kept beside the bytes: a plan sums its records' sizes, and
    /// reading each array's own count touched memory far apart for every row.
    package let count: Int

    /// Wraps a record sealed for no key (its last four bytes hold `contentChecksum`), as
    /// ``RecordWriter/encoded()`` makes it.
    init(unkeyed bytes: [UInt8], contentChecksum: UInt32) {
        self.bytes = bytes
        count = bytes.count
        self.contentChecksum = contentChecksum
    }

    /// Seals the record for `key`: its checksum becomes `contentChecksum XOR CRC-32C(key)`.
    ///
    /// ```swift
    /// record.seal(forKey: EntryLayout.externalKey(row: row, tag: tag))
    /// ```
    package mutating func seal(forKey key: [UInt8]) {
        key.withUnsafeBytes { seal(forKey: $0) }
    }

    /// ``seal(forKey:)`` for a key that is not in an array (built on the stack).
    ///
    /// ```swift
    /// try EntryLayout.withRowKey(row) { key in record.seal(forKey: key) }
    /// ```
    package mutating func seal(forKey key: UnsafeRawBufferPointer) {
        let checksum = contentChecksum ^ CRC32C.checksum(key)
        // Sealed for this key already: left as it is. Writing the same bytes again would copy
        // them whenever another reference shares them (a record compared, then written).
        if Self.storedChecksum(of: bytes, in: 0..<bytes.count) == checksum { return }
        Self.storeChecksum(checksum, in: &bytes, recordEnd: bytes.count)
    }

    /// Seals the record for `key` and returns its bytes, to put under that key.
    ///
    /// ```swift
    /// try txn.put(record.sealed(forKey: key), for: key, in: externals)
    /// ```
    /// - Returns: The sealed bytes.
    package mutating func sealed(forKey key: [UInt8]) -> [UInt8] {
        seal(forKey: key)
        return bytes
    }

    /// Seals the record for the row key of `row` and returns its bytes.
    ///
    /// ```swift
    /// try txn.put(record.sealed(forRow: row), for: EntryLayout.rowKey(row), in: records)
    /// ```
    /// - Returns: The sealed bytes.
    package mutating func sealed(forRow row: UInt64) -> [UInt8] {
        sealed(forKey: EntryLayout.rowKey(row))
    }

    /// Writes `checksum` as the four checksum bytes (little-endian) of the record ending at
    /// `recordEnd` in `storage`: where ``storedChecksum(of:in:)`` reads them.
    static func storeChecksum(_ checksum: UInt32, in storage: inout [UInt8], recordEnd: Int) {
        for offset in 0..<4 { storage[recordEnd - 4 + offset] = UInt8(truncatingIfNeeded: checksum >> (8 * offset)) }
    }

    /// The four checksum bytes (little-endian) at the end of the record at `record` of `storage`, at
    /// least four bytes long.
    static func storedChecksum(of storage: [UInt8], in record: Range<Int>) -> UInt32 {
        var stored: UInt32 = 0
        for offset in 0..<4 { stored |= UInt32(storage[record.upperBound - 4 + offset]) << (8 * offset) }
        return stored
    }
}

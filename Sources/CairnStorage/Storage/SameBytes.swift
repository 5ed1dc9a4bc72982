import Foundation

extension UnsafeRawBufferPointer {
    /// Whether `other` holds exactly these bytes: one `memcmp`, where comparing the buffers as
    /// sequences steps through them a byte at a time.
    ///
    /// ```swift
    /// record.withUnsafeBytes { $0.hasSameBytes(as: cursor.current.value) }
    /// ```
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }

    /// How these bytes order against `other` as LMDB orders plain keys (`mdb_cmp_memn`): byte
    /// by byte, then the shorter first. Negative, zero or positive.
    ///
    /// ```swift
    /// key.withUnsafeBytes { $0.compareBytes(to: lastKey) < 0 }
    /// ```
    package func compareBytes(to other: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(count, other.count)
        // Compared eight bytes at a time as big-endian words, without a call (memcmp was a third
        // of a page walk): the last word overlaps the one before, whose bytes are equal by then.
        if common >= 8 {
            func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            var offset = 0
            while true {
                let (x, y) = (word(self, offset), word(other, offset))
                if x != y { return x < y ? -1 : 1 }
                if offset == common - 8 { return count - other.count }
                offset = Swift.min(offset + 8, common - 8)
            }
        }
        if common > 0 {
            let result = memcmp(baseAddress!, other.baseAddress!, common)
            if result != 0 { return Int(result) }
        }
        return count - other.count
    }
}

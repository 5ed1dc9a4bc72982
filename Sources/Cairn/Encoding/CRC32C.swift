import CCRC32C

/// The CRC-32C (Castagnoli) checksum that guards every stored record.
///
/// CRC-32C uses the polynomial `0x1EDC6F41` (reflected `0x82F63B78`), an initial value of
/// `0xFFFFFFFF` and a final complement, as in iSCSI, ext4 and LevelDB. It detects every
/// single-bit, double-bit and odd-count error and every burst of up to 32 bits in a record,
/// which is what a torn page or a flipped bit on disk looks like. This implementation is a
/// portable table-driven one (slicing by 8 bytes) with no platform intrinsics, so it gives the
/// same answer on every platform.
///
/// ```swift
/// let sum = CRC32C.checksum(Array("123456789".utf8))   // 0xE306_9283
/// var running = CRC32C()
/// running.update(Array("1234".utf8))
/// running.update(Array("56789".utf8))
/// assert(running.value == sum)
/// ```
package struct CRC32C: Sendable, Hashable {
    private var state: UInt32 = 0xFFFF_FFFF

    /// Creates a running checksum over no bytes yet.
    ///
    /// Feed it bytes with ``update(_:)-(UnsafeRawBufferPointer)`` and read ``value``.
    ///
    /// ```swift
    /// var crc = CRC32C()
    /// crc.update([0x01, 0x02])
    /// ```
    package init() {}

    /// The checksum of every byte fed so far.
    ///
    /// Reading it does not end the computation; more bytes can follow.
    ///
    /// ```swift
    /// var crc = CRC32C()
    /// crc.update(Array("123456789".utf8))
    /// assert(crc.value == 0xE306_9283)
    /// ```
    package var value: UInt32 { ~state }

    /// Feeds the bytes of a buffer into the checksum.
    ///
    /// The buffer is read and not retained.
    ///
    /// ```swift
    /// var crc = CRC32C()
    /// bytes.withUnsafeBytes { crc.update($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: The bytes to add, in order.
    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        // The processor's instruction where it has one: about a tenth of the table-driven code's
        // time, and every record written and read is checksummed.
        if CRC32C.hardware, let base = buffer.baseAddress {
            state = cairn_crc32c_update(state, base, buffer.count)
            return
        }
        updateWithTables(buffer)
    }

    /// ``update(_:)`` without the processor's instruction: for processors without one, and for
    /// the tests that hold the two to the same results.
    mutating func updateWithTables(_ buffer: UnsafeRawBufferPointer) {
        var crc = state
        var index = 0
        let count = buffer.count
        let tables = CRC32C.tables
        // Slicing-by-8: eight table lookups per eight bytes instead of one per byte, with no
        // unaligned loads, so it is fast in debug builds too (records are checksummed on every read).
        while count - index >= 8 {
            let low =
                crc
                ^ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index + 2]) << 16
                    | UInt32(buffer[index + 3]) << 24)
            crc =
                tables[7 * 256 + Int(low & 0xFF)] ^ tables[6 * 256 + Int((low >> 8) & 0xFF)]
                ^ tables[5 * 256 + Int((low >> 16) & 0xFF)] ^ tables[4 * 256 + Int(low >> 24)]
                ^ tables[3 * 256 + Int(buffer[index + 4])] ^ tables[2 * 256 + Int(buffer[index + 5])]
                ^ tables[1 * 256 + Int(buffer[index + 6])] ^ tables[Int(buffer[index + 7])]
            index += 8
        }
        while index < count {
            crc = tables[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
            index += 1
        }
        state = crc
    }

    /// Feeds the bytes of an array into the checksum.
    ///
    /// ```swift
    /// var crc = CRC32C()
    /// crc.update([0x31, 0x32, 0x33])
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The bytes to add, in order.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds a slice of bytes into the checksum.
    ///
    /// ```swift
    /// var crc = CRC32C()
    /// crc.update(record[0..<(record.count - 4)])
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The bytes to add, in order.
    package mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Computes the checksum of a byte array in one call.
    ///
    /// ```swift
    /// assert(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The bytes to checksum.
    /// - Returns: The CRC-32C of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    /// Computes the checksum of a raw buffer in one call.
    ///
    /// ```swift
    /// let sum = bytes.withUnsafeBytes { CRC32C.checksum($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: The bytes to checksum.
    /// - Returns: The CRC-32C of `buffer`.
    package static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(buffer)
        return crc.value
    }

    /// Whether the processor computes CRC-32C itself (SSE 4.2 on x86-64, the CRC32 extension on
    /// ARM64), asked once.
    private static let hardware = cairn_crc32c_hardware_available() != 0

    // Eight 256-entry tables laid end to end; table k advances a byte through k further zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[byte]
            for slice in 1..<8 {
                crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
                tables[slice * 256 + byte] = crc
            }
        }
        return tables
    }()
}

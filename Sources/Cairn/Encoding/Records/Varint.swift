/// LEB128 variable-length integers and zigzag mapping, shared by records and the binary coder.
///
/// Decoding is strict: at most ten bytes, and the tenth may only carry the top bit of a
/// `UInt64`, so an overlong or overflowing varint is damage rather than a silently wrapped value.
enum Varint {
    static let maximumLength = 10

    /// Appends `value`'s varint to `bytes`: one byte in place, a longer one made aside and
    /// appended at once (an append per byte checked the array's uniqueness and capacity each time).
    @inline(__always)
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 0x80 { return bytes.append(UInt8(truncatingIfNeeded: value)) }
        appendLonger(value, to: &bytes)
    }

    private static func appendLonger(_ value: UInt64, to bytes: inout [UInt8]) {
        var scratch: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &scratch) { raw in
            let count = write(value, to: raw.baseAddress!)
            let written = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            bytes.append(contentsOf: UnsafeBufferPointer(start: written, count: count))
        }
    }

    /// Writes `value`'s varint at `destination`, which has room for ``maximumLength`` bytes;
    /// returns how many it wrote.
    @inline(__always)
    static func write(_ value: UInt64, to destination: UnsafeMutableRawPointer) -> Int {
        var value = value
        var count = 0
        while value >= 0x80 {
            destination.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: count, as: UInt8.self)
            value >>= 7
            count += 1
        }
        destination.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: count, as: UInt8.self)
        return count + 1
    }

    static func encodedLength(_ value: UInt64) -> Int {
        var value = value
        var length = 1
        while value >= 0x80 {
            value >>= 7
            length += 1
        }
        return length
    }

    /// Reads a varint at `index`, advancing it; `nil` when the bytes end early or overflow.
    @inline(__always)
    static func read(_ bytes: [UInt8], at index: inout Int, end: Int) -> UInt64? {
        bytes.withUnsafeBytes { read($0, at: &index, end: min(end, bytes.count)) }
    }

    /// The same over raw bytes, reading none at or past `end` (at most their count).
    @inline(__always)
    static func read(_ bytes: UnsafeRawBufferPointer, at index: inout Int, end: Int) -> UInt64? {
        // Most varints (field headers, small numbers and lengths) are one byte.
        if index < end, bytes[index] < 0x80 {
            defer { index += 1 }
            return UInt64(bytes[index])
        }
        return readLonger(bytes, at: &index, end: end)
    }

    private static func readLonger(_ bytes: UnsafeRawBufferPointer, at index: inout Int, end: Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var position = index
        while position < end {
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                index = position
                return result
            }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}

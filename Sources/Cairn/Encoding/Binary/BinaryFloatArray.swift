/// `[Float]` in the binary format without going through `Codable`: the bytes the general coder
/// gives (an unkeyed container of `0x05` values), made and read directly, since an embedding of
/// hundreds of numbers is one value per row and the general coder's per-element calls were most
/// of the cost of loading or saving such a model.
///
/// ```swift
/// let bytes = BinaryFloatArray.encode([0.5, 1])   // 01 0A 0B 02 05 … 05 …
/// let floats = BinaryFloatArray.decode(bytes)      // [0.5, 1]
/// ```
enum BinaryFloatArray {
    /// The binary encoding of `floats`, version byte first.
    static func encode(_ floats: [Float]) -> [UInt8] {
        let count = UInt64(floats.count)
        var bytes: [UInt8] = [BinaryFormat.version, BinaryFormat.Tag.unkeyed.rawValue]
        bytes.reserveCapacity(22 + floats.count * 5)
        Varint.append(UInt64(Varint.encodedLength(count) + floats.count * 5), to: &bytes)
        Varint.append(count, to: &bytes)
        for float in floats {
            bytes.append(BinaryFormat.Tag.float32.rawValue)
            let bits = float.bitPattern
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        }
        return bytes
    }

    /// The floats `bytes` encode, or `nil` when they are not exactly an unkeyed container of
    /// `Float`s (the general decoder then reads them, or says why it cannot).
    static func decode(_ bytes: [UInt8]) -> [Float]? {
        guard bytes.count >= 4, bytes[0] == BinaryFormat.version, bytes[1] == BinaryFormat.Tag.unkeyed.rawValue
        else { return nil }
        var position = 2
        guard let length = Varint.read(bytes, at: &position, end: bytes.count), length == bytes.count - position,
            let count = Varint.read(bytes, at: &position, end: bytes.count),
            count.multipliedReportingOverflow(by: 5) == (UInt64(bytes.count - position), false)
        else { return nil }
        let start = position
        return bytes.withUnsafeBytes { raw -> [Float]? in
            var floats = [Float]()
            floats.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                let offset = start + index * 5
                guard raw[offset] == BinaryFormat.Tag.float32.rawValue else { return nil }
                floats.append(
                    Float(
                        bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self))
                    ))
            }
            return floats
        }
    }
}

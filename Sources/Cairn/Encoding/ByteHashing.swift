/// Hashing and comparing short runs of bytes (group keys, terms) where they lie: a seeded
/// multiply-and-fold hash, eight bytes at a time, and an equality test eight bytes at a time.
/// The seed is chosen at random by each table that hashes, so bytes a store or a text holds
/// cannot be chosen to collide.
///
/// ```swift
/// let seed = UInt64.random(in: .min ... .max)
/// let hash = ByteHashing.hash(bytes, seed: seed)
/// if ByteHashing.equal(bytes, other) { … }
/// ```
enum ByteHashing {
    /// A seeded hash of the bytes.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var state = seed ^ UInt64(truncatingIfNeeded: bytes.count)
        var offset = 0
        while bytes.count - offset >= 8 {
            state = mix(state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        // The last bytes: the buffer's last eight (overlapping the words above) when it has
        // eight, otherwise one at a time.
        var tail: UInt64 = 0
        if offset < bytes.count && bytes.count >= 8 {
            tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
        }
        return mix(state ^ tail ^ 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: 0xA076_1D64_78BD_642F)
        return product.high ^ product.low
    }

    /// Whether two buffers of one length hold equal bytes, compared eight at a time (the keys
    /// and terms compared are short: a call to `memcmp` would cost more).
    @inline(__always)
    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        let count = left.count
        guard count >= 8 else { return (0..<count).allSatisfy { left[$0] == right[$0] } }
        var offset = 0
        while count - offset >= 8 {
            let word = left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            guard word == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        // The last eight bytes, overlapping the words compared above.
        return offset == count
            || left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}

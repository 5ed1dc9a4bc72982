// IEEE-754 values are keyed by the usual bit transform: a positive value gets its sign bit set,
// a negative one has every bit inverted, so the unsigned big-endian bytes order like the values.
// -0.0 is stored as +0.0 (they are equal) and every NaN as the one quiet NaN, whose transformed
// bits sort after +infinity, so a key never depends on which NaN or zero the caller had.

extension Double: KeyComponent {
    /// Appends the transformed bits, big-endian: 8 bytes.
    ///
    /// `-0.0` is keyed as `+0.0`, and every NaN as `Double.nan`, which sorts after `+infinity`.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (1.0 as Double).appendKey(to: &key)   // BF F0 00 00 00 00 00 00
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        let bits = Double.canonicalBits(self)
        key.appendBigEndian(bits & Double.signMask != 0 ? ~bits : bits | Double.signMask)
    }

    /// Reads a transformed `Double`.
    ///
    /// ```swift
    /// let value = try Double.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: ``StorageError`` when the key ends early or holds `-0.0` or a NaN other than
    ///   the canonical one, which this encoding never writes.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Double {
        let stored = try reader.readBigEndian(UInt64.self)
        let bits = stored & signMask != 0 ? stored ^ signMask : ~stored
        guard bits == canonicalBits(Double(bitPattern: bits)) else {
            throw StorageError.damagedKey("A Double in the key is a non-canonical zero or NaN.")
        }
        return Double(bitPattern: bits)
    }

    private static let signMask: UInt64 = 1 << 63

    static func canonicalBits(_ value: Double) -> UInt64 {
        if value.isNaN { return Double.nan.bitPattern }
        if value == 0 { return 0 }
        return value.bitPattern
    }
}

extension Float: KeyComponent {
    /// Appends the transformed bits, big-endian: 4 bytes.
    ///
    /// `-0.0` is keyed as `+0.0`, and every NaN as `Float.nan`, which sorts after `+infinity`.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (1.0 as Float).appendKey(to: &key)   // BF 80 00 00
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        let bits = Float.canonicalBits(self)
        key.appendBigEndian(bits & Float.signMask != 0 ? ~bits : bits | Float.signMask)
    }

    /// Reads a transformed `Float`.
    ///
    /// ```swift
    /// let value = try Float.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: ``StorageError`` when the key ends early or holds `-0.0` or a non-canonical NaN.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Float {
        let stored = try reader.readBigEndian(UInt32.self)
        let bits = stored & signMask != 0 ? stored ^ signMask : ~stored
        guard bits == canonicalBits(Float(bitPattern: bits)) else {
            throw StorageError.damagedKey("A Float in the key is a non-canonical zero or NaN.")
        }
        return Float(bitPattern: bits)
    }

    private static let signMask: UInt32 = 1 << 31

    static func canonicalBits(_ value: Float) -> UInt32 {
        if value.isNaN { return Float.nan.bitPattern }
        if value == 0 { return 0 }
        return value.bitPattern
    }
}

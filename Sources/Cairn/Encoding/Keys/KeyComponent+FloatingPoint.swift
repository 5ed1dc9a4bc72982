// IEEE-754 values are keyed by the usual bit transform: a positive value gets its sign bit set,
// a negative one has every bit inverted, so the unsigned big-endian bytes order like the values.
// -0.0 is stored as +0.0 (they are equal) and every NaN as the one quiet NaN, whose transformed
// bits sort after +infinity, so a key never depends on which NaN or zero the caller had.

/// A binary floating-point type keyed by its bit pattern: `Float` (4 bytes) and `Double` (8 bytes).
package protocol KeyedFloatingPoint: BinaryFloatingPoint, KeyComponent {
    associatedtype BitPattern: FixedWidthInteger & UnsignedInteger
    var bitPattern: BitPattern { get }
    init(bitPattern: BitPattern)
}

extension KeyedFloatingPoint {
    /// Appends the transformed bits, big-endian: 4 bytes for a `Float`, 8 for a `Double`.
    ///
    /// `-0.0` is keyed as `+0.0`, and every NaN as `nan`, which sorts after `+infinity`.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (1.0 as Double).appendKey(to: &key)   // BF F0 00 00 00 00 00 00
    /// (1.0 as Float).appendKey(to: &key)    // BF 80 00 00
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        let bits = Self.canonicalBits(self)
        key.appendBigEndian(bits & Self.signMask != 0 ? ~bits : bits | Self.signMask)
    }

    /// Reads a transformed value.
    ///
    /// ```swift
    /// let value = try Double.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the key ends early or holds `-0.0` or a NaN other than
    ///   the canonical one, which this encoding never writes.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Self {
        let stored = try reader.readBigEndian(BitPattern.self)
        let bits = stored & signMask != 0 ? stored ^ signMask : ~stored
        guard bits == canonicalBits(Self(bitPattern: bits)) else {
            throw StorageError.damagedKey("A \(Self.self) in the key is a non-canonical zero or NaN.")
        }
        return Self(bitPattern: bits)
    }

    private static var signMask: BitPattern { 1 << (BitPattern.bitWidth - 1) }

    /// The bits a value is keyed by: those of `+0.0` for either zero, those of `nan` for every NaN.
    static func canonicalBits(_ value: Self) -> BitPattern {
        if value.isNaN { return Self.nan.bitPattern }
        if value == 0 { return 0 }
        return value.bitPattern
    }
}

extension Double: KeyedFloatingPoint {}

extension Float: KeyedFloatingPoint {}

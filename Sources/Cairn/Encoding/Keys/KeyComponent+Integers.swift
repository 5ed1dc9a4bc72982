// Integers are keyed big-endian at their own width; signed ones with the sign bit flipped, so
// negative values (sign bit 1 → 0) sort before positive ones and two's complement does the rest.

extension KeyComponent where Self: FixedWidthInteger & UnsignedInteger {
    /// Appends the value big-endian at its own width.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (0x0102 as UInt16).appendKey(to: &key)   // 01 02
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendBigEndian(self)
    }

    /// Reads a big-endian value of this width.
    ///
    /// ```swift
    /// let value = try UInt16.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the key ends early.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Self {
        try reader.readBigEndian(Self.self)
    }
}

extension KeyComponent where Self: FixedWidthInteger & SignedInteger {
    /// Appends the value big-endian at its own width with the sign bit flipped.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (-1 as Int16).appendKey(to: &key)   // 7F FF
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendBigEndian(Magnitude(truncatingIfNeeded: self) ^ Self.signBit)
    }

    /// Reads a sign-flipped big-endian value of this width.
    ///
    /// ```swift
    /// let value = try Int16.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the key ends early.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Self {
        Self(truncatingIfNeeded: try reader.readBigEndian(Magnitude.self) ^ signBit)
    }

    private static var signBit: Magnitude { 1 << (Magnitude.bitWidth - 1) }
}

extension UInt8: KeyComponent {}
extension UInt16: KeyComponent {}
extension UInt32: KeyComponent {}
extension UInt64: KeyComponent {}
extension Int8: KeyComponent {}
extension Int16: KeyComponent {}
extension Int32: KeyComponent {}
extension Int64: KeyComponent {}

// Int and UInt are keyed as 64-bit values on every platform, so a store written on a 64-bit
// machine reads the same on a 32-bit one (watchOS arm64_32).
extension Int: KeyComponent {
    /// Appends the value as a sign-flipped big-endian 64-bit integer, on every platform.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (1 as Int).appendKey(to: &key)   // 80 00 00 00 00 00 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        Int64(self).appendKey(to: &key)
    }

    /// Reads a 64-bit signed key component as an `Int`.
    ///
    /// ```swift
    /// let value = try Int.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the key ends early, or `.unsupportedValue` when the value
    ///   does not fit this platform's `Int`.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Int {
        let wide = try Int64.readKey(from: &reader)
        guard let value = Int(exactly: wide) else { throw StorageError.doesNotFit(wide, in: Int.self) }
        return value
    }
}

extension UInt: KeyComponent {
    /// Appends the value as a big-endian 64-bit integer, on every platform.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (1 as UInt).appendKey(to: &key)   // 00 00 00 00 00 00 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        UInt64(self).appendKey(to: &key)
    }

    /// Reads a 64-bit unsigned key component as a `UInt`.
    ///
    /// ```swift
    /// let value = try UInt.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the key ends early, or `.unsupportedValue` when the value
    ///   does not fit this platform's `UInt`.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> UInt {
        let wide = try UInt64.readKey(from: &reader)
        guard let value = UInt(exactly: wide) else { throw StorageError.doesNotFit(wide, in: UInt.self) }
        return value
    }
}

extension Bool: KeyComponent {
    /// Appends `0x00` for `false` and `0x01` for `true`.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// true.appendKey(to: &key)   // 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendRawByte(self ? 0x01 : 0x00)
    }

    /// Reads a `Bool` byte.
    ///
    /// ```swift
    /// let flag = try Bool.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value.
    /// - Throws: `StorageError` when the byte is missing or is neither `0x00` nor `0x01`.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Bool {
        switch try reader.readRawByte() {
        case 0x00: return false
        case 0x01: return true
        case let byte:
            throw StorageError.damagedKey("A Bool in the key has the invalid byte 0x\(String(byte, radix: 16)).")
        }
    }
}

extension KeyBuilder {
    mutating func appendBigEndian<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) {
        var shift = Value.bitWidth - 8
        while shift >= 0 {
            appendRawByte(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }
}

extension StorageError {
    static func doesNotFit(_ value: some BinaryInteger, in type: Any.Type) -> StorageError {
        StorageError.unsupported(
            "The stored value \(value) does not fit in \(type) on this platform.",
            remedy: "Declare the property as Int64 or UInt64 to read it here."
        )
    }
}

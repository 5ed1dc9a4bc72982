extension Optional: KeyComponent where Wrapped: KeyComponent {
    /// `nil` equals itself; a value as its type says.
    ///
    /// ```swift
    /// Optional(Double.nan).equalsItself()   // false
    /// ```
    package func equalsItself() -> Bool { self.map { $0.equalsItself() } ?? true }

    /// Appends a presence byte, `0x00` for `nil` and `0x01` followed by the wrapped value.
    ///
    /// `nil` therefore sorts before every value.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// Optional<Int8>.none.appendKey(to: &key)   // 00
    /// Optional<Int8>(1).appendKey(to: &key)     // 01 81
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        switch self {
        case .none:
            key.appendRawByte(0x00)
        case .some(let wrapped):
            key.appendRawByte(0x01)
            wrapped.appendKey(to: &key)
        }
    }

    /// Reads a presence byte and, when present, the wrapped value.
    ///
    /// ```swift
    /// let middleName = try String?.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value or `nil`.
    /// - Throws: `StorageError` when the presence byte is neither `0x00` nor `0x01`, or the
    ///   wrapped value cannot be read.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Wrapped? {
        switch try reader.readRawByte() {
        case 0x00: return nil
        case 0x01: return try Wrapped.readKey(from: &reader)
        case let byte:
            throw StorageError.damagedKey(
                "An optional in the key has the invalid presence byte 0x\(String(byte, radix: 16)).")
        }
    }
}

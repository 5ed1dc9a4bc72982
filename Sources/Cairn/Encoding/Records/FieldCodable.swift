/// A value that a record stores directly as one tagged field, without the binary Codable coder.
///
/// Every attribute type SwiftData stores natively conforms: `Bool`, the fixed-width integers,
/// `Float`, `Double`, `Decimal`, `String`, `Date`, `Data`, `UUID` and `URL`. Other `Codable`
/// values go through ``BinaryEncoder``, and `RawRepresentable` enums through their raw value;
/// ``RecordWriter`` and ``RecordReader`` pick the right path by overload. The byte layout of
/// every conformance is in `Docs/Design.md`, section "Values".
///
/// Refining `Codable` makes the `FieldCodable` overloads of ``RecordWriter/write(_:tag:)-(Value)``
/// more specific than the Codable ones, so a native type never takes the slower path.
///
/// ```swift
/// struct Celsius: FieldCodable {
///     var degrees: Double
///     static var wireType: WireType { .fixed64 }
///     func encodeField(into payload: inout FieldPayloadWriter) {
///         payload.writeFixed64(degrees.bitPattern)
///     }
///     init(fieldPayload: FieldPayload) throws(StorageError) {
///         degrees = try Double(fieldPayload: fieldPayload)
///     }
/// }
/// ```
package protocol FieldCodable: Codable {
    /// The wire type of every payload this type writes.
    ///
    /// ```swift
    /// assert(String.wireType == .lengthDelimited)
    /// ```
    static var wireType: WireType { get }

    /// Writes this value's payload (no header, no length) in the layout of ``wireType``.
    ///
    /// ```swift
    /// func encodeField(into payload: inout FieldPayloadWriter) {
    ///     payload.writeVarint(UInt64(rawCount))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built, positioned after the field header.
    func encodeField(into payload: inout FieldPayloadWriter)

    /// Decodes a value from a payload that a ``RecordReader`` found.
    ///
    /// ```swift
    /// let value = try Int64(fieldPayload: .varint(4))   // 2 (zigzag)
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` when the payload has another wire
    ///   type or a value out of this type's range (the property's type changed), or
    ///   `.damagedRecord` when the bytes are no valid encoding of this type.
    init(fieldPayload: FieldPayload) throws(StorageError)
}

extension FieldPayload {
    func mismatch(_ type: Any.Type) -> StorageError {
        StorageError.unsupported(
            "A field stored with wire type \(wireType) cannot be read as \(type).",
            remedy: "The property's type changed; migrate the stored values, or give the new property a new tag."
        )
    }
}

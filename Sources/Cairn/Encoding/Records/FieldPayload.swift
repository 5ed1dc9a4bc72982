/// One field's payload as a ``RecordReader`` found it, ready for a ``FieldCodable`` type to decode.
///
/// A length-delimited payload is a slice of the record's bytes: reading it copies nothing.
///
/// ```swift
/// switch reader.payload(tag: 3) {
/// case .varint(let raw)?: print("varint", raw)
/// case .bytes(let bytes)?: print(bytes.count, "bytes")
/// default: break
/// }
/// ```
package enum FieldPayload: Sendable, Hashable {
    /// A varint payload.
    ///
    /// ```swift
    /// if case .varint(let raw) = payload { print(raw) }
    /// ```
    case varint(UInt64)
    /// A four-byte payload.
    ///
    /// ```swift
    /// if case .fixed32(let bits) = payload { print(Float(bitPattern: bits)) }
    /// ```
    case fixed32(UInt32)
    /// An eight-byte payload.
    ///
    /// ```swift
    /// if case .fixed64(let bits) = payload { print(Double(bitPattern: bits)) }
    /// ```
    case fixed64(UInt64)
    /// A length-delimited payload, without its length.
    ///
    /// ```swift
    /// if case .bytes(let bytes) = payload { print(bytes.count) }
    /// ```
    case bytes(ArraySlice<UInt8>)

    /// The wire type this payload was stored with.
    ///
    /// ```swift
    /// assert(FieldPayload.varint(1).wireType == .varint)
    /// ```
    package var wireType: WireType {
        switch self {
        case .varint: .varint
        case .fixed32: .fixed32
        case .fixed64: .fixed64
        case .bytes: .lengthDelimited
        }
    }
}

/// Where a ``FieldCodable`` value writes its payload inside a record being built.
///
/// ``RecordWriter`` writes the field header before and, for `.lengthDelimited`, the length
/// after the fact, so a conforming type writes only the payload itself, straight into the
/// record's buffer (no temporary arrays).
///
/// ```swift
/// extension Celsius: FieldCodable {
///     static var wireType: WireType { .fixed64 }
///     func encodeField(into payload: inout FieldPayloadWriter) {
///         payload.writeFixed64(degrees.bitPattern)
///     }
///     init(fieldPayload: FieldPayload) throws(StorageError) { … }
/// }
/// ```
package struct FieldPayloadWriter: Sendable {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        // Nothing to reserve for an empty placeholder (`RecordWriter.empty`, made twice per
        // record a save encodes): reserving none still went through the array's regrowth.
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    /// A writer that appends to `bytes`.
    init(appendingTo bytes: consuming [UInt8]) {
        self.bytes = bytes
    }

    /// Writes a varint payload; for wire type `.varint`.
    ///
    /// ```swift
    /// payload.writeVarint(300)   // AC 02
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value.
    package mutating func writeVarint(_ value: UInt64) {
        Varint.append(value, to: &bytes)
    }

    /// Writes four bytes little-endian; for wire type `.fixed32`.
    ///
    /// ```swift
    /// payload.writeFixed32(Float(1).bitPattern)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value.
    package mutating func writeFixed32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Writes eight bytes little-endian; for wire type `.fixed64`.
    ///
    /// ```swift
    /// payload.writeFixed64(Double(1).bitPattern)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value.
    package mutating func writeFixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Appends bytes to a `.lengthDelimited` payload; call it as often as needed.
    ///
    /// ```swift
    /// payload.writeBytes("Ada".utf8)
    /// ```
    ///
    /// - Parameters:
    ///   - raw: The bytes to append.
    package mutating func writeBytes(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }
}

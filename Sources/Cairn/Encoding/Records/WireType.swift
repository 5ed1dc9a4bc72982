/// How a record field's payload is laid out, so a reader can skip a field it does not know.
///
/// The numbers are those of Protocol Buffers. A record field header is the varint
/// `tag << 3 | wireType`. A reader that meets any other wire type treats the record as damaged:
/// a new wire type needs a new record format byte.
///
/// ```swift
/// assert(Int64.wireType == .varint)
/// assert(String.wireType == .lengthDelimited)
/// ```
package enum WireType: UInt8, Sendable, Hashable, CaseIterable {
    /// A LEB128 varint of at most 10 bytes (integers, `Bool`).
    ///
    /// ```swift
    /// assert(WireType.varint.rawValue == 0)
    /// ```
    case varint = 0
    /// Eight bytes, little-endian (`Double`, `Date`).
    ///
    /// ```swift
    /// assert(WireType.fixed64.rawValue == 1)
    /// ```
    case fixed64 = 1
    /// A varint byte count followed by that many bytes (`String`, `Data`, Codable values, …).
    ///
    /// ```swift
    /// assert(WireType.lengthDelimited.rawValue == 2)
    /// ```
    case lengthDelimited = 2
    /// Four bytes, little-endian (`Float`).
    ///
    /// ```swift
    /// assert(WireType.fixed32.rawValue == 5)
    /// ```
    case fixed32 = 5
}

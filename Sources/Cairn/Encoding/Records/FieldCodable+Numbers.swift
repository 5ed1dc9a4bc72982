// Integers are varints (signed ones zigzag-mapped, so small negative numbers stay short) and are
// read back with a range check, so widening a property (Int16 → Int64) needs no migration.

extension FieldCodable where Self: FixedWidthInteger & SignedInteger {
    /// Signed integers are zigzag varints.
    ///
    /// ```swift
    /// assert(Int32.wireType == .varint)
    /// ```
    package static var wireType: WireType { .varint }

    /// Writes the zigzag-mapped value as a varint.
    ///
    /// ```swift
    /// (-1 as Int32).encodeField(into: &payload)   // 01
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeVarint(Varint.zigzag(Int64(self)))
    }

    /// Reads a zigzag varint and checks that it fits.
    ///
    /// ```swift
    /// let value = try Int32(fieldPayload: .varint(1))   // -1
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type or a value
    ///   out of range.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .varint(let raw) = fieldPayload else { throw fieldPayload.mismatch(Self.self) }
        let wide = Varint.unzigzag(raw)
        guard let value = Self(exactly: wide) else { throw StorageError.doesNotFit(wide, in: Self.self) }
        self = value
    }
}

extension FieldCodable where Self: FixedWidthInteger & UnsignedInteger {
    /// Unsigned integers are plain varints.
    ///
    /// ```swift
    /// assert(UInt8.wireType == .varint)
    /// ```
    package static var wireType: WireType { .varint }

    /// Writes the value as a varint.
    ///
    /// ```swift
    /// (300 as UInt16).encodeField(into: &payload)   // AC 02
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeVarint(UInt64(self))
    }

    /// Reads a varint and checks that it fits.
    ///
    /// ```swift
    /// let value = try UInt16(fieldPayload: .varint(300))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type or a value
    ///   out of range.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .varint(let raw) = fieldPayload else { throw fieldPayload.mismatch(Self.self) }
        guard let value = Self(exactly: raw) else { throw StorageError.doesNotFit(raw, in: Self.self) }
        self = value
    }
}

extension Int: FieldCodable {}
extension Int8: FieldCodable {}
extension Int16: FieldCodable {}
extension Int32: FieldCodable {}
extension Int64: FieldCodable {}
extension UInt: FieldCodable {}
extension UInt8: FieldCodable {}
extension UInt16: FieldCodable {}
extension UInt32: FieldCodable {}
extension UInt64: FieldCodable {}

extension Bool: FieldCodable {
    /// `Bool` is a varint, 0 or 1.
    ///
    /// ```swift
    /// assert(Bool.wireType == .varint)
    /// ```
    package static var wireType: WireType { .varint }

    /// Writes 0 or 1.
    ///
    /// ```swift
    /// true.encodeField(into: &payload)   // 01
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeVarint(self ? 1 : 0)
    }

    /// Reads 0 or 1.
    ///
    /// ```swift
    /// let flag = try Bool(fieldPayload: .varint(1))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` for another wire type or a value other than 0 and 1.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        switch fieldPayload {
        case .varint(0): self = false
        case .varint(1): self = true
        case .varint(let raw): throw StorageError.damagedRecord("A Bool field holds \(raw) instead of 0 or 1.")
        default: throw fieldPayload.mismatch(Bool.self)
        }
    }
}

extension Double: FieldCodable {
    /// `Double` is its IEEE-754 bits, little-endian.
    ///
    /// ```swift
    /// assert(Double.wireType == .fixed64)
    /// ```
    package static var wireType: WireType { .fixed64 }

    /// Writes the bit pattern; every NaN payload and the sign of zero are kept.
    ///
    /// ```swift
    /// (1.5 as Double).encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeFixed64(bitPattern)
    }

    /// Reads a `Double`, or widens a stored `Float` (the property was widened).
    ///
    /// ```swift
    /// let value = try Double(fieldPayload: .fixed64(1.5.bitPattern))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        switch fieldPayload {
        case .fixed64(let bits): self = Double(bitPattern: bits)
        case .fixed32(let bits): self = Double(Float(bitPattern: bits))
        default: throw fieldPayload.mismatch(Double.self)
        }
    }
}

extension Float: FieldCodable {
    /// `Float` is its IEEE-754 bits, little-endian.
    ///
    /// ```swift
    /// assert(Float.wireType == .fixed32)
    /// ```
    package static var wireType: WireType { .fixed32 }

    /// Writes the bit pattern.
    ///
    /// ```swift
    /// (1.5 as Float).encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeFixed32(bitPattern)
    }

    /// Reads a `Float`.
    ///
    /// ```swift
    /// let value = try Float(fieldPayload: .fixed32(Float(1.5).bitPattern))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .fixed32(let bits) = fieldPayload else { throw fieldPayload.mismatch(Float.self) }
        self = Float(bitPattern: bits)
    }
}

import CairnStorage
import Foundation

/// A stored number as an aggregate adds it up: an integer in the widest integer of its
/// signedness, a floating-point number as a `Double`, a `Decimal` as itself.
///
/// ```swift
/// try Int32.number(of: .varint(Varint.zigzag(-7)))   // .signed(-7)
/// ```
enum StoredNumber {
    case signed(Int64)
    case unsigned(UInt64)
    case real(Double)
    case decimal(Decimal)
}

extension NativeValue {
    /// No number: strings, dates, data and the like.
    static func number(of field: FieldPayload) throws(StorageError) -> StoredNumber? { nil }

    @inline(__always)
    static func number(ofScalar scalar: UInt64, wireType: WireType) throws(StorageError) -> StoredNumber? {
        try number(of: FieldPayload(scalar: scalar, wireType: wireType))
    }
}

extension FieldPayload {
    /// The payload of a scalar field (a length-delimited one reads as no bytes).
    @inline(__always)
    init(scalar: UInt64, wireType: WireType) {
        switch wireType {
        case .varint: self = .varint(scalar)
        case .fixed32: self = .fixed32(UInt32(truncatingIfNeeded: scalar))
        case .fixed64: self = .fixed64(scalar)
        case .lengthDelimited: self = .bytes([])
        }
    }
}

extension NativeValue where Self: FixedWidthInteger {
    /// An integer, in `Int64` or `UInt64`.
    @inline(__always)
    static func number(of field: FieldPayload) throws(StorageError) -> StoredNumber? {
        let value = try Self(fieldPayload: field)
        return isSigned ? .signed(Int64(truncatingIfNeeded: value)) : .unsigned(UInt64(truncatingIfNeeded: value))
    }
}

extension NativeValue where Self: BinaryFloatingPoint {
    /// A floating-point number, as a `Double`.
    @inline(__always)
    static func number(of field: FieldPayload) throws(StorageError) -> StoredNumber? {
        .real(Double(try Self(fieldPayload: field)))
    }
}

extension Decimal {
    /// A `Decimal`, as itself.
    static func number(of field: FieldPayload) throws(StorageError) -> StoredNumber? {
        .decimal(try Decimal(fieldPayload: field))
    }
}

extension NativeValue {
    /// Moves past a key component of this type: no number.
    static func number(ofKey reader: inout KeyReader) throws(StorageError) -> StoredNumber? {
        try skipKey(in: &reader)
        return nil
    }
}

extension NativeValue where Self: FixedWidthInteger {
    /// A key component of an integer type, in `Int64` or `UInt64`.
    @inline(__always)
    static func number(ofKey reader: inout KeyReader) throws(StorageError) -> StoredNumber? {
        let value = try readKey(from: &reader)
        return isSigned ? .signed(Int64(truncatingIfNeeded: value)) : .unsigned(UInt64(truncatingIfNeeded: value))
    }
}

extension NativeValue where Self: BinaryFloatingPoint {
    /// A key component of a floating-point type, as a `Double`.
    @inline(__always)
    static func number(ofKey reader: inout KeyReader) throws(StorageError) -> StoredNumber? {
        .real(Double(try readKey(from: &reader)))
    }
}

extension Decimal {
    /// A key component of `Decimal`, as itself.
    static func number(ofKey reader: inout KeyReader) throws(StorageError) -> StoredNumber? {
        .decimal(try readKey(from: &reader))
    }
}

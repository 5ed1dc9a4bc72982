import Foundation

// Decimal is stored exactly as sign, exponent and integer significand, using only public API:
// its underscored storage fields are internal in swift-foundation on Linux, and going through a
// string would depend on formatting. The significand (at most 2^128 − 1) is stored as a
// little-endian unsigned integer of as many bytes as it needs.

extension Decimal: FieldCodable {
    /// `Decimal` is a flag byte, a zigzag-varint exponent and a little-endian significand.
    ///
    /// ```swift
    /// assert(Decimal.wireType == .lengthDelimited)
    /// ```
    package static var wireType: WireType { .lengthDelimited }

    /// Writes the value exactly: `-123.456` is flags `0x01`, exponent `-3`, significand `123456`.
    ///
    /// ```swift
    /// Decimal(string: "-123.456")!.encodeField(into: &payload)   // 01 05 40 E2 01
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        if isNaN {
            payload.writeBytes(CollectionOfOne(Decimal.nanFlag))
            return
        }
        payload.writeBytes(CollectionOfOne(sign == .minus ? Decimal.negativeFlag : 0))
        payload.writeVarint(Varint.zigzag(Int64(exponent)))
        // The significand's description is its exact integer digits; convert them to base 256.
        var magnitude: [UInt8] = []
        magnitude.reserveCapacity(16)
        for digit in significand.description.utf8 where digit >= 0x30 && digit <= 0x39 {
            var carry = UInt16(digit - 0x30)
            for index in magnitude.indices {
                let product = UInt16(magnitude[index]) * 10 + carry
                magnitude[index] = UInt8(truncatingIfNeeded: product)
                carry = product >> 8
            }
            if carry > 0 { magnitude.append(UInt8(carry)) }
        }
        payload.writeBytes(magnitude)
    }

    /// Reads an exactly stored `Decimal`.
    ///
    /// ```swift
    /// let price = try Decimal(fieldPayload: reader.payload(tag: 5)!)
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` for another wire type, or `.damagedRecord` for bytes that are
    ///   no valid encoding (unknown flags, exponent or significand out of `Decimal`'s range).
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .bytes(let raw) = fieldPayload else { throw fieldPayload.mismatch(Decimal.self) }
        guard let flags = raw.first else { throw StorageError.damagedRecord("A Decimal field is empty.") }
        if flags == Decimal.nanFlag, raw.count == 1 {
            self = .nan
            return
        }
        guard flags & ~Decimal.negativeFlag == 0 else {
            throw StorageError.damagedRecord("A Decimal field has the unknown flags 0x\(String(flags, radix: 16)).")
        }
        let bytes = Array(raw)
        var position = 1
        guard let rawExponent = Varint.read(bytes, at: &position, end: bytes.count) else {
            throw StorageError.damagedRecord("A Decimal field's exponent is cut off.")
        }
        let exponent = Varint.unzigzag(rawExponent)
        let magnitude = bytes[position...]
        guard (-128...127).contains(exponent), magnitude.count <= 16, magnitude.last != 0 else {
            throw StorageError.damagedRecord("A Decimal field's exponent or significand is out of range.")
        }
        var significand = Decimal(0)
        for byte in magnitude.reversed() {
            significand = significand * 256 + Decimal(byte)
        }
        if flags == Decimal.negativeFlag && significand.isZero {
            throw StorageError.damagedRecord("A Decimal field holds a negative zero, which Decimal cannot represent.")
        }
        self = Decimal(
            sign: flags == Decimal.negativeFlag ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }

    private static let negativeFlag: UInt8 = 0x01
    private static let nanFlag: UInt8 = 0x02
}

import Foundation

// A Decimal is keyed by its normalized scientific form, so that equal values (1.5 and 1.50) have
// one key and byte order is numeric order:
//
//   NaN        00
//   negative   01, then the bitwise complement of the positive layout below
//   zero       02
//   positive   03, the adjusted exponent + 0x8000 (u16, big-endian), the significand's decimal
//              digits as ASCII without trailing zeros, 00
//
// The value is 0.d₁d₂…dₙ × 10^adjusted with d₁ ≠ 0, so a larger adjusted exponent is a larger
// magnitude, and with equal exponents the digit strings compare as the fractions do (a digit
// string that is a prefix of another is the smaller, as its 00 terminator is below every digit).
// Complementing a negative value's bytes reverses that order; its terminator becomes FF, above
// every complemented digit, so the encoding stays self-delimiting.

extension Decimal: KeyComponent {
    /// Appends the order-preserving encoding described above.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// Decimal(string: "1.50")!.appendKey(to: &key)   // 03 80 01 31 35 00
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        if isNaN { return key.appendRawByte(0x00) }
        let (digits, adjusted) = normalizedDigits()
        if digits.isEmpty { return key.appendRawByte(0x02) }
        let exponent = UInt16(truncatingIfNeeded: adjusted + 0x8000)
        var body = [UInt8(exponent >> 8), UInt8(truncatingIfNeeded: exponent)] + digits
        body.append(0x00)
        if sign == .minus {
            key.appendRawByte(0x01)
            key.appendRawBytes(body.lazy.map { ~$0 })
        } else {
            key.appendRawByte(0x03)
            key.appendRawBytes(body)
        }
    }

    /// Reads a value keyed by ``appendKey(to:)``.
    ///
    /// ```swift
    /// let price = try Decimal.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value, normalized (`1.50` reads as `1.5`, which is `==` to it).
    /// - Throws: `StorageError` `.damagedRecord` when the bytes are not such an encoding.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Decimal {
        let kind = try reader.readRawByte()
        switch kind {
        case 0x00: return .nan
        case 0x02: return 0
        case 0x01, 0x03: break
        default: throw StorageError.damagedKey("A Decimal in the key has the unknown kind 0x\(String(kind, radix: 16)).")
        }
        let flip: (UInt8) -> UInt8 = kind == 0x01 ? { ~$0 } : { $0 }
        let exponent = try reader.readRawBytes(count: 2).map(flip)
        let adjusted = (Int(exponent[0]) << 8 | Int(exponent[1])) - 0x8000
        var digits: [UInt8] = []
        while true {
            let byte = flip(try reader.readRawByte())
            if byte == 0x00 { break }
            guard (0x30...0x39).contains(byte), digits.count < 40 else {
                throw StorageError.damagedKey("A Decimal in the key has a byte that is not a digit.")
            }
            digits.append(byte)
        }
        guard let first = digits.first, first != 0x30, digits.last != 0x30,
            let significand = Decimal(string: String(decoding: digits, as: UTF8.self)),
            (-128...127).contains(adjusted - digits.count)
        else {
            throw StorageError.damagedKey("A Decimal in the key is not in normalized form.")
        }
        return Decimal(
            sign: kind == 0x01 ? .minus : .plus, exponent: adjusted - digits.count, significand: significand)
    }

    /// Whether the value is `==` to itself: `false` for NaN, whose key matches every NaN's.
    ///
    /// ```swift
    /// Decimal.nan.equalsItself()   // false
    /// ```
    package func equalsItself() -> Bool { !isNaN }

    /// The significand's decimal digits without leading or trailing zeros (ASCII; empty for
    /// zero) and the exponent of the value written as 0.digits × 10^exponent.
    private func normalizedDigits() -> (digits: [UInt8], adjusted: Int) {
        var digits = Array(significand.description.utf8.lazy.filter { (0x30...0x39).contains($0) })
        if let first = digits.firstIndex(where: { $0 != 0x30 }) {
            digits.removeFirst(first)
        } else {
            return ([], 0)
        }
        var exponent = self.exponent
        while digits.last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        return (digits, exponent + digits.count)
    }
}

import Foundation
import PropertyBased

@testable import Cairn

/// ProfileGenerators shared by the Encoding property tests.
enum EncodingGenerators {
    static let specialDoubles: [Double] = [
        0, -0.0, 1, -1, .infinity, -.infinity, .nan, -.nan, Double(bitPattern: 0x7FF0_0000_0000_0001),
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
    ]

    static let double = Gen<UInt64>.value(in: 0...UInt64.max).map { bits -> Double in
        switch bits % 4 {
        case 0: specialDoubles[Int((bits >> 2) % UInt64(specialDoubles.count))]
        case 1: Double(Int64(truncatingIfNeeded: bits >> 2) % 1000) / 8
        default: Double(bitPattern: bits)
        }
    }

    static let float = Gen<UInt64>.value(in: 0...UInt64.max).map { bits -> Float in
        switch bits % 4 {
        case 0: Float(specialDoubles[Int((bits >> 2) % UInt64(specialDoubles.count))])
        case 1: Float(Int64(truncatingIfNeeded: bits >> 2) % 1000) / 8
        default: Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 7))
        }
    }

    static let finiteDouble = Gen<Int64>.value(in: -1_000_000...1_000_000).map { Double($0) / 64 }

    /// Mostly small code points (so shared prefixes and NULs are common), sometimes any scalar
    /// that NFC keeps (see ``isNFCStable(_:)``).
    static let character = Gen<UInt32>.value(in: 0...0x10FFFF).map { raw -> Character in
        let value = raw % 3 == 0 ? raw : raw % 4
        guard let scalar = Unicode.Scalar(value), isNFCStable(scalar) else { return "\u{FFFD}" }
        return Character(scalar)
    }

    /// Whether NFC leaves the scalar alone when it stands by itself. Those it replaces (singletons
    /// such as U+212A KELVIN SIGN, and composition exclusions) are where Swift's own `<` on strings
    /// disagrees with its `==` ("\u{212A}" == "K", yet "Ka" < "\u{212A}"), so no key order can
    /// match both; they are tested for equality only.
    static func isNFCStable(_ scalar: Unicode.Scalar) -> Bool {
        String(scalar)._nfcCodeUnits == Array(String(scalar).utf8)
    }

    static let string = character.string(of: 0...8)

    /// Scalars whose normalization matters: combining marks (whose canonical order NFC fixes),
    /// precomposed letters, Hangul jamo and syllables. All NFC-stable (``isNFCStable(_:)``).
    static let normalizationScalars: [Unicode.Scalar] = [
        "a", "e", "K", "k", "o", "Z", "\u{0}", "\u{E9}", "\u{E4}", "\u{301}", "\u{308}", "\u{323}", "\u{3A9}",
        "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "\u{1E0B}", "\u{1E0D}", "\u{307}",
    ]

    /// Strings from ``normalizationScalars``: many are canonically equivalent to others.
    static let unicodeString = Gen<Int>.value(in: 0...(normalizationScalars.count - 1)).array(of: 0...6).map {
        var string = ""
        string.unicodeScalars.append(contentsOf: $0.map { normalizationScalars[$0] })
        return string
    }

    static let bytes = Gen<UInt8>.value(in: 0...3).array(of: 0...6)

    static let data = bytes.map { Data($0) }

    static let uuid = Gen<UInt8>.value(in: 0...255).array(of: 16).map { UUID(uuidBytes: $0) }

    /// Decimals with shared digits and exponents often (equal values written differently:
    /// 1.5 and 1.50), sometimes any significand and exponent Decimal holds, and NaN.
    static let decimal = zip(Gen.int64(), Gen.int8(in: -128...127), Gen.uint8(in: 0...9)).map {
        significand, exponent, shape -> Decimal in
        switch shape {
        case 0: return .nan
        case 1, 2, 3:
            let small = Decimal(significand.magnitude % 50) * (shape == 3 ? 10 : 1)
            return Decimal(sign: significand < 0 ? .minus : .plus, exponent: Int(exponent % 3), significand: small)
        default:
            return Decimal(
                sign: significand < 0 ? .minus : .plus, exponent: Int(exponent), significand: Decimal(significand.magnitude))
        }
    }

    static let url = Gen<UInt8>.value(in: 0...5).array(of: 0...4).map { parts in
        URL(string: "https://h/" + parts.map { ["a", "b", "%20", "~", "ab", "-"][Int($0)] }.joined())!
    }

    static let date = double.map { Date(timeIntervalSinceReferenceDate: $0) }
}

extension UUID {
    var byteArray: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }
}

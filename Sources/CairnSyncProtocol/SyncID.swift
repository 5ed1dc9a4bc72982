import Foundation

/// The global identifier of a synced row: the same on every replica and on the server, where a
/// `PersistentIdentifier` names a row of one store only. A version 7 UUID: its first 48 bits are
/// the milliseconds of its making, so identifiers sort by creation time, and the rest is random.
///
/// ```swift
/// var generator = SystemRandomNumberGenerator()
/// let id = SyncID.make(milliseconds: 1_764_000_000_000, using: &generator)
/// print(id)   // "019ab5a4-8c00-7…"
/// SyncID("019ab5a4-8c00-7a3e-9f10-2b3c4d5e6f70") != nil   // true
/// ```
public struct SyncID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The first eight bytes, big-endian.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

    /// The identifier with these halves.
    ///
    /// ```swift
    /// let id = SyncID(high: 1, low: 2)
    /// ```
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new identifier made at `milliseconds` since 1970, with random bits from `generator`.
    ///
    /// ```swift
    /// var generator = SystemRandomNumberGenerator()
    /// let id = SyncID.make(milliseconds: 0, using: &generator)
    /// ```
    public static func make(milliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> SyncID {
        let randomA = generator.next() & 0x0FFF
        let randomB = generator.next() & 0x3FFF_FFFF_FFFF_FFFF
        return SyncID(
            high: (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | randomA, low: 0x8000_0000_0000_0000 | randomB)
    }

    /// A new identifier made now.
    ///
    /// ```swift
    /// let id = SyncID.make()
    /// ```
    public static func make() -> SyncID {
        var generator = SystemRandomNumberGenerator()
        return make(milliseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1000)), using: &generator)
    }

    /// The identifier in its canonical form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, or `nil` when
    /// `text` is not one.
    ///
    /// ```swift
    /// SyncID("not an id")   // nil
    /// ```
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: String(text)) else { return nil }
        self.init(bytes: withUnsafeBytes(of: uuid.uuid) { Array($0) })!
    }

    /// The identifier held by 16 bytes, or `nil` for any other count.
    ///
    /// ```swift
    /// SyncID(bytes: [UInt8](repeating: 0, count: 16))   // the zero identifier
    /// ```
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (position, byte) in bytes.enumerated() {
            if position < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// The 16 bytes, big-endian: their order is the identifiers' order.
    ///
    /// ```swift
    /// SyncID(high: 0, low: 1).bytes.last   // 1
    /// ```
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The identifier in lowercase canonical form.
    public var description: String {
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return parts.joined(separator: "-")
    }

    public static func < (lhs: SyncID, rhs: SyncID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

extension SyncID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = SyncID(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text.prefix(40))' is not a sync identifier (a UUID)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Bits that follow from a seed (SplitMix64): the same seed gives the same sequence everywhere,
/// for choices every replica must make alike and for faults a test replays.
///
/// ```swift
/// var bits = SplitMix64(seed: 42)
/// let id = SyncID.make(milliseconds: 0, using: &bits)
/// ```
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

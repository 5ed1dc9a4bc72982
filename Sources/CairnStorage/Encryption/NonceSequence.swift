/// The nonces one write transaction seals values with: a random 96-bit start, then a counter
/// folded into its last 32 bits.
///
/// AES-GCM must never use a nonce twice under one key. Within a sequence the counter makes every
/// nonce distinct; two sequences (two transactions, in any process) collide only if their random
/// starts agree in the first 64 bits, which for *s* transactions of up to *k* values each happens
/// with probability about s²·k / 2⁹⁶: the same bound as a fresh random nonce per value, for one
/// draw of randomness per transaction instead of one per value. A sequence that has used all
/// 2³² counter values starts again from a new random start.
///
/// ```swift
/// var nonces = NonceSequence()
/// cipher.seal(value, additionalData: aad, nonces: &nonces, into: buffer)
/// ```
package struct NonceSequence: Sendable {
    private var high: UInt64
    private var low: UInt32
    private var counter: UInt32 = 0

    /// A sequence from a new random start (the system's cryptographic generator).
    ///
    /// ```swift
    /// var nonces = NonceSequence()
    /// ```
    package init() {
        var generator = SystemRandomNumberGenerator()
        high = generator.next()
        low = generator.next()
    }

    /// A sequence whose first nonce is `first` (12 bytes): for checking known answers, never for
    /// sealing values (a fixed start repeats).
    ///
    /// ```swift
    /// var nonces = NonceSequence(first: Array(repeating: 0, count: 12))
    /// ```
    package init(first: [UInt8]) {
        precondition(first.count == 12, "NonceSequence(first:): a nonce is 12 bytes")
        high = first[0..<8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        low = first[8..<12].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Writes the next 12-byte nonce at `destination`.
    ///
    /// ```swift
    /// nonces.next(into: pointer)
    /// ```
    package mutating func next(into destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: high.littleEndian, toByteOffset: 0, as: UInt64.self)
        destination.storeBytes(of: (low ^ counter).littleEndian, toByteOffset: 8, as: UInt32.self)
        counter &+= 1
        if counter == 0 { self = NonceSequence() }
    }
}

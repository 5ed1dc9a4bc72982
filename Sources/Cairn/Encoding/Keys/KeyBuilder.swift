import CairnStorage

/// Builds an order-preserving key for an index or unique table, one component at a time.
///
/// Append components in order; the finished bytes compare (byte by byte, shorter first) exactly
/// as the tuple of values compares lexicographically. ``finalized()`` also applies LMDB's key
/// size limit: a key of ``maximumLength`` bytes or more is cut to its first ``hashedPrefixLength``
/// bytes followed by the 32-byte SHA-256 of the whole encoding.
///
/// ## LMDB limitations
/// LMDB keys hold 1 to 511 bytes. Keys that had to be cut keep their order only for their first
/// 479 bytes; beyond that they are ordered by hash, and two different values could in principle
/// share a cut key. Callers must therefore re-check the record of every index hit (Cairn always
/// does), and range scans are exact only when their bounds are shorter than 479 bytes.
///
/// ```swift
/// var key = KeyBuilder()
/// key.append(42 as Int64)
/// key.append("x")
/// let bytes = key.finalized()        // [0x80, 0, 0, 0, 0, 0, 0, 0x2A, 0x78, 0x00, 0x01]
/// ```
package struct KeyBuilder: Sendable, Hashable {
    /// The largest key LMDB stores, in bytes; a key this long or longer is cut and hashed.
    ///
    /// Every finalized key of exactly this length is a cut key, so a reader can tell the two
    /// kinds apart (see ``KeyReader/isHashed``).
    ///
    /// ```swift
    /// assert(KeyBuilder.maximumLength == 511)
    /// ```
    package static let maximumLength = 511

    /// How many leading bytes of a cut key are kept before the hash.
    ///
    /// ```swift
    /// assert(KeyBuilder.hashedPrefixLength + 32 == KeyBuilder.maximumLength)
    /// ```
    package static let hashedPrefixLength = 479

    /// The encoding so far, not yet cut to LMDB's limit.
    ///
    /// Use it to build a prefix for a range scan; store ``finalized()`` instead.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// key.append("Ada")
    /// let start = key.bytes
    /// ```
    package private(set) var bytes: [UInt8]

    /// Creates an empty key.
    ///
    /// ```swift
    /// var key = KeyBuilder(capacity: 32)
    /// ```
    ///
    /// - Parameters:
    ///   - capacity: The number of bytes to reserve up front.
    package init(capacity: Int = 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the key, keeping its storage, to build the next one in it.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// for name in names { key.removeAll(); key.append(name); use(key.finalized()) }
    /// ```
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends one component.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// key.append(true)
    /// key.append(Optional<String>.none)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to append.
    package mutating func append<Value: KeyComponent>(_ value: Value) {
        value.appendKey(to: &self)
    }

    /// Appends several components in order, as one call.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// key.append("Ada", 1815 as Int, UUID())
    /// ```
    ///
    /// - Parameters:
    ///   - values: The values to append, first component first.
    package mutating func append<each Value: KeyComponent>(_ values: repeat each Value) {
        repeat (each values).appendKey(to: &self)
    }

    /// Appends the escaped NFC bytes of a string *without* its terminator.
    ///
    /// The result is a prefix of the key of every string that starts with `prefix` at a
    /// character boundary (NFC composes within a character), so
    /// `bytes ..< KeyBuilder.successor(of: bytes)` covers exactly the keys whose next component
    /// starts with `prefix` — the range a `hasPrefix` predicate scans.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// key.appendStringPrefix("Ad")
    /// let range = key.bytes ..< KeyBuilder.successor(of: key.bytes)!
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: The start of the strings to match.
    package mutating func appendStringPrefix(_ prefix: String) {
        appendEscaped(prefix.nfcBytes)
    }

    /// Appends one component through `append`, then, given a `hasher`, puts the component's
    /// keyed hash in its place: how a sensitive attribute is keyed in an encrypted store
    /// (`Docs/Encryption.md`). The hash has a fixed length, so the key stays self-delimiting; it
    /// keeps equality, not order. Returns what `append` returned.
    ///
    /// ```swift
    /// key.appendComponent(hashedWith: hasher) { email.appendKey(to: &$0) }   // 16 bytes for the email
    /// ```
    @inline(__always)
    package mutating func appendComponent<R, E: Error>(
        hashedWith hasher: KeyHasher?, _ append: (inout KeyBuilder) throws(E) -> R
    ) throws(E) -> R {
        let start = bytes.count
        let result = try append(&self)
        if let hasher { bytes.replaceSubrange(start..., with: hasher.digest(of: bytes[start...])) }
        return result
    }

    /// Appends bytes exactly as given; for ``KeyComponent`` conformances.
    ///
    /// The caller is responsible for keeping the encoding self-delimiting.
    ///
    /// ```swift
    /// key.appendRawBytes([0x01, 0x02])
    /// ```
    ///
    /// - Parameters:
    ///   - raw: The bytes to append.
    package mutating func appendRawBytes(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends one byte exactly as given; for ``KeyComponent`` conformances.
    ///
    /// ```swift
    /// key.appendRawByte(0x01)
    /// ```
    ///
    /// - Parameters:
    ///   - byte: The byte to append.
    package mutating func appendRawByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends a byte string escaped and terminated, the way `String` and `Data` are keyed.
    ///
    /// Each `0x00` becomes `0x00 0xFF`, and the string ends with `0x00 0x01`. Ending with a byte
    /// smaller than the escape makes a string sort before every longer string it prefixes.
    ///
    /// ```swift
    /// key.appendEscapedAndTerminated([0x61, 0x00])   // 61 00 FF 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - raw: The unescaped bytes.
    package mutating func appendEscapedAndTerminated(_ raw: some Sequence<UInt8>) {
        appendEscaped(raw)
        bytes.append(0x00)
        bytes.append(0x01)
    }

    private mutating func appendEscaped(_ raw: some Sequence<UInt8>) {
        for byte in raw {
            bytes.append(byte)
            if byte == 0x00 { bytes.append(0xFF) }
        }
    }

    /// Returns the key to store: the encoding, cut and hashed when it is too long for LMDB.
    ///
    /// A key shorter than ``maximumLength`` is returned as it is. A longer one (or one of exactly
    /// that length) becomes its first ``hashedPrefixLength`` bytes followed by the SHA-256 of the
    /// complete encoding, exactly ``maximumLength`` bytes in all. An empty key is returned empty;
    /// Storage refuses empty keys, so append at least one component.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// key.append(String(repeating: "a", count: 1000))
    /// assert(key.finalized().count == 511)
    /// ```
    ///
    /// - Returns: Between 0 and 511 bytes.
    package func finalized() -> [UInt8] {
        KeyBuilder.finalize(bytes)
    }

    /// Applies the long-key rule of ``finalized()`` to an encoding built elsewhere.
    ///
    /// ```swift
    /// let stored = KeyBuilder.finalize(prefix + suffix)
    /// ```
    ///
    /// - Parameters:
    ///   - encoding: A complete key encoding.
    /// - Returns: `encoding` itself, or its cut and hashed form.
    package static func finalize(_ encoding: [UInt8]) -> [UInt8] {
        guard encoding.count >= maximumLength else { return encoding }
        var cut = Array(encoding[0..<hashedPrefixLength])
        cut.reserveCapacity(maximumLength)
        cut.append(contentsOf: SHA256.hash(encoding))
        return cut
    }

    /// Returns the smallest byte string greater than every key that starts with `prefix`.
    ///
    /// Use it as the exclusive upper bound of a prefix scan: `prefix ..< successor`. Trailing
    /// `0xFF` bytes are dropped and the last remaining byte is incremented.
    ///
    /// ```swift
    /// KeyBuilder.successor(of: [0x61, 0xFF])   // [0x62]
    /// KeyBuilder.successor(of: [0xFF, 0xFF])   // nil: scan to the end of the table
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: The common start of the keys to cover.
    /// - Returns: The exclusive upper bound, or `nil` when no key is greater than every key with
    ///   this prefix (the prefix is empty or all `0xFF`), in which case scan to the end.
    package static func successor(of prefix: [UInt8]) -> [UInt8]? {
        KeyRange.successor(of: prefix)
    }

    /// Builds and finalizes a key from its components in one call.
    ///
    /// ```swift
    /// let key = KeyBuilder.key("Ada", 1815 as Int)
    /// ```
    ///
    /// - Parameters:
    ///   - values: The components, first component first.
    /// - Returns: The finalized key, as ``finalized()`` returns it.
    package static func key<each Value: KeyComponent>(_ values: repeat each Value) -> [UInt8] {
        var builder = KeyBuilder()
        repeat (each values).appendKey(to: &builder)
        return builder.finalized()
    }
}

/// A value that can be part of an order-preserving index or unique key.
///
/// A conforming type writes itself into a ``KeyBuilder`` so that comparing two encodings byte by
/// byte (`memcmp`, a shorter prefix first, which is LMDB's default key order) gives the same
/// answer as comparing the values. Every encoding is *self-delimiting* and *prefix-free*: no
/// value's encoding is a proper prefix of another value's encoding of the same type. That is what
/// lets components be concatenated into tuples that compare lexicographically, component by
/// component. The byte layout of each type is recorded in `Docs/Design.md`, section "Keys".
///
/// `Bool`, every fixed-width integer, `Float`, `Double`, `String`, `Data`, `UUID`, `Date` and
/// `Optional` of those conform. A `RawRepresentable` type whose raw value conforms gets both
/// requirements for free: declare the conformance and it is keyed by its raw value.
///
/// ```swift
/// enum Priority: Int, KeyComponent { case low, high }
///
/// var key = KeyBuilder()
/// key.append(Priority.high)
/// key.append("Ada")
/// let bytes = key.finalized()
///
/// var reader = KeyReader(bytes)
/// let (priority, name) = try reader.decode(Priority.self, String.self)
/// ```
package protocol KeyComponent {
    /// Appends this value's order-preserving encoding to a key.
    ///
    /// The encoding must be self-delimiting, and byte order of encodings must equal value order.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// (42 as Int64).appendKey(to: &key)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    func appendKey(to key: inout KeyBuilder)

    /// Reads one value of this type from the current position of a key and advances past it.
    ///
    /// ```swift
    /// var reader = KeyReader(bytes)
    /// let id = try Int64.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The decoded value.
    /// - Throws: `StorageError` with code `.damagedRecord` when the bytes are not a valid
    ///   encoding of this type, or `.unsupportedValue` when the component lies in the part of a
    ///   long key that was replaced by a hash.
    static func readKey(from reader: inout KeyReader) throws(StorageError) -> Self

    /// Moves past one value of this type at the current position of a key, checking it as
    /// ``readKey(from:)`` does but making no value where that is cheaper (a string's bytes).
    ///
    /// ```swift
    /// try String.skipKey(in: &reader)
    /// ```
    /// - Throws: What ``readKey(from:)`` throws.
    static func skipKey(in reader: inout KeyReader) throws(StorageError)

    /// Whether the value is `==` to itself, as a key lookup assumes: `false` for a NaN (or a
    /// date or optional holding one), which `==` matches to nothing while its key matches every
    /// NaN's.
    ///
    /// ```swift
    /// Double.nan.equalsItself()   // false
    /// (42 as Int64).equalsItself()   // true
    /// ```
    func equalsItself() -> Bool
}

extension KeyComponent where Self: Equatable {
    /// `self == self`.
    ///
    /// ```swift
    /// Date(timeIntervalSinceReferenceDate: .nan).equalsItself()   // false
    /// ```
    package func equalsItself() -> Bool { self == self }
}

extension KeyComponent where Self: RawRepresentable, RawValue: KeyComponent {
    /// Appends the raw value's encoding, so the key orders by raw value.
    ///
    /// ```swift
    /// enum Size: String, KeyComponent { case small, large }
    /// var key = KeyBuilder()
    /// Size.large.appendKey(to: &key)   // same bytes as "large"
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        rawValue.appendKey(to: &key)
    }

    /// Reads a raw value and converts it to this type.
    ///
    /// ```swift
    /// let size = try Size.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The value whose raw value was stored.
    /// - Throws: `StorageError` with code `.unsupportedValue` when the stored raw value names
    ///   no case of this type, plus anything reading the raw value throws.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Self {
        let raw = try RawValue.readKey(from: &reader)
        guard let value = Self(rawValue: raw) else {
            throw StorageError.unsupported(
                "The key holds the raw value \(raw), which is not a case of \(Self.self).",
                remedy: "Add the case back, or migrate the stored values before removing a case."
            )
        }
        return value
    }
}

extension KeyComponent {
    /// Reads the value and lets it go.
    package static func skipKey(in reader: inout KeyReader) throws(StorageError) { _ = try readKey(from: &reader) }
}

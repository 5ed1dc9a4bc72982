import Crypto
import Foundation

/// Keyed hashes for the index and unique keys of an encrypted store's sensitive attributes:
/// where such a key would hold a value in clear, it holds the value's keyed hash instead, which
/// finds equal values (the same value always hashes the same) and tells nothing else (neither
/// the value nor its order) to someone without the store's data key.
///
/// HMAC-SHA256, cut to its first ``digestLength`` bytes, under a key derived from the data key
/// with HKDF-SHA256 (`cairn index keys`): a new data key (a rotation) means new hashes, so a
/// rewrite leaves hashed tables out and the store fills them again (`Docs/Encryption.md`).
/// Immutable, so any number of threads use one hasher.
///
/// ```swift
/// let hasher = KeyHasher(dataKey: dataKey)
/// let key = hasher.digest(of: encodedValue)   // 16 bytes
/// ```
package struct KeyHasher: Sendable {
    /// The bytes of a hash in a key: 128 bits, so that two different values of one constraint
    /// share a hash with a chance of about n² / 2¹²⁹ for n values.
    package static let digestLength = 16

    private let key: SymmetricKey

    /// A hasher whose key is derived from the 32-byte `dataKey`.
    ///
    /// ```swift
    /// let hasher = KeyHasher(dataKey: dataKey)
    /// ```
    package init(dataKey: [UInt8]) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: dataKey), info: Array("cairn index keys".utf8), outputByteCount: 32)
    }

    /// The keyed hash of `bytes` (one key component's encoding), ``digestLength`` bytes.
    ///
    /// ```swift
    /// let hash = hasher.digest(of: [0x41, 0x00, 0x01])
    /// ```
    package func digest(of bytes: some DataProtocol) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key).prefix(Self.digestLength))
    }
}

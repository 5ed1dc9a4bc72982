import Crypto
import _CryptoExtras
import Foundation

/// The secret an encrypted store is opened with: a 32-byte key or a passphrase.
///
/// A store's values are sealed with a random data key that never leaves the store unwrapped;
/// this secret wraps it (see ``KeyEnvelope``). A passphrase is stretched into a key with scrypt,
/// whose salt and cost the store keeps. The description never shows the secret.
///
/// ```swift
/// var configuration = StorageConfiguration(path: path)
/// configuration.encryption = .key(keyBytes)   // 32 bytes from the keychain
/// ```
package enum StoreEncryption: Sendable, Hashable, CustomStringConvertible {
    /// A 32-byte key, used as it is.
    case key([UInt8])
    /// A passphrase, stretched with scrypt.
    case passphrase(String)

    /// The kind of secret, never the secret.
    ///
    /// ```swift
    /// print(StoreEncryption.passphrase("…"))   // "passphrase"
    /// ```
    package var description: String {
        switch self {
        case .key: "key"
        case .passphrase: "passphrase"
        }
    }
}

extension StoreEncryption {
    /// The 32-byte key this secret gives: a key as it is, or a passphrase stretched with scrypt
    /// (cost N = 2^`logN`, block size `r`, parallelism `p`) under `salt`.
    ///
    /// ```swift
    /// let key = try secret.stretched(salt: salt, logN: 15, r: 8, p: 1)
    /// ```
    /// - Throws: ``StorageError`` `.invalidSize` for a key that is not 32 bytes or an empty
    ///   passphrase; `.other` when scrypt cannot allocate its memory.
    package func stretched(salt: [UInt8], logN: UInt8, r: UInt8, p: UInt8) throws(StorageError) -> [UInt8] {
        switch self {
        case .key(let key):
            guard key.count == 32 else {
                throw StorageError(
                    code: .invalidSize,
                    message: "An encryption key is 32 bytes; this one is \(key.count). Use 32 random bytes "
                        + "(SymmetricKey(size: .bits256)), or a passphrase.")
            }
            return key
        case .passphrase(let passphrase):
            guard !passphrase.isEmpty else {
                throw StorageError(
                    code: .invalidSize, message: "An empty passphrase protects nothing. Choose a passphrase.")
            }
            do {
                let key = try KDF.Scrypt.deriveKey(
                    from: Array(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << Int(logN),
                    blockSize: Int(r), parallelism: Int(p))
                return key.withUnsafeBytes { Array($0) }
            } catch {
                throw StorageError(
                    code: .other, message: "The passphrase could not be stretched into a key (scrypt failed). "
                        + "Check that the process may allocate \(((128 * Int(r)) << Int(logN)) >> 20) MiB.", cause: error)
            }
        }
    }

    /// A 32-byte key for `purpose`, derived from this secret alone, so the same wherever the
    /// secret is given: what the replicas of an end-to-end encrypted sync zone share, with no
    /// stored envelope to unwrap. A passphrase is first stretched with scrypt (N = 2¹⁵, r = 8,
    /// p = 1) salted with SHA-256 of `purpose`; the key is then expanded with HKDF-SHA256, with
    /// `purpose` as its info.
    ///
    /// ```swift
    /// let zoneKey = try secret.derivedKey(purpose: "cairn zone family")
    /// ```
    /// - Throws: ``StorageError`` as ``stretched(salt:logN:r:p:)`` does.
    package func derivedKey(purpose: String) throws(StorageError) -> [UInt8] {
        let cost = KeyEnvelope.passphraseCost
        let salt = Array(SHA256.hash(data: Array(purpose.utf8)))
        let stretched = try stretched(salt: salt, logN: cost.logN, r: cost.r, p: cost.p)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: stretched), info: Array(purpose.utf8), outputByteCount: 32)
        return key.withUnsafeBytes { Array($0) }
    }
}

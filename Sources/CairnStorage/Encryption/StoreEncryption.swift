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

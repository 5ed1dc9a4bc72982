import CairnStorage
import Foundation

/// Changing how a store is encrypted: its secret, its data key, or whether it is encrypted at all.
extension ModelContainer {
    /// Makes `encryption` the secret that opens this store, in place of the one it was opened
    /// with. The store's data key is wrapped again in one save; nothing else is rewritten, so
    /// it takes as long on a large store as on a small one (a passphrase costs its key
    /// derivation, about a tenth of a second). From then on only the new secret opens the store,
    /// here and in every process; containers that have it open keep working.
    ///
    /// ```swift
    /// try container.changeEncryptionKey(to: .passphrase(newPassphrase))
    /// ```
    /// - Parameters:
    ///   - encryption: The new key or passphrase.
    /// - Throws: `StorageError` `.notEncrypted` for a plaintext store (``encryptStore(at:with:)``
    ///   encrypts one), `.invalidSize` for a key that is not 32 bytes or an empty passphrase.
    public func changeEncryptionKey(to encryption: ModelConfiguration.Encryption) throws {
        try store.environment.changeSecret(to: encryption.secret)
    }

    /// Encrypts the plaintext store at `url` with `encryption`: every record, external value,
    /// history entry and sync state is rewritten sealed under a new random data key.
    ///
    /// The store is copied into a new file beside it and the copy replaces the data file in one
    /// step, so a crash or a full disk at any moment leaves the plaintext store or the encrypted
    /// one, whole. No container may have the store open, in this process or another.
    ///
    /// ```swift
    /// try ModelContainer.encryptStore(at: storeURL, with: .key(keyFromKeychain))
    /// let container = try ModelContainer(for: Book.self,
    ///     configurations: ModelConfiguration(url: storeURL, encryption: .key(keyFromKeychain)))
    /// ```
    /// - Parameters:
    ///   - url: The store's directory.
    ///   - encryption: The key or passphrase to encrypt it with.
    /// - Throws: `StorageError` `.encryptionKeyRequired` when it is already encrypted (rotate its
    ///   key instead), `.inUse` when it is open, `.notFound`, `.diskFull`.
    /// - Complexity: O(*n*) in the store's size.
    public static func encryptStore(at url: URL, with encryption: ModelConfiguration.Encryption) throws {
        try StoreRekeying.rewrite(storageConfiguration(url, nil), to: encryption.secret) {
            StoreLayout.isRebuiltByRewrite($0, encrypting: true)
        }
    }

    /// Decrypts the store at `url`, encrypted with `encryption`: every value is rewritten in
    /// plaintext, as ``encryptStore(at:with:)`` rewrites it, with the same guarantees.
    ///
    /// ```swift
    /// try ModelContainer.decryptStore(at: storeURL, with: .passphrase(passphrase))
    /// ```
    /// - Parameters:
    ///   - url: The store's directory.
    ///   - encryption: The key or passphrase it is encrypted with.
    /// - Throws: `StorageError` `.wrongEncryptionKey`, `.notEncrypted`, `.inUse`, `.notFound`.
    /// - Complexity: O(*n*) in the store's size.
    public static func decryptStore(at url: URL, with encryption: ModelConfiguration.Encryption) throws {
        try StoreRekeying.rewrite(storageConfiguration(url, encryption), to: nil) {
            StoreLayout.isRebuiltByRewrite($0, encrypting: false)
        }
    }

    /// Rotates the data key of the encrypted store at `url`: every value is rewritten sealed
    /// under a new random data key, wrapped by `newEncryption` (the same secret when `nil`), as
    /// ``encryptStore(at:with:)`` rewrites it, with the same guarantees. Changing only the secret
    /// is ``changeEncryptionKey(to:)``, which rewrites nothing.
    ///
    /// ```swift
    /// try ModelContainer.rotateDataKey(ofStoreAt: storeURL, with: .key(key))
    /// ```
    /// - Parameters:
    ///   - url: The store's directory.
    ///   - encryption: The key or passphrase it is encrypted with.
    ///   - newEncryption: The secret to wrap the new data key with; `encryption` when `nil`.
    /// - Throws: `StorageError` `.wrongEncryptionKey`, `.notEncrypted`, `.inUse`, `.notFound`.
    /// - Complexity: O(*n*) in the store's size.
    public static func rotateDataKey(
        ofStoreAt url: URL, with encryption: ModelConfiguration.Encryption,
        newEncryption: ModelConfiguration.Encryption? = nil
    ) throws {
        try StoreRekeying.rewrite(storageConfiguration(url, encryption), to: (newEncryption ?? encryption).secret) {
            StoreLayout.isRebuiltByRewrite($0, encrypting: false)
        }
    }

    private static func storageConfiguration(_ url: URL, _ encryption: ModelConfiguration.Encryption?)
        -> StorageConfiguration
    {
        var configuration = StorageConfiguration(path: url.standardizedFileURL.path)
        configuration.encryption = encryption?.secret
        configuration.sealedTables = StoreLayout.sealedTables
        return configuration
    }
}

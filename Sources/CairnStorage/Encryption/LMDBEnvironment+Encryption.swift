/// Changing the secret of an open encrypted store.
extension LMDBEnvironment {
    /// Whether the store's sealed tables are encrypted.
    ///
    /// ```swift
    /// if environment.isEncrypted { … }
    /// ```
    package var isEncrypted: Bool { state.cipher != nil }

    /// The hasher that an encrypted store's index and unique keys of sensitive attributes are
    /// made with, or `nil` for a plaintext store.
    ///
    /// ```swift
    /// let hash = environment.keyHasher?.digest(of: component)
    /// ```
    package var keyHasher: KeyHasher? { state.keyHasher }

    /// The secret that opens the store now: the one it was opened with, or the last one
    /// ``changeSecret(to:generation:)`` set. A copy of the store (a backup) opens with it.
    ///
    /// ```swift
    /// copyConfiguration.encryption = environment.secret
    /// ```
    package var secret: StoreEncryption? { state.secret }

    /// Wraps the store's data key with `secret` instead of the secret it was opened with, in one
    /// write: nothing else is rewritten, and from this commit on only `secret` opens the store.
    /// Processes that have it open keep working; they hold the data key, which is unchanged.
    ///
    /// ```swift
    /// try environment.changeSecret(to: .passphrase(newPassphrase))
    /// ```
    /// - Throws: ``StorageError`` `.notEncrypted` for a plaintext store (encrypt it with
    ///   ``StoreRekeying``), `.invalidSize` for a key that is not 32 bytes or an empty passphrase,
    ///   or what the write meets.
    /// - Parameters:
    ///   - secret: The new secret.
    ///   - generation: The data key's generation to record; the current one when `nil`.
    package func changeSecret(to secret: StoreEncryption, generation: UInt32? = nil) throws {
        guard let cipher = state.cipher else {
            throw StorageError(
                code: .notEncrypted,
                message: "This store is not encrypted, so it has no key to change. Encrypt it first "
                    + "(ModelContainer.encryptStore(at:with:)).",
                path: path)
        }
        let main = state.mainTable
        try write { txn in
            guard let stored = try txn.get(KeyEnvelope.storageKey, in: main) else {
                throw StorageError(
                    code: .damaged, message: "The store's encryption record is missing. Restore the store from a backup.",
                    path: path)
            }
            let current = try KeyEnvelope(decoding: stored, path: path)
            let rewrapped = try KeyEnvelope.make(
                dataKey: cipher.dataKey, secret: secret, generation: generation ?? current.generation)
            try txn.put(rewrapped.encoded(), for: KeyEnvelope.storageKey, in: main)
        }
        state.secret = secret
    }
}

extension LMDBEnvironment {
    /// Checks `secret` against this open store's envelope, for another opening of it in this
    /// process: the registry hands out the environment already open only to the secret that
    /// opens the store now (another process may have changed it since).
    ///
    /// - Throws: ``StorageError`` `.encryptionKeyRequired`, `.notEncrypted`,
    ///   `.wrongEncryptionKey`, `.damaged`.
    func checkSecret(_ secret: StoreEncryption?) throws {
        // Whether the store is encrypted cannot change while it is open here (a rewrite needs
        // it closed everywhere); only the secret can.
        guard isEncrypted, secret != nil else {
            _ = try EnvironmentState.dataKey(isEncrypted ? [] : nil, secret: secret, path: path)
            return
        }
        let main = state.mainTable
        let stored = try read { txn in try txn.get(KeyEnvelope.storageKey, in: main) }
        _ = try EnvironmentState.dataKey(stored, secret: secret, path: path)
    }

    /// The generation of the store's data key (1 for a store's first, one more at each
    /// rotation), or `nil` for a plaintext store.
    ///
    /// ```swift
    /// let generation = try environment.dataKeyGeneration()
    /// ```
    package func dataKeyGeneration() throws -> UInt32? {
        guard isEncrypted else { return nil }
        let main = state.mainTable
        guard let stored = try read({ txn in try txn.get(KeyEnvelope.storageKey, in: main) }) else { return nil }
        return try KeyEnvelope(decoding: stored, path: path).generation
    }
}

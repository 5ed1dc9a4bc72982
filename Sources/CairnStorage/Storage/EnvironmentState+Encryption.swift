internal import CLMDB
import Crypto

/// How an environment learns whether its store is encrypted and gets its data key: the key
/// envelope in LMDB's main table, opened with the configuration's secret.
extension EnvironmentState {
    /// The cipher for the store `environment` holds, checked against the secret `configuration`
    /// gives: `nil` for a plaintext store opened without one.
    ///
    /// - Throws: ``StorageError`` `.encryptionKeyRequired` (an encrypted store, no secret),
    ///   `.notEncrypted` (a plaintext store, a secret), `.wrongEncryptionKey`, or `.damaged`
    ///   for an envelope that cannot be read.
    static func unlock(
        _ environment: OpaquePointer, mainTable: Table, configuration: StorageConfiguration
    ) throws(StorageError) -> ValueCipher? {
        let stored = try storedEnvelope(environment, mainTable: mainTable, path: configuration.path)
        return try dataKey(stored, secret: configuration.encryption, path: configuration.path)
            .map { ValueCipher(dataKey: $0) }
    }

    /// Writes a new envelope for a random data key, wrapped by `secret`, into the new store
    /// `environment` (in the transaction that creates it).
    static func writeNewEnvelope(
        _ environment: OpaquePointer, secret: StoreEncryption, path: String
    ) throws(StorageError) {
        let dataKey = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let envelope = try KeyEnvelope.make(dataKey: dataKey, secret: secret, generation: 1)
        var pointer: OpaquePointer?
        var rc = mdb_txn_begin(environment, nil, 0, &pointer)
        guard rc == MDB_SUCCESS, let transaction = pointer else {
            throw LMDBError(rc).storageError(operation: "Writing the store's encryption record", path: path)
        }
        var main: MDB_dbi = 0
        rc = mdb_dbi_open(transaction, nil, 0, &main)
        if rc == MDB_SUCCESS {
            rc = withMDBValues(KeyEnvelope.storageKey, envelope.encoded()) { key, value in
                mdb_put(transaction, main, &key, &value, 0)
            }
        }
        guard rc == MDB_SUCCESS else {
            mdb_txn_abort(transaction)
            throw LMDBError(rc).storageError(operation: "Writing the store's encryption record", path: path)
        }
        rc = mdb_txn_commit(transaction)
        guard rc == MDB_SUCCESS else {
            throw LMDBError(rc).storageError(operation: "Writing the store's encryption record", path: path)
        }
    }

    /// The envelope's bytes in the newest snapshot, or `nil` for a plaintext store.
    private static func storedEnvelope(
        _ environment: OpaquePointer, mainTable: Table, path: String
    ) throws(StorageError) -> [UInt8]? {
        var pointer: OpaquePointer?
        let rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &pointer)
        guard rc == MDB_SUCCESS, let transaction = pointer else {
            throw LMDBError(rc).storageError(operation: "Reading the store's encryption record", path: path)
        }
        defer { mdb_txn_abort(transaction) }
        var data = MDB_val()
        let found = withMDBValue(KeyEnvelope.storageKey) { key in mdb_get(transaction, mainTable.handle, &key, &data) }
        guard found == MDB_SUCCESS else { return nil }
        return Array(bytes(of: data))
    }

    static func dataKey(
        _ stored: [UInt8]?, secret: StoreEncryption?, path: String
    ) throws(StorageError) -> [UInt8]? {
        switch (stored, secret) {
        case (nil, nil): return nil
        case (nil, .some):
            throw StorageError(
                code: .notEncrypted,
                message: "This store is not encrypted, and it was opened with an encryption key. Open it without "
                    + "one, or encrypt it first (ModelContainer.encryptStore(at:with:)); nothing was written.",
                path: path)
        case (.some, nil):
            throw StorageError(
                code: .encryptionKeyRequired,
                message: "This store is encrypted. Open it with its key or passphrase "
                    + "(ModelConfiguration(encryption:)); nothing was read.",
                path: path)
        case (.some(let stored), .some(let secret)):
            return try KeyEnvelope(decoding: stored, path: path).unwrap(with: secret, path: path)
        }
    }
}

extension StorageError {
    // One place builds the Encoding layer's errors so every message ends with a remedy.
    static func damagedRecord(_ what: String) -> StorageError {
        StorageError(
            code: .damagedRecord,
            message: "\(what) The stored bytes are damaged and were not used; "
                + "restore the store from a backup, or delete and re-save the affected object."
        )
    }

    static func damagedKey(_ what: String) -> StorageError {
        StorageError(
            code: .damagedRecord,
            message: "\(what) The key bytes are damaged or were not written by this key encoding; "
                + "rebuild the index (or restore the store from a backup)."
        )
    }

    static func unsupported(_ what: String, remedy: String) -> StorageError {
        StorageError(code: .unsupportedValue, message: "\(what) \(remedy)")
    }
}

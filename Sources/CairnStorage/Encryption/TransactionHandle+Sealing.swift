/// Sealing and opening the values of an encrypted store's sealed tables: every put, cursor move
/// and lookup of a ``Table/isSealed`` table passes its value through here, so no other code sees
/// ciphertext or makes it.
extension TransactionHandle {
    /// Calls `body` with the bytes to store for `value` under `key` in `table`: `value` itself
    /// unless the table is sealed, then its sealed form (valid inside `body`).
    @inline(__always)
    func storing<R>(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: Table,
        _ body: (UnsafeRawBufferPointer) throws(StorageError) -> R
    ) throws(StorageError) -> R {
        guard table.isSealed, let cipher else { return try body(value) }
        let scratch = sealingScratch()
        if scratch.nonces == nil { scratch.nonces = NonceSequence() }
        let additionalData = scratch.additionalData(for: table, key: key)
        let sealed = scratch.sealed.reserve(value.count + ValueCipher.overhead)
        cipher.seal(value, additionalData: additionalData, nonces: &scratch.nonces!, into: sealed)
        return try body(UnsafeRawBufferPointer(sealed))
    }

    /// The plaintext of `stored`, read under `key` from the sealed `table`, opened into `buffer`
    /// (valid until its next use).
    ///
    /// - Throws: ``StorageError`` `.damagedRecord` when it does not authenticate: a changed bit,
    ///   or a value moved from another key or table.
    func opening(
        _ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: Table, into buffer: ValueBuffer
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        guard let cipher, let size = ValueCipher.openedSize(of: stored) else {
            throw unauthentic(stored, key: key, in: table)
        }
        let additionalData = sealingScratch().additionalData(for: table, key: key)
        let plaintext = buffer.reserve(size)
        guard cipher.open(stored, additionalData: additionalData, into: plaintext) else {
            throw unauthentic(stored, key: key, in: table)
        }
        return UnsafeRawBufferPointer(plaintext)
    }

    /// A buffer for a lookup's plaintext that stays valid until the transaction ends.
    func lookupBuffer() -> ValueBuffer {
        let buffer = ValueBuffer()
        sealingScratch().lookups.append(buffer)
        return buffer
    }

    private func sealingScratch() -> SealingScratch {
        if let sealing { return sealing }
        let scratch = SealingScratch()
        sealing = scratch
        return scratch
    }

    private func unauthentic(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: Table)
        -> StorageError
    {
        let key = key.prefix(16).map { String($0, radix: 16) }.joined(separator: " ")
        return StorageError(
            code: .damagedRecord,
            message: "The encrypted value of \(stored.count) bytes stored under key [\(key)] in table '\(table)' does "
                + "not authenticate: it was changed on disk, or moved from another row or table. It was not used; "
                + "restore the store from a backup, or delete and re-save the affected object.",
            path: path)
    }
}

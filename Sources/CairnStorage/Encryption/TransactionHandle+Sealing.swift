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
        guard table.isSealed, let cipher = unretainedCipher else { return try body(value) }
        // (Makes the scratch, so `unretainedSealing` is set below.)
        let additionalData = self.additionalData(for: table, key: key)
        // Unretained, as for opening (see `unretainedCipher`).
        let sealed = unretainedSealing.unsafelyUnwrapped._withUnsafeGuaranteedRef { scratch in
            if scratch.nonces == nil { scratch.nonces = NonceSequence() }
            let sealed = scratch.sealed.reserve(value.count + ValueCipher.overhead)
            cipher._withUnsafeGuaranteedRef {
                $0.seal(value, additionalData: additionalData, nonces: &scratch.nonces!, into: sealed)
            }
            return sealed
        }
        return try body(UnsafeRawBufferPointer(sealed))
    }

    /// The plaintext of `stored`, read under `key` from the sealed `table`, opened into the
    /// start of `room` (which has room for it).
    ///
    /// - Throws: ``StorageError`` `.damagedRecord` when it does not authenticate: a changed bit,
    ///   or a value moved from another key or table.
    func opening(
        _ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: borrowing Table,
        into room: UnsafeMutableRawBufferPointer
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        guard let size = ValueCipher.openedSize(of: stored), size <= room.count, let cipher = unretainedCipher else {
            throw unauthentic(stored, key: key, in: table)
        }
        let additionalData = self.additionalData(for: table, key: key)
        // Unretained (see `unretainedCipher`): a retain and release of each cost more than the
        // rest of this function.
        let plaintext = UnsafeMutableRawBufferPointer(start: room.baseAddress, count: size)
        let opened = cipher._withUnsafeGuaranteedRef {
            $0.open(stored, additionalData: additionalData, into: plaintext)
        }
        guard opened else { throw unauthentic(stored, key: key, in: table) }
        return UnsafeRawBufferPointer(plaintext)
    }

    /// The same, into bytes that stay valid until the transaction ends: for a lookup, whose
    /// value the caller may hold while it looks up others.
    func openingForLookup(
        _ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: Table
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        guard let size = ValueCipher.openedSize(of: stored) else { throw unauthentic(stored, key: key, in: table) }
        return try opening(stored, key: key, in: table, into: allocateForLookup(size))
    }

    /// A copy of `plaintext` (opened into a cursor's buffer, valid until its next move) that
    /// stays valid until the transaction ends, for a lookup.
    func keepForLookup(_ plaintext: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let kept = allocateForLookup(plaintext.count)
        if plaintext.count > 0 { kept.copyMemory(from: plaintext) }
        return UnsafeRawBufferPointer(kept)
    }

    /// Room for a looked-up value until the transaction ends, from the scratch without retaining
    /// it once it exists (as `additionalData(for:key:)` does).
    @inline(__always)
    private func allocateForLookup(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if let known = unretainedSealing { return known._withUnsafeGuaranteedRef { $0.lookups.allocate(count) } }
        return sealingScratch().lookups.allocate(count)
    }

    /// The additional data of a value under `key` in `table` (`SealingScratch`), read without
    /// retaining the scratch but for a table's first value.
    @inline(__always)
    private func additionalData(for table: borrowing Table, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if let known = unretainedSealing, case let handle = table.handle,
            let additionalData = known._withUnsafeGuaranteedRef({ $0.additionalData(forHandle: handle, key: key) })
        {
            return additionalData
        }
        return sealingScratch().additionalData(for: table, key: key)
    }

    private func sealingScratch() -> SealingScratch {
        if let sealing { return sealing }
        let scratch = SealingScratch()
        sealing = scratch
        return scratch
    }

    private func unauthentic(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, in table: borrowing Table)
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

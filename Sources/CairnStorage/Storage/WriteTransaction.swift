internal import CLMDB

/// The one write transaction of the store, valid inside one ``LMDBEnvironment/write(_:)`` closure.
///
/// Everything it writes commits together when the closure returns, or not at all if it throws.
/// Its closure is synchronous, so it begins and commits on one thread with no suspension point in
/// between, as LMDB requires. Reads in it see its own writes.
///
/// ```swift
/// try environment.write { txn in
///     try txn.put(record, for: rowKey, in: authors)
///     try txn.delete(oldKey, in: nameIndex)
/// }
/// ```
package struct WriteTransaction: StorageTransaction, ~Copyable {
    /// The transaction's LMDB state.
    ///
    /// ```swift
    /// try environment.write { txn in _ = txn.handle }
    /// ```
    package let handle: TransactionHandle

    init(handle: TransactionHandle) { self.handle = handle }

    /// Stores `value` for `key`.
    ///
    /// ```swift
    /// let inserted = try txn.put(rowID, for: uniqueKey, in: uniques, options: .noOverwrite)
    /// ```
    /// - Parameters:
    ///   - value: The bytes to store; in a ``TableFlags/duplicateSort`` table one more value of the key.
    ///   - key: 1 to 511 bytes.
    ///   - table: The table.
    ///   - options: See ``PutOptions``.
    /// - Returns: `false` when an option stopped the put (``PutOptions/noOverwrite``,
    ///   ``PutOptions/noDuplicateData``, or an out-of-order ``PutOptions/append``), else `true`.
    /// - Throws: ``StorageError`` (`.invalidSize` for an empty or too-long key).
    /// - Complexity: O(log *n*); O(1) amortised with ``PutOptions/append``.
    @discardableResult
    package func put(
        _ value: [UInt8], for key: [UInt8], in table: Table, options: PutOptions = []
    ) throws(StorageError) -> Bool {
        let result = key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                Result { () throws(StorageError) -> Bool in try put(value, for: key, in: table, options: options) }
            }
        }
        return try result.get()
    }

    /// ``put(_:for:in:options:)`` for bytes that are not in arrays (a key built on the stack).
    ///
    /// ```swift
    /// try withUnsafeBytes(of: row.bigEndian) { key in try txn.put(record, for: key, in: authors) }
    /// ```
    @discardableResult
    package func put(
        _ value: UnsafeRawBufferPointer, for key: UnsafeRawBufferPointer, in table: Table, options: PutOptions = []
    ) throws(StorageError) -> Bool {
        let handle = handle
        handle.check(table)
        return try handle.storing(value, key: key, in: table) { (value) throws(StorageError) -> Bool in
            try withMDBValue(key) { (key) throws(StorageError) -> Bool in
                try withMDBValue(value) { (value) throws(StorageError) -> Bool in
                    try handle.checkUsable("Writing to table '\(table)'")
                    handle.markWriting()
                    let rc = mdb_put(handle.pointer, table.handle, &key, &value, options.rawValue)
                    // An option stopped the put; MDB_KEYEXIST does not poison the transaction.
                    if rc == MDB_KEYEXIST { return false }
                    _ = try handle.run("Writing to table '\(table)'", "mdb_put") { rc }
                    return true
                }
            }
        }
    }

    /// What ``rewrite(_:for:in:)`` found under the key and did.
    package enum Rewrite: Equatable {
        /// No value is stored under the key: nothing was written.
        case missing
        /// The stored value is exactly the new one: nothing was written.
        case unchanged
        /// The stored value was replaced.
        case written
    }

    /// Replaces the value stored under `key` with `value` unless it already is exactly that, in
    /// one search: the table's kept cursor finds the entry, the bytes are compared in place, and
    /// a different value is written at the cursor instead of looking the key up again. For a
    /// table without duplicate keys.
    ///
    /// ```swift
    /// if try txn.rewrite(record, for: rowKey, in: records) == .missing { … }   // the row is gone
    /// ```
    package func rewrite(_ value: [UInt8], for key: [UInt8], in table: Table) throws -> Rewrite {
        try value.withUnsafeBytes { value in try key.withUnsafeBytes { key in try rewrite(value, for: key, in: table) }
        }
    }

    /// The same for bytes held elsewhere: a record in a list of records, under a row key built on
    /// the stack.
    ///
    /// ```swift
    /// let rewrite = try EntryLayout.withRowKey(row) { key in
    ///     try records.withRecord(0) { try txn.rewrite($0, for: key, in: table) }
    /// }
    /// ```
    ///
    /// With `detectingUnchanged: false`, a sealed table's stored value is not opened to compare
    /// it (an encrypted store's record costs a decryption to read): the value is written, and
    /// the result is `.written` or `.missing`. For callers that wrote a changed model.
    package func rewrite(
        _ value: UnsafeRawBufferPointer, for key: UnsafeRawBufferPointer, in table: Table,
        detectingUnchanged: Bool = true
    ) throws -> Rewrite {
        precondition(!table.flags.contains(.duplicateSort), "WriteTransaction.rewrite: a table with duplicate keys")
        return try withCursor(on: table) { cursor in
            if !detectingUnchanged && table.isSealed {
                guard try cursor.seekToReplace(exactly: key) else { return .missing }
            } else {
                guard try cursor.seek(exactly: key) else { return .missing }
                if value.hasSameBytes(as: cursor.current.value) { return .unchanged }
            }
            try cursor.replaceCurrentValue(with: value, key: key)
            return .written
        }
    }

    /// Deletes `key` and all its values.
    ///
    /// ```swift
    /// try txn.delete(rowKey, in: authors)
    /// ```
    /// - Returns: `false` if the key was absent.
    /// - Complexity: O(log *n*) (plus the key's values in a duplicate table).
    @discardableResult
    package func delete(_ key: [UInt8], in table: Table) throws(StorageError) -> Bool {
        handle.check(table)
        return try withMDBValue(key) { (key) throws(StorageError) -> Bool in
            handle.markWriting()
            return try handle.run("Deleting from table '\(table)'", "mdb_del") {
                mdb_del(handle.pointer, table.handle, &key, nil)
            }
        }
    }

    /// Deletes one value of `key` in a ``TableFlags/duplicateSort`` table.
    ///
    /// ```swift
    /// try txn.delete(owner, value: target, in: edges)
    /// ```
    /// - Returns: `false` if the pair was absent.
    /// - Complexity: O(log *n*).
    @discardableResult
    package func delete(_ key: [UInt8], value: [UInt8], in table: Table) throws(StorageError) -> Bool {
        handle.check(table)
        return try withMDBValues(key, value) { (key, value) throws(StorageError) -> Bool in
            handle.markWriting()
            return try handle.run("Deleting from table '\(table)'", "mdb_del") {
                mdb_del(handle.pointer, table.handle, &key, &value)
            }
        }
    }

    /// Deletes every entry of `table`; the table itself stays.
    ///
    /// ```swift
    /// try txn.removeAll(from: scratch)
    /// ```
    /// - Complexity: O(*p*) in the table's pages.
    package func removeAll(from table: Table) throws(StorageError) {
        handle.check(table)
        handle.markWriting()
        _ = try handle.run("Emptying table '\(table)'", "mdb_drop") {
            mdb_drop(handle.pointer, table.handle, 0)
        }
    }
}

internal import CLMDB

/// Each commit's transaction id, stored inside the snapshot it belongs to.
///
/// LMDB chooses the meta page with the larger transaction id, and keeps the previous snapshot's
/// pages intact. So a damaged meta page that claims a larger id than it has, or names an older
/// copy of the main tree as its root, opens cleanly on an older state: the last commit is gone
/// without an error. To catch that, every write transaction that changes anything also stores
/// its own id (`mdb_txn_id`) under a reserved key of LMDB's main table, whose leaf page every
/// commit rewrites anyway. On open the stored id must equal the id of the snapshot LMDB chose.
///
/// The key starts with a zero byte, which no table name can contain. A compacted copy restarts
/// LMDB's ids at 1, so ids 0 and 1 are not checked; the next write sets the marker again.
enum CommitMarker {
    package static let key: [UInt8] = [0x00] + Array("cairn.commit".utf8)

    /// Stores the transaction's own id. Called just before commit.
    ///
    /// - Returns: `mdb_put`'s return code.
    static func write(in transaction: OpaquePointer, mainTable: Table) -> Int32 {
        let id = withUnsafeBytes(of: UInt64(truncatingIfNeeded: mdb_txn_id(transaction)).bigEndian) { Array($0) }
        return withMDBValues(key, id) { key, value in mdb_put(transaction, mainTable.handle, &key, &value, 0) }
    }

    /// Checks the newest snapshot's marker against its id.
    ///
    /// - Throws: ``StorageError`` `.damaged` when they differ.
    static func check(_ environment: OpaquePointer, mainTable: Table, path: String) throws(StorageError) {
        var pointer: OpaquePointer?
        let rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &pointer)
        guard rc == MDB_SUCCESS, let transaction = pointer else {
            throw LMDBError(rc).storageError(operation: "Checking the last commit", path: path)
        }
        defer { mdb_txn_abort(transaction) }
        let id = UInt64(truncatingIfNeeded: mdb_txn_id(transaction))
        guard id > 1 else { return }
        var data = MDB_val()
        let found = withMDBValue(key) { key in mdb_get(transaction, mainTable.handle, &key, &data) }
        guard found == MDB_SUCCESS, data.mv_size == 8 else { return }  // not written by Cairn
        let stored = UInt64(bigEndian: data.mv_data.loadUnaligned(as: UInt64.self))
        guard stored == id else {
            throw StorageError(
                code: .damaged,
                message: "The store cannot be opened: its newest meta page names transaction \(id), but the "
                    + "snapshot it leads to was committed as transaction \(stored). Either a meta page is damaged, "
                    + "and opening would silently go back to an older state (restore the store from a backup), or "
                    + "the store was last written by a program other than Cairn (open it with that program and "
                    + "export the data).",
                path: path)
        }
    }
}

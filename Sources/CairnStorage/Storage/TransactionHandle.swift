internal import CLMDB

/// The state behind one open LMDB transaction: its pointer and the first error that poisoned it.
///
/// LMDB marks a transaction as failed after errors such as `MDB_MAP_FULL`, and every later call
/// in it then reports `MDB_BAD_TXN`, hiding the real cause. So the first poisoning error is
/// remembered here, later calls throw it again without reaching LMDB, and the environment decides
/// after the closure whether to grow the map and retry or to abort.
///
/// Not `Sendable`: it lives inside one transaction closure on one thread. Read handles are pooled
/// by their environment and reused (reset and renewed) on whichever thread reads next, under the
/// pool's lock.
///
/// ```swift
/// try environment.read { txn in _ = txn.handle }   // only Storage looks inside
/// ```
package final class TransactionHandle {
    // A transaction is used by one thread at a time, and no access to its properties outlives a
    // call: they need no runtime exclusivity checks.
    @exclusivity(unchecked) var pointer: OpaquePointer
    @exclusivity(unchecked) var failure: LMDBError?
    /// Whether a write may have changed anything, so the commit marker must be written (see
    /// ``CommitMarker``). Set before each mutating call, not after its success: LMDB can dirty
    /// pages even when a put reports `MDB_KEYEXIST` (`MDB_NODUPDATA` on an existing pair), and
    /// such a transaction still commits a new snapshot.
    @exclusivity(unchecked) private(set) var hasWrites = false

    func markWriting() { hasWrites = true }

    /// For a pooled read transaction left open (parked, see `ReaderPool`):
    /// the id of the snapshot it holds; `nil` once it is reset.
    @exclusivity(unchecked) var parkedSnapshot: UInt64?
    /// When it was parked, in monotonic nanoseconds.
    @exclusivity(unchecked) var parkedAt: UInt64 = 0
    /// How many tables the environment had opened when the read transaction began or was last
    /// renewed: LMDB gives a read transaction the tables open at that moment only.
    @exclusivity(unchecked) var tablesKnown = 0
    let path: String
    /// The environment's identifier (``EnvironmentState/identifier``).
    let environment: UInt32
    /// The store's cipher when it is encrypted: sealed tables' values pass through it.
    let cipher: ValueCipher?
    /// What sealing and opening values keeps between calls (see `TransactionHandle+Sealing`);
    /// made at the first sealed value.
    @exclusivity(unchecked) var sealing: SealingScratch? {
        didSet { unretainedSealing = sealing.map { Unmanaged.passUnretained($0) } }
    }
    /// ``cipher`` and ``sealing`` without references counted, for the path every sealed value
    /// takes: loading either reference retained and released it, two atomic operations each,
    /// and both live as long as this handle.
    let unretainedCipher: Unmanaged<ValueCipher>?
    @exclusivity(unchecked) private(set) var unretainedSealing: Unmanaged<SealingScratch>?

    init(pointer: OpaquePointer, path: String, environment: UInt32, cipher: ValueCipher? = nil) {
        self.pointer = pointer
        self.path = path
        self.environment = environment
        self.cipher = cipher
        unretainedCipher = cipher.map { Unmanaged.passUnretained($0) }
    }

    // MARK: Kept cursors

    /// A cursor kept for the next use on its table in this transaction (and, for a pooled read
    /// transaction, the next ones: LMDB renews a read-only transaction's cursors). Opening and
    /// closing a cursor costs LMDB an allocation and a free and Cairn another pair, several
    /// hundred instructions, where most uses look up one key.
    struct KeptCursor {
        let table: UInt32
        let pointer: OpaquePointer
        let position: UnsafeMutablePointer<CursorPosition>
        var inUse = false
        /// The ``renewals`` count it was last renewed at.
        var renewedAt: Int
    }

    /// A transaction is used by one thread at a time and no access to these outlives a call, so
    /// they need no runtime exclusivity checks (each cost a thread-local lookup and a set insert,
    /// four times per key lookup).
    @exclusivity(unchecked) private var kept: [KeptCursor] = []
    /// How many times this read transaction was renewed from the pool.
    @exclusivity(unchecked) private var renewals = 0

    /// What a transaction has for a cursor on one table.
    enum KeptCursorLookup {
        /// The kept cursor at this position, now marked in use and ready for this transaction.
        case ready(Int)
        /// The kept cursor is in use (a cursor wanted inside another's closure on the same
        /// table): the caller opens and closes one of its own.
        case busy
        /// None is kept: the caller opens one and keeps it.
        case absent
    }

    /// The kept cursor on `table`, if any, taken for use (see ``KeptCursorLookup``).
    func takeKeptCursor(for table: UInt32) throws(StorageError) -> KeptCursorLookup {
        guard let index = kept.firstIndex(where: { $0.table == table }) else { return .absent }
        guard !kept[index].inUse else { return .busy }
        if kept[index].renewedAt != renewals {
            _ = try run("Renewing a cursor", "mdb_cursor_renew") { mdb_cursor_renew(pointer, kept[index].pointer) }
            kept[index].renewedAt = renewals
            // The entry it was on belongs to the last transaction: a seek must not step from it.
            kept[index].position.pointee.forget()
        }
        kept[index].inUse = true
        return .ready(index)
    }

    func keptCursor(at index: Int) -> KeptCursor { kept[index] }

    /// Makes the kept cursor at `index` available again.
    func releaseKeptCursor(at index: Int) { kept[index].inUse = false }

    /// Keeps a cursor just opened on `table`, in use; returns its index.
    func keep(
        _ cursor: OpaquePointer, for table: UInt32, position: UnsafeMutablePointer<CursorPosition>
    ) -> Int {
        kept.append(KeptCursor(table: table, pointer: cursor, position: position, inUse: true, renewedAt: renewals))
        return kept.count - 1
    }

    /// Notes that the read transaction was renewed: each kept cursor is renewed at its next use.
    func didRenew() {
        renewals &+= 1
        sealing?.transactionEnded()
    }

    /// Closes the kept cursors. Called before a write transaction commits or aborts, and when a
    /// read transaction is aborted (LMDB leaves a read-only transaction's cursors to the caller).
    func closeKeptCursors() {
        for cursor in kept {
            mdb_cursor_close(cursor.pointer)
            cursor.position.deinitialize(count: 1)
            cursor.position.deallocate()
        }
        kept.removeAll()
    }

    /// Stops on a table handle from another store: its number would silently name some other
    /// table here.
    @inline(__always)
    func check(_ table: Table) {
        precondition(
            table.environment == environment,
            "table '\(table)' belongs to another store than this transaction's (\(path))")
    }

    /// Runs an `mdb_*` call through the funnel, remembering a poisoning error.
    ///
    /// - Returns: `false` for `MDB_NOTFOUND`.
    /// Throws the error that poisoned this transaction, if any.
    @inline(__always)
    func checkUsable(_ operation: @autoclosure () -> String) throws(StorageError) {
        if let failure { throw failure.storageError(operation: operation(), path: path) }
    }

    @inline(__always)
    func run(
        _ operation: @autoclosure () -> String, _ call: StaticString, _ code: () -> Int32
    ) throws(StorageError) -> Bool {
        if let failure { throw failure.storageError(operation: operation(), path: path) }
        do {
            return try lmdbCheck(code(), call)
        } catch {
            if error.poisonsTransaction { failure = error }
            throw error.storageError(operation: operation(), path: path)
        }
    }
}

/// Calls `body` with an `MDB_val` that borrows `bytes`.
@inline(__always)
func withMDBValue<R, E: Error>(_ bytes: UnsafeRawBufferPointer, _ body: (inout MDB_val) throws(E) -> R) throws(E) -> R {
    // LMDB never writes through a key or data pointer given to it; empty buffers get a valid address.
    var value = MDB_val(
        mv_size: bytes.count,
        mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? emptyBytes))
    return try body(&value)
}

@inline(__always)
func withMDBValue<R, E: Error>(_ bytes: [UInt8], _ body: (inout MDB_val) throws(E) -> R) throws(E) -> R {
    // withUnsafeBytes rethrows untyped errors, so the typed error travels in a Result.
    let result = bytes.withUnsafeBytes { buffer in Result { () throws(E) -> R in try withMDBValue(buffer, body) } }
    return try result.get()
}

@inline(__always)
func withMDBValues<R, E: Error>(
    _ first: [UInt8], _ second: [UInt8], _ body: (inout MDB_val, inout MDB_val) throws(E) -> R
) throws(E) -> R {
    try withMDBValue(first) { (a) throws(E) -> R in try withMDBValue(second) { (b) throws(E) -> R in try body(&a, &b) }
    }
}

/// The bytes an `MDB_val` points at, borrowed: valid until the transaction ends or writes.
@inline(__always)
func bytes(of value: MDB_val) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
}

// Never written to and never freed, so sharing it across threads is safe.
nonisolated(unsafe) private let emptyBytes = UnsafeRawPointer(
    UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

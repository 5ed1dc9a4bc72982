internal import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an open environment owns: the `MDB_env`, its map size, pooled read transactions, table
/// handles, and the locks that order them.
///
/// It outlives its ``LMDBEnvironment`` by a moment: the registry holds it so it can close the
/// files before the same directory is opened again (see ``EnvironmentRegistry``).
final class EnvironmentState: @unchecked Sendable {
    /// The LMDB environment, or `nil` after a reopen failed (every use then throws). Replaced only
    /// under the gate's exclusive side; read under its shared side (every transaction holds it).
    private var liveEnvironment: OpaquePointer?
    /// The map size in bytes. Changed only under the gate's exclusive side.
    private(set) var mapSize: Int
    let configuration: StorageConfiguration
    let processID = ProcessIdentity.current
    let pageSize: Int
    /// Identifies this environment in its ``Table`` handles, so a table of another store is caught.
    let identifier = EnvironmentState.nextIdentifier()

    /// Shared by every transaction, exclusive for map changes.
    let gate = TransactionGate()
    /// ``gate``, lent: the entries and exits every transaction makes reach it unretained (the
    /// state holds it), where a call through `gate` retained and released it around each.
    private let lentGate: Unmanaged<TransactionGate>

    /// Enters ``gate`` shared (``TransactionGate/enterShared(nested:)``).
    @inline(__always)
    func enterShared(nested: Bool) { lentGate._withUnsafeGuaranteedRef { $0.enterShared(nested: nested) } }

    /// Leaves ``gate`` (``TransactionGate/leaveShared()``).
    @inline(__always)
    func leaveShared() { lentGate._withUnsafeGuaranteedRef { $0.leaveShared() } }

    /// Serialises this process's writers (and table opening) before LMDB's own writer lock, so
    /// queued writers wait here without holding the gate.
    let writerLock = NSLock()
    /// The idle read transactions, parked for the next reads.
    let readers: ReaderPool
    /// Guards `tables` and `tableOrder`.
    private let tableLock = NSLock()
    private var tables: [String: Table] = [:]
    private var tableOrder: [String] = []
    /// The unnamed main table, whose keys are the names of the named tables.
    private(set) var mainTable: Table
    /// The cipher of an encrypted store's sealed tables, or `nil` for a plaintext store. Set in
    /// `init`, before any table is opened, and never changed.
    private(set) var cipher: ValueCipher?
    /// The hasher of an encrypted store's sensitive key values (derived from its data key), or
    /// `nil` for a plaintext store. Set with ``cipher``.
    private(set) var keyHasher: KeyHasher?
    /// The secret that opens the store now: the configuration's, until
    /// `LMDBEnvironment.changeSecret(to:)` wraps the data key with another.
    var secret: StoreEncryption? {
        get { secretLock.withLock { currentSecret } }
        set { secretLock.withLock { currentSecret = newValue } }
    }
    private let secretLock = NSLock()
    private var currentSecret: StoreEncryption?  // guarded by secretLock
    /// Guarded by the registry's lock.
    var isClosed = false
    /// The registry's key for this environment's directory (device and inode).
    let registryKey: String

    private let writerThreadLock = NSLock()
    private var startedWriterThread: WriterThread?

    /// The thread that runs asynchronous writes, started on first use.
    var writerThread: WriterThread {
        writerThreadLock.lock()
        defer { writerThreadLock.unlock() }
        if let startedWriterThread { return startedWriterThread }
        let thread = WriterThread(name: "Cairn writer")
        startedWriterThread = thread
        return thread
    }

    private static let identifierLock = NSLock()
    nonisolated(unsafe) private static var lastIdentifier: UInt32 = 0  // guarded by identifierLock

    /// The next environment number. Thirty-two bits, so that a ``Table`` is sixteen bytes: a
    /// save lists a table with every key it claims. After four billion environments opened in one
    /// process the numbers wrap, and the check that a table belongs to a transaction's store
    /// could then miss a table of a store closed long before.
    private static func nextIdentifier() -> UInt32 {
        identifierLock.withLock {
            lastIdentifier &+= 1
            return lastIdentifier
        }
    }

    /// Opens the environment. With `walkWhenPinned`, the pages of the snapshot LMDB opened are
    /// walked first, pinned by a read transaction (another process had the store open, so they
    /// could not be walked before), and nothing else reads the trees until they pass.
    init(
        configuration: StorageConfiguration, mapSize: Int, registryKey: String,
        walkWhenPinned: PageWalker.Scope? = nil
    ) throws(StorageError) {
        self.configuration = configuration
        currentSecret = configuration.encryption
        self.mapSize = mapSize
        self.registryKey = registryKey
        lentGate = .passUnretained(gate)
        let environment = try Self.openLMDB(configuration, mapSize: mapSize)
        liveEnvironment = environment
        var stat = MDB_stat()
        mdb_env_stat(environment, &stat)
        pageSize = Int(stat.ms_psize)
        // Leave most reader slots to other threads and processes.
        readers = ReaderPool(
            capacity: max(1, min(16, configuration.maximumReaders / 4)), parkingLimit: configuration.readParkingLimit)
        mainTable = Table(name: "", flags: [], handle: 1, environment: identifier)
        var dead: Int32 = 0
        mdb_reader_check(environment, &dead)
        do throws(StorageError) {
            var resizes = 0
            while true {
                do throws(StorageError) {
                    try checkOpenedStore(environment, walkWhenPinned: walkWhenPinned)
                    cipher = try Self.unlock(environment, mainTable: mainTable, configuration: configuration)
                    keyHasher = cipher.map { KeyHasher(dataKey: $0.dataKey) }
                    break
                } catch
                    where (error.cause as? LMDBError) == .mapResized && resizes < LMDBEnvironment.maximumResizeRetries
                {
                    // Another process grew the map since it was opened: adopt its size (no
                    // transaction of this environment is active) and look again.
                    resizes += 1
                    mdb_env_set_mapsize(environment, 0)
                    var info = MDB_envinfo()
                    mdb_env_info(environment, &info)
                    self.mapSize = info.me_mapsize
                }
            }
        } catch {
            // Never leave an open MDB_env behind: its POSIX locks would let a later open of the
            // same files in this process believe it is alone.
            mdb_env_close(environment)
            liveEnvironment = nil
            throw error
        }
    }

    /// What opening checks once LMDB has the store: the pinned page walk when another process has
    /// it open, then the table catalogue and the commit marker.
    private func checkOpenedStore(_ environment: OpaquePointer, walkWhenPinned: PageWalker.Scope?) throws(StorageError)
    {
        if let scope = walkWhenPinned {
            try Self.walkPinned(environment, pageSize: pageSize, scope: scope, path: configuration.path)
        }
        do throws(LMDBError) {
            // LMDB sets the main table's comparator only in mdb_dbi_open; until then a lookup
            // in it (listing tables) calls a null function pointer.
            mainTable = try openTableHandle(nil, flags: [], create: false, readOnly: true)!
        } catch {
            throw error.storageError(operation: "Reading the store's table catalogue", path: configuration.path)
        }
        try CommitMarker.check(environment, mainTable: mainTable, path: configuration.path)
    }

    /// Walks the snapshot a new read transaction pins and throws its first problem, or a missing
    /// or wrong commit marker (see ``DataFileValidator``).
    private static func walkPinned(
        _ environment: OpaquePointer, pageSize: Int, scope: PageWalker.Scope, path: String
    ) throws(StorageError) {
        for _ in 0..<8 {
            var pointer: OpaquePointer?
            let rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &pointer)
            guard rc == MDB_SUCCESS, let transaction = pointer else {
                throw LMDBError(rc).storageError(operation: "Checking the store's pages", path: path)
            }
            defer { mdb_txn_abort(transaction) }
            guard
                let (id, summary) = try PinnedSnapshot.walk(
                    transaction, of: environment, pageSize: pageSize, path: path, scope: scope, stopAtFirstProblem: true
                )
            else { continue }
            if id > 1 && summary.marker != id {
                throw StorageError(
                    code: .damaged,
                    message: "The store cannot be opened: the snapshot of transaction \(id) carries "
                        + (summary.marker.map { "the commit marker of transaction \($0)" } ?? "no commit marker")
                        + ", so a meta page is damaged. Close the store in every process, then open it again to "
                        + "recover the last intact commit, or restore it from a backup.",
                    path: path)
            }
            return
        }
        throw PinnedSnapshot.busy(path)
    }

    /// The open `MDB_env`. The caller holds the gate.
    ///
    /// - Throws: `MDB_PANIC` when a reopen after a fatal error failed; the store must be opened
    ///   again.
    func environment() throws(LMDBError) -> OpaquePointer {
        guard let liveEnvironment else { throw LMDBError.panic }
        return liveEnvironment
    }

    /// Whether LMDB flushes the open environment's commits: `false` only under `MDB_NOSYNC`
    /// (an in-memory store's ``Durability/unsynced``).
    func flushesCommits() throws(LMDBError) -> Bool {
        var flags: UInt32 = 0
        mdb_env_get_flags(try environment(), &flags)
        return flags & UInt32(MDB_NOSYNC) == 0
    }

    /// Under ``Durability/powerLossSafe``, flushes the data file to the drive's stable storage
    /// once a commit returned, so that its meta page is there before the write is acknowledged.
    /// The caller holds the gate.
    ///
    /// - Throws: The flush's error; the commit may or may not have reached the disk.
    func flushCommit() throws(LMDBError) {
        guard configuration.durability == .powerLossSafe else { return }
        var fd: Int32 = -1
        let rc = mdb_env_get_fd(try environment(), &fd)
        guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
        try StoreFiles.flushToStableStorage(fd)
    }

    /// Creates and opens an `MDB_env` for `configuration.path` with Cairn's fixed flags.
    static func openLMDB(_ configuration: StorageConfiguration, mapSize: Int) throws(StorageError) -> OpaquePointer {
        var created: OpaquePointer?
        let path = configuration.path
        func check(_ rc: Int32, _ operation: String) throws(StorageError) {
            if rc != MDB_SUCCESS {
                if let created { mdb_env_close(created) }
                throw LMDBError(rc).storageError(operation: operation, path: path)
            }
        }
        try check(mdb_env_create(&created), "Creating the storage environment")
        let environment = created!
        try check(mdb_env_set_maxreaders(environment, UInt32(configuration.maximumReaders)), "Setting the reader count")
        try check(mdb_env_set_maxdbs(environment, UInt32(configuration.maximumTables)), "Setting the table count")
        try check(mdb_env_set_mapsize(environment, mapSize), "Setting the map size")
        // MDB_NOTLS: read transactions are not tied to threads, so pooled ones can move between
        // them. Never MDB_MAPASYNC or MDB_WRITEMAP, and MDB_NOSYNC only for an in-memory store's
        // temporary files (ARCHITECTURE §3). The files are created 0600, which a umask can only
        // narrow.
        var flags = UInt32(MDB_NOTLS)
        switch configuration.durability {
        case .full: break
        // The meta page is flushed by Cairn after the commit (``flushCommit()``).
        case .powerLossSafe, .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
        case .unsynced: flags |= UInt32(MDB_NOSYNC)
        }
        if configuration.isReadOnly { flags |= UInt32(MDB_RDONLY) }
        // LMDB opens its files by name: it is handed a directory checked and held open here.
        let directory: StoreDirectory
        do throws(StorageError) {
            directory = try StoreDirectory(path)
        } catch {
            mdb_env_close(environment)
            throw error
        }
        let opened = mdb_env_open(environment, directory.lmdbPath, flags, StoreFiles.fileMode)
        if opened == MDB_INVALID || opened == MDB_VERSION_MISMATCH {
            // The data file passed its checks before this call, so LMDB objects to the lock file,
            // which it resets only when no other process has the store open.
            mdb_env_close(environment)
            throw StorageError(
                code: .damaged,
                message: "The store cannot be opened: its lock file (\(StoreFiles.lockFileName)) is damaged or was "
                    + "written by another LMDB version, and another process has the store open. The data is not "
                    + "affected: close the store in every other process (LMDB then rebuilds the lock file), and open "
                    + "it again.",
                path: StoreFiles.lockFile(in: path), cause: LMDBError(opened))
        }
        try check(opened, "Opening the store")
        do throws(StorageError) {
            try directory.confirm(environment)
        } catch {
            mdb_env_close(environment)
            throw error
        }
        return environment
    }

    // MARK: Reads

    /// A pooled read transaction (the parked one as it is, when its snapshot is still the newest
    /// commit; else renewed), or a new one. The caller holds the gate shared.
    func beginRead() throws(LMDBError) -> TransactionHandle {
        let environment = try environment()
        let (pooled, tables) = readers.take()
        if let pooled {
            if let snapshot = pooled.parkedSnapshot {
                pooled.parkedSnapshot = nil
                // Nothing committed and no table opened since it began: its snapshot is what a
                // renewed one would read, and its cursors are still on their tables.
                var info = MDB_envinfo()
                mdb_env_info(environment, &info)
                if UInt64(truncatingIfNeeded: info.me_last_txnid) == snapshot && pooled.tablesKnown == tables {
                    return pooled
                }
                mdb_txn_reset(pooled.pointer)
            }
            if mdb_txn_renew(pooled.pointer) == MDB_SUCCESS {
                pooled.didRenew()
                pooled.tablesKnown = tables
                return pooled
            }
            pooled.closeKeptCursors()
            mdb_txn_abort(pooled.pointer)  // fall through to a fresh begin, which reports why
        }
        var pointer: OpaquePointer?
        var rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &pointer)
        if rc == MDB_READERS_FULL {
            // Slots of dead processes are reclaimed, then the read is tried once more.
            var dead: Int32 = 0
            mdb_reader_check(environment, &dead)
            rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &pointer)
        }
        guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
        let handle = TransactionHandle(
            pointer: pointer!, path: configuration.path, environment: identifier, cipher: cipher)
        handle.tablesKnown = tables
        return handle
    }

    /// Keeps a read transaction for the next read, open (parked) with its snapshot (see
    /// ``ReaderPool``), or aborts it when it failed or the pool is full. The caller holds the gate
    /// shared.
    func endRead(_ handle: TransactionHandle) {
        if handle.failure == nil && readers.park(handle) { return }
        handle.closeKeptCursors()
        mdb_txn_abort(handle.pointer)
    }

    // MARK: Map changes

    /// The largest the map may grow now: the configured maximum, or the process's file-size limit
    /// when that is lower, so that LMDB reports a full map before it writes past the limit (which
    /// would kill the process with `SIGXFSZ`, or fail the write). Never below the current size.
    private func growthLimit() -> (maximum: Int, byFileSizeLimit: Bool) {
        let configured = LMDBEnvironment.roundedMapSize(max(configuration.maximumMapSize, mapSize), pageSize: pageSize)
        guard let limit = DiskSpace.fileSizeLimit(), limit / pageSize * pageSize < configured else {
            return (configured, false)
        }
        return (max(limit / pageSize * pageSize, mapSize), true)
    }

    /// Refuses a write, with `diskFull`, while the store already reaches past the process's
    /// file-size limit: LMDB may then reuse a free page beyond the limit or append past it, and the
    /// write would fail, or kill the process with `SIGXFSZ`. Below the limit, the map (capped at
    /// the limit) keeps every write inside it. The caller holds the writer lock.
    func checkRoomUnderFileSizeLimit() throws(StorageError) {
        guard let limit = DiskSpace.fileSizeLimit() else { return }
        let used: Int? = {
            enterShared(nested: false)
            defer { leaveShared() }
            guard let environment = try? environment() else { return nil }
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            let (used, overflow) = (info.me_last_pgno + 1).multipliedReportingOverflow(by: pageSize)
            return overflow ? Int.max : used
        }()
        guard let used else { return }
        if used <= limit {
            // A limit set after the map grew: bring the map back inside it, so that LMDB cannot
            // append a page past the limit.
            let ceiling = limit / pageSize * pageSize
            if mapSize > ceiling {
                try exclusively { () throws(StorageError) in try setMapSize(max(ceiling, used)) }
            }
            return
        }
        throw StorageError(
            code: .diskFull,
            message: "The store cannot take a write: its data file already reaches past the process's file-size "
                + "limit (RLIMIT_FSIZE, `ulimit -f`) of \(limit) bytes. Raise the limit, then save again; earlier "
                + "commits are intact.",
            path: configuration.path)
    }

    /// Doubles the map, up to the configured maximum and the process's file-size limit. The
    /// caller holds no transaction.
    func grow() throws(StorageError) {
        try exclusively { () throws(StorageError) in
            let (maximum, byFileSizeLimit) = growthLimit()
            guard mapSize < maximum else {
                if byFileSizeLimit {
                    throw StorageError(
                        code: .diskFull,
                        message: "The store cannot grow: its data file would pass the process's file-size limit "
                            + "(RLIMIT_FSIZE, `ulimit -f`) of \(DiskSpace.fileSizeLimit() ?? maximum) bytes. Raise the "
                            + "limit or delete data, then save again; earlier commits are intact.",
                        path: configuration.path)
                }
                throw StorageError(
                    code: .maximumSizeReached,
                    message: "The store reached its configured maximum size of \(maximum) bytes. "
                        + "Raise the maximum size or delete data.",
                    path: configuration.path)
            }
            let doubled = mapSize > maximum / 2 ? maximum : mapSize * 2
            try setMapSize(min(LMDBEnvironment.roundedMapSize(doubled, pageSize: pageSize), maximum))
        }
    }

    /// Grows the map ahead of a write expected to add about `bytes`, so that a large save does
    /// not fill the map, abort and start again once per doubling (each attempt redoes all the
    /// puts of the one before). Room is counted as twice the bytes, for page overhead and the
    /// copy-on-write pages a transaction holds until it commits. Stays within the configured
    /// maximum; a write that still does not fit grows by doubling as before. The caller holds
    /// no transaction.
    func reserve(_ bytes: Int) throws(StorageError) {
        try exclusively { () throws(StorageError) in
            let maximum = growthLimit().maximum
            guard let environment = try? environment() else { return }
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            let used = (info.me_last_pgno + 1) * pageSize
            let (wanted, overflow) = used.addingReportingOverflow(bytes.multipliedReportingOverflow(by: 2).partialValue)
            guard !overflow, wanted > mapSize, mapSize < maximum else { return }
            var size = mapSize
            while size < wanted && size < maximum { size = size > maximum / 2 ? maximum : size * 2 }
            try setMapSize(min(LMDBEnvironment.roundedMapSize(size, pageSize: pageSize), maximum))
        }
    }

    /// Adopts a larger map size set by another process (`MDB_MAP_RESIZED`).
    func absorbResize() throws(StorageError) {
        try exclusively { () throws(StorageError) in try setMapSize(0) }
    }

    /// Runs `body` with the gate held exclusively and no read transaction of this environment
    /// parked: no transaction of the process is open, as LMDB requires to change the map.
    private func exclusively<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try gate.withExclusive { () throws(StorageError) in
            readers.resetParked()
            return try body()
        }
    }

    /// Sets the map size (0 adopts the size recorded in the file) and records the result.
    /// The caller holds the gate exclusively, so no transaction of this process is active.
    private func setMapSize(_ size: Int) throws(StorageError) {
        do throws(LMDBError) {
            let environment = try environment()
            let rc = mdb_env_set_mapsize(environment, size)
            guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            if info.me_mapsize != mapSize {
                cairnLog.debug("Store \(configuration.path): map size \(mapSize) → \(info.me_mapsize) bytes")
            }
            mapSize = info.me_mapsize
        } catch {
            throw error.storageError(operation: "Resizing the map", path: configuration.path)
        }
    }

    /// Closes and reopens the environment after `MDB_PANIC`, reopening every table in its
    /// original order so that existing ``Table`` handles keep their numbers. If that fails, the
    /// environment stays closed and every later use throws; the store must be opened again.
    /// The caller holds no transaction.
    func reopen() throws(StorageError) {
        try exclusively { () throws(StorageError) in
            readers.drain()
            if let liveEnvironment { mdb_env_close(liveEnvironment) }
            liveEnvironment = nil
            let environment = try Self.openLMDB(configuration, mapSize: mapSize)
            liveEnvironment = environment
            tableLock.lock()
            let order = tableOrder
            let known = tables
            tableLock.unlock()
            do throws(LMDBError) {
                _ = try openTableHandle(nil, flags: [], create: false, readOnly: true)
                for name in order {
                    let table = known[name]!
                    let reopened = try openTableHandle(name, flags: table.flags, create: false, readOnly: true)
                    precondition(
                        reopened?.handle == table.handle,
                        "table '\(name)' changed its handle when the store was reopened")
                }
            } catch {
                mdb_env_close(environment)
                liveEnvironment = nil
                throw error.storageError(operation: "Reopening the store after a fatal error", path: configuration.path)
            }
        }
    }

    // MARK: Tables

    func cachedTable(_ name: String) -> Table? {
        tableLock.lock()
        defer { tableLock.unlock() }
        return tables[name]
    }

    /// Opens a table in a transaction of its own and caches it. The caller holds the writer lock
    /// and no transaction.
    func openTableInOwnTransaction(
        _ name: String, flags: TableFlags, create: Bool, readOnly: Bool
    ) throws(LMDBError) -> Table? {
        enterShared(nested: false)
        defer { leaveShared() }
        // Creating a table is a write: like any other, it resets the parked reads first, so that
        // the pages it frees are reused whether or not a sweep has come (see `attemptWrite`).
        if create && !readOnly { readers.resetParked() }
        guard let table = try openTableHandle(name, flags: flags, create: create, readOnly: readOnly) else {
            return nil
        }
        tableLock.lock()
        tables[name] = table
        tableOrder.append(name)
        tableLock.unlock()
        readers.noteTableOpened()
        return table
    }

    /// Opens (or creates) a named table, or the main table for `nil`, in a transaction of its own.
    ///
    /// - Throws: `MDB_INCOMPATIBLE` when the table exists with other flags: LMDB 0.9 itself
    ///   ignores the requested flags of an existing table, so they are compared here.
    private func openTableHandle(
        _ name: String?, flags: TableFlags, create: Bool, readOnly: Bool
    ) throws(LMDBError) -> Table? {
        var pointer: OpaquePointer?
        var rc = mdb_txn_begin(try environment(), nil, readOnly ? UInt32(MDB_RDONLY) : 0, &pointer)
        guard rc == MDB_SUCCESS, let transaction = pointer else { throw LMDBError(rc) }
        // A table that does not exist yet is created by this transaction, which then commits a
        // change and so records the commit marker like any write.
        var creates = false
        if create, let name {
            var data = MDB_val()
            creates =
                withMDBValue(Array(name.utf8)) { key in mdb_get(transaction, mainTable.handle, &key, &data) }
                == MDB_NOTFOUND
        }
        var handle: MDB_dbi = 0
        rc = mdb_dbi_open(transaction, name, flags.rawValue | (create ? UInt32(MDB_CREATE) : 0), &handle)
        if rc == MDB_SUCCESS && name != nil {
            var stored: UInt32 = 0
            rc = mdb_dbi_flags(transaction, handle, &stored)
            if rc == MDB_SUCCESS && stored & TableFlags.persistent != flags.rawValue { rc = MDB_INCOMPATIBLE }
        }
        if rc == MDB_SUCCESS && creates { rc = CommitMarker.write(in: transaction, mainTable: mainTable) }
        guard rc == MDB_SUCCESS else {
            // Aborting also closes a handle opened in this transaction.
            mdb_txn_abort(transaction)
            if rc == MDB_NOTFOUND { return nil }
            throw LMDBError(rc)
        }
        // Committing (also for a read-only transaction) keeps the handle open for everyone.
        rc = mdb_txn_commit(transaction)
        guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
        if creates { try flushCommit() }
        let isSealed = name.map { cipher != nil && configuration.sealedTables.contains($0) } ?? false
        return Table(
            name: name ?? "", flags: flags, handle: handle, environment: identifier,
            isSealed: isSealed && !flags.contains(.duplicateSort))
    }

    // MARK: Closing

    /// Closes the environment. Called by the registry, under its lock, once no ``LMDBEnvironment``
    /// refers to this state.
    func close() {
        precondition(!isClosed, "an environment was closed twice")
        isClosed = true
        writerThreadLock.lock()
        startedWriterThread?.stop()
        writerThreadLock.unlock()
        // In a child process after fork() the environment belongs to the parent: closing it here
        // would clear the parent's reader slots. Leave it alone.
        guard processID == ProcessIdentity.current, let liveEnvironment else { return }
        readers.drain()
        mdb_env_close(liveEnvironment)
        self.liveEnvironment = nil
    }
}

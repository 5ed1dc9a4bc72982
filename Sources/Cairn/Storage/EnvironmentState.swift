import Foundation
internal import CLMDB

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
    /// The LMDB environment. Replaced only by ``reopen()`` under the gate's exclusive side; read
    /// under its shared side (every transaction holds it).
    private(set) var environment: OpaquePointer
    /// The map size in bytes. Changed only under the gate's exclusive side.
    private(set) var mapSize: Int
    let configuration: StorageConfiguration
    let processID = getpid()
    let pageSize: Int

    /// Shared by every transaction, exclusive for map changes.
    let gate = TransactionGate()
    /// Serialises this process's writers (and table opening) before LMDB's own writer lock, so
    /// queued writers wait here without holding the gate.
    let writerLock = NSLock()
    /// Guards `readerPool`.
    private let poolLock = NSLock()
    private var readerPool: [TransactionHandle] = []
    private let maximumPooledReaders: Int
    /// Guards `tables` and `tableOrder`.
    private let tableLock = NSLock()
    private var tables: [String: Table] = [:]
    private var tableOrder: [String] = []
    /// The unnamed main table, whose keys are the names of the named tables.
    private(set) var mainTable = Table(name: "", flags: [], handle: 1)
    /// Guarded by the registry's lock.
    var isClosed = false

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

    init(configuration: StorageConfiguration, mapSize: Int) throws(StorageError) {
        self.configuration = configuration
        self.mapSize = mapSize
        self.environment = try Self.openLMDB(configuration, mapSize: mapSize)
        var stat = MDB_stat()
        mdb_env_stat(environment, &stat)
        pageSize = Int(stat.ms_psize)
        // Leave most reader slots to other threads and processes.
        maximumPooledReaders = max(1, min(16, configuration.maximumReaders / 4))
        var dead: Int32 = 0
        mdb_reader_check(environment, &dead)
        do throws(LMDBError) {
            // LMDB sets the main table's comparator only in mdb_dbi_open; until then a lookup in
            // it (listing tables) calls a null function pointer.
            mainTable = try openTableHandle(nil, flags: [], create: false, readOnly: true)!
        } catch {
            mdb_env_close(environment)
            throw error.storageError(operation: "Reading the store's table catalogue", path: configuration.path)
        }
        do {
            try CommitMarker.check(environment, mainTable: mainTable, path: configuration.path)
        } catch {
            mdb_env_close(environment)
            throw error
        }
        if !configuration.isReadOnly {
            for file in [StoreFiles.dataFile(in: configuration.path), StoreFiles.lockFile(in: configuration.path)] {
                try StoreFiles.setMode(StoreFiles.fileMode, of: file)
            }
        }
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
        // them. Never MDB_NOSYNC, MDB_MAPASYNC or MDB_WRITEMAP (ARCHITECTURE §3).
        var flags = UInt32(MDB_NOTLS)
        if configuration.durability == .noMetaSync { flags |= UInt32(MDB_NOMETASYNC) }
        if configuration.isReadOnly { flags |= UInt32(MDB_RDONLY) }
        try check(mdb_env_open(environment, path, flags, StoreFiles.fileMode), "Opening the store")
        return environment
    }

    // MARK: Reads

    /// A renewed pooled read transaction, or a new one. The caller holds the gate shared.
    func beginRead() throws(LMDBError) -> TransactionHandle {
        poolLock.lock()
        let pooled = readerPool.popLast()
        poolLock.unlock()
        if let pooled {
            if mdb_txn_renew(pooled.pointer) == MDB_SUCCESS { return pooled }
            mdb_txn_abort(pooled.pointer)   // fall through to a fresh begin, which reports why
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
        return TransactionHandle(pointer: pointer!, path: configuration.path)
    }

    /// Resets a read transaction and keeps it for the next read. The caller holds the gate shared.
    func endRead(_ handle: TransactionHandle) {
        guard handle.failure == nil else {
            mdb_txn_abort(handle.pointer)
            return
        }
        mdb_txn_reset(handle.pointer)
        poolLock.lock()
        if readerPool.count < maximumPooledReaders {
            readerPool.append(handle)
            poolLock.unlock()
        } else {
            poolLock.unlock()
            mdb_txn_abort(handle.pointer)
        }
    }

    private func drainReaderPool() {
        poolLock.lock()
        let pooled = readerPool
        readerPool.removeAll()
        poolLock.unlock()
        for handle in pooled { mdb_txn_abort(handle.pointer) }
    }

    // MARK: Map changes

    /// Doubles the map, up to the configured maximum. The caller holds no transaction.
    func grow() throws(StorageError) {
        try gate.withExclusive { () throws(StorageError) in
            let maximum = max(configuration.maximumMapSize, mapSize)
            guard mapSize < maximum else {
                throw StorageError(
                    code: .maximumSizeReached,
                    message: "The store reached its configured maximum size of \(maximum) bytes. "
                        + "Raise the maximum size or delete data.",
                    path: configuration.path)
            }
            let target = LMDBEnvironment.roundedMapSize(min(mapSize.multipliedReportingOverflow(by: 2).partialValue, maximum), pageSize: pageSize)
            try setMapSize(min(target, LMDBEnvironment.roundedMapSize(maximum, pageSize: pageSize)))
        }
    }

    /// Adopts a larger map size set by another process (`MDB_MAP_RESIZED`).
    func absorbResize() throws(StorageError) {
        try gate.withExclusive { () throws(StorageError) in try setMapSize(0) }
    }

    /// Sets the map size (0 adopts the size recorded in the file) and records the result.
    /// The caller holds the gate exclusively, so no transaction of this process is active.
    private func setMapSize(_ size: Int) throws(StorageError) {
        let rc = mdb_env_set_mapsize(environment, size)
        guard rc == MDB_SUCCESS else {
            throw LMDBError(rc).storageError(operation: "Growing the map", path: configuration.path)
        }
        var info = MDB_envinfo()
        mdb_env_info(environment, &info)
        mapSize = info.me_mapsize
    }

    /// Closes and reopens the environment after `MDB_PANIC`, reopening every table in its
    /// original order so that existing ``Table`` handles keep their numbers.
    func reopen() throws(StorageError) {
        try gate.withExclusive { () throws(StorageError) in
            drainReaderPool()
            mdb_env_close(environment)
            environment = try Self.openLMDB(configuration, mapSize: mapSize)
            do throws(LMDBError) {
                _ = try openTableHandle(nil, flags: [], create: false, readOnly: true)
            } catch {
                throw error.storageError(operation: "Reading the store's table catalogue", path: configuration.path)
            }
            tableLock.lock()
            let order = tableOrder
            let known = tables
            tableLock.unlock()
            for name in order {
                let table = known[name]!
                let reopened: Table?
                do throws(LMDBError) {
                    reopened = try openTableHandle(name, flags: table.flags, create: false, readOnly: configuration.isReadOnly)
                } catch {
                    throw error.storageError(operation: "Reopening table '\(name)'", path: configuration.path)
                }
                precondition(reopened?.handle == table.handle, "table '\(name)' changed its handle when the store was reopened")
            }
        }
    }

    // MARK: Tables

    func cachedTable(_ name: String) -> Table? {
        tableLock.lock()
        defer { tableLock.unlock() }
        return tables[name]
    }

    /// Opens a table in a transaction of its own and caches it. The caller holds the writer lock.
    func openTableInOwnTransaction(_ name: String, flags: TableFlags, create: Bool, readOnly: Bool) throws(LMDBError) -> Table? {
        gate.enterShared(nested: false)
        defer { gate.leaveShared() }
        guard let table = try openTableHandle(name, flags: flags, create: create, readOnly: readOnly) else { return nil }
        tableLock.lock()
        tables[name] = table
        tableOrder.append(name)
        tableLock.unlock()
        return table
    }

    private func openTableHandle(_ name: String?, flags: TableFlags, create: Bool, readOnly: Bool) throws(LMDBError) -> Table? {
        var pointer: OpaquePointer?
        var rc = mdb_txn_begin(environment, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &pointer)
        guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
        // A table that does not exist yet is created by this transaction, which then commits a
        // change and so records the commit marker like any write.
        var creates = false
        if create, let name {
            var data = MDB_val()
            creates = withMDBValue(Array(name.utf8)) { key in mdb_get(pointer, mainTable.handle, &key, &data) } == MDB_NOTFOUND
        }
        var handle: MDB_dbi = 0
        rc = mdb_dbi_open(pointer, name, flags.rawValue | (create ? UInt32(MDB_CREATE) : 0), &handle)
        if rc != MDB_SUCCESS {
            mdb_txn_abort(pointer)
            if rc == MDB_NOTFOUND { return nil }
            throw LMDBError(rc)
        }
        if creates {
            let transaction = TransactionHandle(pointer: pointer!, path: configuration.path)
            do throws(StorageError) {
                try CommitMarker.write(in: transaction, mainTable: mainTable)
            } catch {
                mdb_txn_abort(pointer)
                throw transaction.failure ?? LMDBError(MDB_PANIC)
            }
        }
        // Committing (also for a read-only transaction) keeps the handle open for everyone.
        rc = mdb_txn_commit(pointer)
        guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
        return Table(name: name ?? "", flags: flags, handle: handle)
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
        guard processID == getpid() else { return }
        drainReaderPool()
        mdb_env_close(environment)
    }
}

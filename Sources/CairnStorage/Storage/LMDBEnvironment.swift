internal import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open store: one LMDB environment, shared by everything in the process that uses its files.
///
/// There is one `LMDBEnvironment` per store directory per process: ``open(_:)`` and
/// ``create(_:)`` return the instance already open for that directory, because opening LMDB's
/// files twice in one process and closing one of them wipes the lock table other processes rely
/// on. The environment closes when the last reference to it goes away.
///
/// ```swift
/// let environment = try LMDBEnvironment.openOrCreate(StorageConfiguration(path: directory))
/// let people = try environment.openTable("e/Person", create: true)!
/// try environment.write { txn in try txn.put(record, for: key, in: people) }
/// let stored = try environment.read { txn in try txn.get(key, in: people) }
/// ```
///
/// ## LMDB limitations
/// - One write transaction at a time across all processes; others wait for it.
/// - Keys are 1 to 511 bytes; values of ``TableFlags/duplicateSort`` tables too.
/// - A write's closure may run more than once: when the map is full, the transaction is aborted,
///   the map doubles, and the whole closure runs again. Keep side effects out of it.
/// - Do not call ``write(_:)`` inside another transaction's closure on the same thread.
package final class LMDBEnvironment: @unchecked Sendable {
    /// The configuration the environment was opened with.
    ///
    /// ```swift
    /// print(environment.configuration.maximumMapSize)
    /// ```
    package let configuration: StorageConfiguration
    /// The store directory, absolute, with symbolic links resolved.
    ///
    /// ```swift
    /// print(environment.path)   // "/var/lib/app/Library.cairn"
    /// ```
    package let path: String
    /// What opening the store had to repair, or `nil` when it opened as it was.
    ///
    /// ```swift
    /// if let recovery = environment.recovery { print(recovery) }
    /// ```
    package let recovery: StoreRecovery?
    // Immutable after init; its own fields say what guards them.
    let state: EnvironmentState

    private init(configuration: StorageConfiguration, path: String, state: EnvironmentState, recovery: StoreRecovery?) {
        self.configuration = configuration
        self.path = path
        self.state = state
        self.recovery = recovery
    }

    deinit {
        EnvironmentRegistry.shared.release(state)
    }

    // MARK: Opening

    /// Creates a new store at `configuration.path` and opens it.
    ///
    /// The directory is created `0700` and its files `0600`. The store appears atomically: it is
    /// built in a temporary directory beside the target and renamed into place, so a crash never
    /// leaves a half-created store behind.
    ///
    /// ```swift
    /// let environment = try LMDBEnvironment.create(StorageConfiguration(path: "/tmp/New.cairn"))
    /// ```
    /// - Throws: ``StorageError`` `.alreadyExists` if a store or other entries are at the path.
    package static func create(_ configuration: StorageConfiguration) throws(StorageError) -> LMDBEnvironment {
        let target = configuration.path
        if StoreFiles.exists(target) && !StoreFiles.isEmptyDirectory(target) {
            throw StorageError(
                code: .alreadyExists,
                message: "Something already exists at this path. Open the store instead of creating it, "
                    + "or choose another path.",
                path: target)
        }
        guard !configuration.isReadOnly else {
            throw StorageError(
                code: .readOnly, message: "A store cannot be created read-only. Create it writable first.",
                path: target)
        }
        let parent = StoreFiles.parent(of: target)
        StoreFiles.removeAbandonedScratchDirectories(in: parent)
        let scratch = parent + "/" + StoreFiles.scratchPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try StoreFiles.makePrivateDirectory(scratch)
        do throws(StorageError) {
            var scratchConfiguration = configuration
            scratchConfiguration.path = scratch
            let environment = try EnvironmentState.openLMDB(
                scratchConfiguration, mapSize: roundedMapSize(configuration.initialMapSize, pageSize: systemPageSize))
            if let secret = configuration.encryption {
                do throws(StorageError) {
                    try EnvironmentState.writeNewEnvelope(environment, secret: secret, path: target)
                } catch {
                    mdb_env_close(environment)
                    throw error
                }
            }
            mdb_env_close(environment)
            for file in [StoreFiles.dataFile(in: scratch), StoreFiles.lockFile(in: scratch)] {
                try StoreFiles.setMode(StoreFiles.fileMode, of: file)
            }
            // An unsynced (in-memory) store's files die with it: no flush makes them safer.
            let flushes = configuration.durability != .unsynced
            if flushes {
                try StoreFiles.sync(StoreFiles.dataFile(in: scratch))
                try StoreFiles.sync(scratch)
            }
            guard rename(scratch, target) == 0 else {
                let code = errno
                if code == EEXIST || code == ENOTEMPTY {
                    throw StorageError(
                        code: .alreadyExists,
                        message: "Another store was created at this path at the same time. Open it instead.",
                        path: target)
                }
                throw LMDBError(code).storageError(operation: "Moving the new store into place", path: target)
            }
            if flushes { try StoreFiles.sync(parent) }
        } catch {
            StoreFiles.removeDirectory(scratch)
            throw error
        }
        return try open(configuration)
    }

    /// Opens the existing store at `configuration.path`.
    ///
    /// Before LMDB maps the data file, its size and both meta pages are checked with plain reads:
    /// a zero-length, truncated or damaged file is refused with a typed error and never opened.
    /// Stale reader slots of dead processes are cleared.
    ///
    /// ```swift
    /// let environment = try LMDBEnvironment.open(StorageConfiguration(path: "/tmp/Library.cairn"))
    /// ```
    /// - Throws: ``StorageError`` `.notFound` when there is no store, `.damaged`, `.versionMismatch`.
    package static func open(_ configuration: StorageConfiguration) throws(StorageError) -> LMDBEnvironment {
        guard StoreFiles.isDirectory(configuration.path), let path = StoreFiles.canonical(configuration.path),
            let registryKey = StoreFiles.identity(of: path)
        else {
            throw StorageError(
                code: .notFound,
                message: "There is no store directory at this path. Check the path, or create the store.",
                path: configuration.path)
        }
        return try EnvironmentRegistry.shared.environment(for: registryKey, configuration: configuration) {
            () throws(StorageError) -> LMDBEnvironment in
            try checkFilesArePresent(in: path)
            let summary = try DataFileValidator(
                directory: path, fullCheckLimit: configuration.fullCheckLimit, mayRepair: !configuration.isReadOnly
            ).validate()
            let pageSize = max(summary.pageSize, systemPageSize)
            let wanted = max(configuration.initialMapSize, Int(clamping: summary.mapSize), summary.fileSize)
            // Within the configured maximum and the process's file-size limit (see DiskSpace), but
            // never below what the file already holds.
            let ceiling = min(configuration.maximumMapSize, DiskSpace.fileSizeLimit() ?? Int.max)
            let capped = min(wanted, max(ceiling, summary.fileSize, Int(clamping: summary.lastPage + 1) &* pageSize))
            var resolved = configuration
            resolved.path = path
            let state = try EnvironmentState(
                configuration: resolved, mapSize: roundedMapSize(capped, pageSize: pageSize), registryKey: registryKey,
                walkWhenPinned: summary.walkWhenPinned)
            if let recovery = summary.recovery { cairnLog.warning("Store \(path): \(recovery)") }
            return LMDBEnvironment(configuration: resolved, path: path, state: state, recovery: summary.recovery)
        }
    }

    /// Refuses a store directory that is not safe to open (``StoreDirectory/examine(_:)``: a link
    /// or special file among its files, another user's directory), or whose data file is gone
    /// while its lock file is left, with a message that says so: LMDB would report only a
    /// generic error, and creating a new store there would hide the loss.
    private static func checkFilesArePresent(in directory: String) throws(StorageError) {
        try StoreDirectory.examine(directory)
        let data = StoreFiles.dataFile(in: directory), lock = StoreFiles.lockFile(in: directory)
        if !StoreFiles.exists(data) && StoreFiles.exists(lock) {
            throw StorageError(
                code: .damaged,
                message: "The store cannot be opened: its data file (\(StoreFiles.dataFileName)) is missing, though "
                    + "its lock file is there, so the store's data was deleted or moved. Restore \(StoreFiles.dataFileName) "
                    + "from a backup, or delete the store directory to start an empty store.",
                path: data)
        }
    }

    /// Opens the store at `configuration.path`, creating it if there is none.
    ///
    /// A directory whose data file exists but is empty or damaged is refused, never recreated.
    ///
    /// ```swift
    /// let environment = try LMDBEnvironment.openOrCreate(StorageConfiguration(path: path))
    /// ```
    package static func openOrCreate(_ configuration: StorageConfiguration) throws(StorageError) -> LMDBEnvironment {
        if StoreFiles.isDirectory(configuration.path) { try checkFilesArePresent(in: configuration.path) }
        if StoreFiles.exists(StoreFiles.dataFile(in: configuration.path)) || configuration.isReadOnly {
            return try open(configuration)
        }
        do {
            return try create(configuration)
        } catch let error
            where error.code == .alreadyExists && StoreFiles.exists(StoreFiles.dataFile(in: configuration.path))
        {
            return try open(configuration)  // another thread or process created it first
        }
    }

    // MARK: Transactions

    /// Runs `body` in a read-only snapshot of the store.
    ///
    /// Read transactions are pooled: one is left open after use (parked) and serves the next
    /// read as it is while nothing was committed and no table opened since, or is renewed, rather
    /// than created again. A parked transaction is reset before a write of this process, before
    /// the map changes and after ``StorageConfiguration/readParkingLimit`` unused (20 ms), so
    /// that it never holds writers back for long.
    /// Reads nested in another transaction's closure on the same thread are allowed.
    ///
    /// ```swift
    /// let rows = try environment.read { txn in try txn.count(of: authors) }
    /// ```
    /// - Throws: ``StorageError`` (`.usedAfterFork`, `.tooManyReaders`, …) or what `body` throws.
    package func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try checkProcess()
        let nested = ThreadTransactionDepth.current > 0
        var retries = 0
        while true {
            state.enterShared(nested: nested)
            let handle: TransactionHandle
            do throws(LMDBError) {
                handle = try state.beginRead()
            } catch {
                state.leaveShared()
                guard error == .mapResized || error == .panic, retries < Self.maximumResizeRetries else {
                    throw error.storageError(operation: "Beginning a read", path: path)
                }
                guard !nested else {
                    // Adopting the new map would wait for this thread's own open transaction.
                    throw StorageError(
                        code: .other,
                        message: "Beginning a read nested inside another transaction's closure failed: the store "
                            + (error == .panic ? "stopped after a fatal error" : "grew in another process")
                            + " and cannot be remapped while this thread holds a transaction. Finish the outer "
                            + "transaction and read again.",
                        path: path, cause: error)
                }
                retries += 1
                if error == .panic { try state.reopen() } else { try state.absorbResize() }
                continue
            }
            ThreadTransactionDepth.enter()
            defer {
                ThreadTransactionDepth.leave()
                state.endRead(handle)
                state.leaveShared()
            }
            return try body(ReadTransaction(handle: handle))
        }
    }

    /// Runs `body` in the store's write transaction and commits it, or aborts it if `body` throws.
    ///
    /// The transaction begins and commits on the calling thread; `body` is synchronous, so nothing
    /// can suspend in between. When the map is full the transaction is aborted, the map doubles
    /// (up to ``StorageConfiguration/maximumMapSize``) and `body` runs again from the start.
    ///
    /// ```swift
    /// try environment.write { txn in
    ///     try txn.put(record, for: key, in: authors)
    /// }
    /// ```
    /// - Throws: What `body` throws (the first error; nothing is committed), or ``StorageError``:
    ///   `.maximumSizeReached`, `.transactionTooLarge`, `.diskFull`, `.ioError`, `.readOnly`, …
    /// - Precondition: not called inside another transaction's closure on the same thread.
    /// - Parameter expectedBytes: About how many bytes of keys and values the transaction will
    ///   put; the map grows ahead of it when they would not fit (0: no estimate).
    @discardableResult
    package func write<R>(expectedBytes: Int = 0, _ body: (borrowing WriteTransaction) throws -> R) throws -> R {
        try checkProcess()
        guard !configuration.isReadOnly else {
            throw StorageError(
                code: .readOnly,
                message: "The store was opened read-only. Open it without the read-only option to write.",
                path: path)
        }
        precondition(
            ThreadTransactionDepth.current == 0,
            "LMDBEnvironment.write(_:) was called inside another transaction's closure on the same thread; "
                + "finish that transaction first")
        state.writerLock.lock()
        defer { state.writerLock.unlock() }
        try state.checkRoomUnderFileSizeLimit()
        if expectedBytes > 0 { try state.reserve(expectedBytes) }
        while true {
            switch try attemptWrite(body) {
            case .committed(let result): return result
            case .mapFull: try state.grow()
            case .mapResized: try state.absorbResize()
            case .panickedBeforeBegin: try state.reopen()
            case .panickedAtCommit(let error):
                // Whether the commit reached the disk is unknown: reopen, and let the caller
                // decide (a failed save keeps its changes and can be retried).
                try state.reopen()
                throw error
            }
        }
    }

    /// Runs `body` as a write transaction on the environment's writer thread.
    ///
    /// Use this from asynchronous code: the calling task suspends instead of blocking a thread of
    /// the cooperative pool while other writers hold LMDB's writer lock.
    ///
    /// ```swift
    /// try await environment.writeOnWriterThread { txn in try txn.put(record, for: key, in: authors) }
    /// ```
    /// - Throws: The same errors as ``write(_:)``.
    @discardableResult
    package func writeOnWriterThread<R: Sendable>(
        _ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R
    ) async throws -> R {
        try checkProcess()
        return try await withCheckedThrowingContinuation { continuation in
            state.writerThread.submit {
                continuation.resume(with: Result { try self.write(body) })
            }
        }
    }

    private enum WriteOutcome<R> {
        case committed(R)
        case mapFull, mapResized, panickedBeforeBegin
        case panickedAtCommit(StorageError)
    }

    /// One try at a write: begin, run `body`, commit. Says what to fix before trying again.
    private func attemptWrite<R>(_ body: (borrowing WriteTransaction) throws -> R) throws -> WriteOutcome<R> {
        state.enterShared(nested: false)
        defer { state.leaveShared() }
        // A parked read transaction would keep the pages this write frees from the next one.
        state.readers.resetParked()
        var pointer: OpaquePointer?
        let begin: Int32
        do throws(LMDBError) {
            begin = mdb_txn_begin(try state.environment(), nil, 0, &pointer)
        } catch {
            throw error.storageError(operation: "Beginning a write", path: path)
        }
        switch begin {
        case MDB_SUCCESS: break
        case MDB_MAP_RESIZED: return .mapResized
        case MDB_PANIC: return .panickedBeforeBegin
        default: throw LMDBError(begin).storageError(operation: "Beginning a write", path: path)
        }
        let handle = TransactionHandle(
            pointer: pointer!, path: path, environment: state.identifier, cipher: state.cipher)
        let result: R
        do {
            ThreadTransactionDepth.enter()
            defer { ThreadTransactionDepth.leave() }
            result = try body(WriteTransaction(handle: handle))
        } catch {
            handle.closeKeptCursors()
            mdb_txn_abort(handle.pointer)
            if handle.failure == .mapFull { return .mapFull }
            throw error
        }
        // A write transaction's cursors are closed before it ends, whichever way it ends.
        handle.closeKeptCursors()
        if handle.failure == nil && handle.hasWrites {
            _ = try? handle.run("Recording the commit", "mdb_put") {
                CommitMarker.write(in: handle.pointer, mainTable: state.mainTable)
            }
        }
        if let failure = handle.failure {
            // The closure caught a poisoning error and returned normally; LMDB cannot commit.
            mdb_txn_abort(handle.pointer)
            if failure == .mapFull { return .mapFull }
            throw failure.storageError(operation: "Writing", path: path)
        }
        // mdb_txn_commit frees the transaction whether or not it succeeds.
        let commit = mdb_txn_commit(handle.pointer)
        switch commit {
        case MDB_SUCCESS:
            try flushCommit()
            return .committed(result)
        case MDB_MAP_FULL: return .mapFull
        case MDB_PANIC:
            return .panickedAtCommit(LMDBError(commit).storageError(operation: "Committing a write", path: path))
        default: throw LMDBError(commit).storageError(operation: "Committing a write", path: path)
        }
    }

    /// Flushes a commit that just returned, where the durability asks Cairn to.
    ///
    /// - Throws: ``StorageError`` `.notFlushed`: the commit stands, its flush failed.
    private func flushCommit() throws(StorageError) {
        do throws(LMDBError) {
            try state.flushCommit()
        } catch {
            let failure = error.storageError(operation: "Flushing a commit to disk", path: path)
            throw StorageError(
                code: .notFlushed,
                message: "The write was committed, but flushing it to disk failed (\(failure.message)): it may not "
                    + "survive a crash or a loss of power. The disk may be failing: back up the store at \(path) "
                    + "to another disk, and check this one.",
                path: path, cause: failure)
        }
    }

    // MARK: Tables

    /// The named table `name`, opened once and cached; `nil` if it does not exist and `create`
    /// is `false` (see ``TableCatalog/open(_:flags:create:)``).
    ///
    /// ```swift
    /// let index = try environment.openTable("i/Book/year", flags: [.duplicateSort, .duplicateFixed], create: true)!
    /// ```
    /// - Throws: ``StorageError`` (`.tooManyTables`, `.readOnly`, `.other` for mismatched flags).
    package func openTable(_ name: String, flags: TableFlags = [], create: Bool = false) throws(StorageError) -> Table?
    {
        try TableCatalog(environment: self).open(name, flags: flags, create: create)
    }

    /// The names of every named table in the store, in byte order (see ``TableCatalog/names()``).
    ///
    /// ```swift
    /// for name in try environment.tableNames() { print(name) }
    /// ```
    package func tableNames() throws -> [String] { try TableCatalog(environment: self).names() }

    /// Runs `body`, which begins its own transaction and holds no gate when it returns, again
    /// after a map change: when another process grew the map (`MDB_MAP_RESIZED`) its size is
    /// adopted; when the map is full (`MDB_MAP_FULL`) it grows. Either may happen several times
    /// in a row; growth doubles, so a bounded number of tries covers any realistic race.
    func retryingMapChanges<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        var tries = 0
        while true {
            do {
                return try body()
            } catch LMDBError.mapResized where tries < Self.maximumResizeRetries {
                tries += 1
                do { try state.absorbResize() } catch { throw LMDBError.mapResized }
            } catch LMDBError.mapFull where tries < Self.maximumResizeRetries {
                tries += 1
                do { try state.grow() } catch { throw LMDBError.mapFull }
            } catch LMDBError.panic where tries < Self.maximumResizeRetries {
                tries += 1
                do { try state.reopen() } catch { throw LMDBError.panic }
            }
        }
    }

    static let maximumResizeRetries = 64

    // MARK: Information

    /// How many of this environment's read transactions wait in its pool still open on their
    /// snapshots (parked: see ``read(_:)``), for tests and diagnostics.
    ///
    /// ```swift
    /// try environment.read { _ in }
    /// print(environment.parkedReaders)   // 1, until a write or `readParkingLimit` unused
    /// ```
    package var parkedReaders: Int { state.readers.parkedCount }

    /// The id of the last transaction committed to the store, by any process: what a context
    /// compares with the commits it has seen before every read (``info`` also counts pages and
    /// readers, which that check does not need).
    ///
    /// ```swift
    /// if environment.lastCommittedTransactionID > lastSeen { … }   // another commit since
    /// ```
    package var lastCommittedTransactionID: Int {
        state.enterShared(nested: ThreadTransactionDepth.current > 0)
        defer { state.leaveShared() }
        var info = MDB_envinfo()
        if let environment = try? state.environment() { mdb_env_info(environment, &info) }
        return info.me_last_txnid
    }

    /// The id of the newest commit a read begun now sees. LMDB writes a commit's meta page before
    /// it publishes the commit's id to readers, so for a moment ``lastCommittedTransactionID``
    /// (read from the meta page) names a commit another process made that a new read does not
    /// see yet. What tells others that a commit can be read, or says what a read will include,
    /// asks this (a parked read transaction makes it cheap while nothing changes).
    ///
    /// ```swift
    /// let visible = environment.readableTransactionID   // a read begun after this sees at least it
    /// ```
    package var readableTransactionID: Int {
        (try? read { Int(truncatingIfNeeded: $0.id) }) ?? lastCommittedTransactionID
    }

    /// The map and transaction state of the environment.
    ///
    /// ```swift
    /// print(environment.info.mapSize)
    /// ```
    package var info: EnvironmentInfo {
        state.enterShared(nested: ThreadTransactionDepth.current > 0)
        defer { state.leaveShared() }
        var info = MDB_envinfo()
        var stat = MDB_stat()
        if let environment = try? state.environment() {
            mdb_env_info(environment, &info)
            mdb_env_stat(environment, &stat)
        }
        return EnvironmentInfo(
            mapSize: info.me_mapsize, lastPage: info.me_last_pgno, lastTransactionID: info.me_last_txnid,
            maximumReaders: Int(info.me_maxreaders), readersInUse: Int(info.me_numreaders),
            pageSize: Int(stat.ms_psize))
    }

    /// Clears the reader slots that processes which have exited still hold (`mdb_reader_check`),
    /// and returns how many it cleared. Storage does this itself when a store opens and when the
    /// reader table is full.
    ///
    /// ```swift
    /// let cleared = try environment.reclaimStaleReaders()
    /// ```
    package func reclaimStaleReaders() throws(StorageError) -> Int {
        state.enterShared(nested: ThreadTransactionDepth.current > 0)
        defer { state.leaveShared() }
        var dead: Int32 = 0
        do throws(LMDBError) {
            mdb_reader_check(try state.environment(), &dead)
        } catch {
            throw error.storageError(operation: "Clearing stale reader slots", path: path)
        }
        return Int(dead)
    }

    /// Closes and reopens the LMDB environment, as Storage does after `MDB_PANIC`. Table
    /// handles stay valid. For tests of that path.
    func reopenForTesting() throws(StorageError) { try state.reopen() }

    func checkProcess() throws(StorageError) {
        guard state.processID == ProcessIdentity.current else {
            throw StorageError(
                code: .usedAfterFork,
                message: "This store was opened by process \(state.processID) before fork(); LMDB environments "
                    + "must not be used in a child process. Open the store again in the child.",
                path: path)
        }
    }

    static let systemPageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `size` rounded up to whole pages (at least two), or the largest whole number of pages an
    /// `Int` holds when that would overflow (a maximum size of `Int.max`).
    static func roundedMapSize(_ size: Int, pageSize: Int) -> Int {
        let pages = max(size, 2 * pageSize).quotientAndRemainder(dividingBy: pageSize)
        let rounded = (pages.quotient + (pages.remainder == 0 ? 0 : 1)).multipliedReportingOverflow(by: pageSize)
        return rounded.overflow ? Int.max / pageSize * pageSize : rounded.partialValue
    }
}

/// The map and transaction state of an environment (`mdb_env_info`).
///
/// ```swift
/// let info = environment.info
/// print(info.mapSize, info.lastTransactionID)
/// ```
package struct EnvironmentInfo: Sendable, Hashable {
    /// The memory map's current size in bytes.
    ///
    /// ```swift
    /// print(environment.info.mapSize)
    /// ```
    package var mapSize: Int
    /// The number of the last page used in the data file.
    ///
    /// ```swift
    /// print(environment.info.lastPage)
    /// ```
    package var lastPage: Int
    /// The id of the last committed write transaction.
    ///
    /// ```swift
    /// let before = environment.info.lastTransactionID
    /// ```
    package var lastTransactionID: Int
    /// The number of reader slots.
    ///
    /// ```swift
    /// print(environment.info.maximumReaders)   // 126
    /// ```
    package var maximumReaders: Int
    /// The number of reader slots used so far (including stale and pooled ones).
    ///
    /// ```swift
    /// print(environment.info.readersInUse)
    /// ```
    package var readersInUse: Int
    /// The page size in bytes.
    ///
    /// ```swift
    /// print(environment.info.pageSize)   // 4096
    /// ```
    package var pageSize: Int
}

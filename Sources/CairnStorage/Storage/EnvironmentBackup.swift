internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LMDBEnvironment {
    /// Writes a verified copy of the store, compacted unless `compact` is `false`, to a new store
    /// directory at `destination` (see ``EnvironmentBackup``).
    ///
    /// ```swift
    /// try environment.backup(to: "/var/backups/Library-2026-11-22.cairn")
    /// ```
    /// - Throws: What ``EnvironmentBackup/write(to:)`` throws.
    package func backup(to destination: String, compact: Bool = true) throws {
        try EnvironmentBackup(self, compact: compact).write(to: destination)
    }
}

/// A copy of an open store in a new store directory: a consistent snapshot taken while writers go
/// on, compacted, flushed to disk and verified before it is called done. Its own type: copying a
/// store is not one of the environment's transactions.
///
/// ```swift
/// try EnvironmentBackup(environment).write(to: "/var/backups/Library-2026-11-22.cairn")
/// ```
package struct EnvironmentBackup {
    let environment: LMDBEnvironment
    /// Whether the copy leaves out free pages and rewrites the tables packed (`MDB_CP_COMPACT`),
    /// or copies the data file page by page, faster and as large.
    let compact: Bool

    /// A backup of `environment`, compacted unless `compact` is `false`.
    package init(_ environment: LMDBEnvironment, compact: Bool = true) {
        self.environment = environment
        self.compact = compact
    }

    /// Writes a copy of the store (compacted unless asked otherwise) to a new store directory at `destination`, and
    /// checks that the copy opens and reads.
    ///
    /// The copy is written to a `0600` temporary file inside a new `0700` directory, flushed to
    /// disk, renamed to `data.mdb`, and then verified: its meta pages are checked and every table
    /// is read from end to end. A failed backup leaves nothing at `destination`.
    ///
    /// ```swift
    /// try EnvironmentBackup(environment).write(to: "/var/backups/Library-2026-11-22.cairn")
    /// ```
    /// - Parameter destination: A path where nothing exists yet.
    /// - Throws: ``StorageError`` `.alreadyExists`, `.diskFull`, `.ioError`, or `.damaged` if the
    ///   copy does not verify.
    /// - Complexity: O(*n*) in the store's size.
    package func write(to destination: String) throws {
        let state = environment.state
        precondition(
            ThreadTransactionDepth.current == 0,
            "EnvironmentBackup.write(to:) was called inside a transaction's closure; finish the transaction first")
        guard !StoreFiles.exists(destination) else {
            throw StorageError(
                code: .alreadyExists,
                message: "Something already exists at the backup path. Choose a new path for each backup.",
                path: destination)
        }
        try StoreFiles.makePrivateDirectory(destination)
        do {
            // Everything inside the new directory is done through its descriptor: were the
            // directory swapped for a link meanwhile, nothing would be written elsewhere.
            let directory = try StoreDirectory.openDirectory(destination)
            defer { closeDescriptor(directory) }
            let partialName = StoreFiles.dataFileName + Self.partialSuffix
            let fd = try StoreFiles.createPrivateFile(named: partialName, in: directory)
            var closed = false
            defer { if !closed { close(fd) } }
            let partial = Self.partialDataFile(in: destination)
            do throws(LMDBError) {
                try environment.retryingMapChanges { () throws(LMDBError) in
                    // The copy runs its own read transaction, so it holds the gate like any reader.
                    state.enterShared(nested: ThreadTransactionDepth.current > 0)
                    defer { state.leaveShared() }
                    guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw LMDBError(errno) }
                    let rc = mdb_env_copyfd2(try state.environment(), fd, compact ? UInt32(MDB_CP_COMPACT) : 0)
                    guard rc == MDB_SUCCESS else { throw LMDBError(rc) }
                }
            } catch {
                throw error.storageError(operation: "Copying the store", path: partial)
            }
            // LMDB numbers a compacted copy's commits from 1 again; Cairn's history needs them to go on.
            if compact { try DataFileValidator(dataFile: partial).continueCommitIDs() }
            guard fsync(fd) == 0 else {
                throw LMDBError(errno).storageError(operation: "Flushing the backup to disk", path: partial)
            }
            closed = true
            guard close(fd) == 0 else {
                throw LMDBError(errno).storageError(operation: "Closing the backup file", path: partial)
            }
            guard renameat(directory, partialName, directory, StoreFiles.dataFileName) == 0 else {
                throw LMDBError(errno).storageError(
                    operation: "Moving the backup into place", path: StoreFiles.dataFile(in: destination))
            }
            guard fsync(directory) == 0 else {
                throw LMDBError(errno).storageError(operation: "Flushing the backup's directory", path: destination)
            }
            try StoreFiles.sync(StoreFiles.parent(of: destination))
            var configuration = environment.configuration
            // The copy carries the envelope as it is now.
            configuration.encryption = environment.secret
            try Self.verifyCopy(at: destination, configuration: configuration)
        } catch {
            StoreFiles.removeDirectory(destination)
            throw error
        }
    }

    /// The file a backup to `destination` writes before it is flushed and moved into place as
    /// the copy's data file: its size tells how far the copy has got.
    ///
    /// ```swift
    /// let written = FileManager.default.attributesOfItem(atPath: EnvironmentBackup.partialDataFile(in: dest))[.size]
    /// ```
    package static func partialDataFile(in destination: String) -> String {
        StoreFiles.dataFile(in: destination) + partialSuffix
    }

    private static let partialSuffix = ".partial"

    /// Opens a copy read-only and reads every entry of every table.
    private static func verifyCopy(at path: String, configuration: StorageConfiguration) throws {
        var copyConfiguration = configuration
        copyConfiguration.path = path
        copyConfiguration.isReadOnly = true
        copyConfiguration.initialMapSize = 0
        let copy = try LMDBEnvironment.open(copyConfiguration)
        let catalog = TableCatalog(environment: copy)
        for name in try catalog.names() {
            // Flags are unknown here; a plain table handle reads duplicate tables' keys too.
            guard let table = try catalog.open(name, flags: try catalog.storedFlags(of: name)) else {
                throw StorageError(
                    code: .damaged,
                    message: "The backup lacks table '\(name)' that its catalogue lists. Take the backup again.",
                    path: path)
            }
            try copy.read { txn in
                var visited = 0
                try txn.scan(table) { _, _ in
                    visited += 1
                    return true
                }
                guard visited == (try txn.count(of: table)) else {
                    throw StorageError(
                        code: .damaged,
                        message: "The backup's table '\(name)' holds \(visited) entries but records a different count. "
                            + "Take the backup again.",
                        path: path)
                }
            }
        }
    }
}

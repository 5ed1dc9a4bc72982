#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Compacts a store in place: its data file is replaced by a compacted copy, so the free pages
/// inside it go back to the file system (`cairn compact`).
///
/// LMDB never shrinks a data file: pages freed by deletes are reused by later writes, but the
/// file keeps its high-water size. A compacted copy (``EnvironmentBackup``: flushed, its commit
/// ids going on from the source's, verified) holds only the pages in use. The copy is made while
/// the store is open as usual; it replaces the data file only under LMDB's exclusive lock (the
/// lock file's first byte, which every process with the store open holds shared, and which makes
/// a process opening the store meanwhile wait), and only if no commit was made since the copy was
/// taken. So no process ever has the old file mapped while the new one takes its place, and no
/// save is lost: a store that another process has open, or writes to meanwhile, is left as it was
/// and the call throws ``StorageError/Code-swift.struct/inUse``.
package enum StoreCompaction {
    /// What compacting did.
    package struct Outcome: Sendable {
        /// The data file's size before and after, in bytes.
        package let bytesBefore: Int
        package let bytesAfter: Int
        /// The commit the compacted store holds (the same as before).
        package let transactionID: UInt64
    }

    /// Compacts the store in `directory`, which no process (this one included) may have open.
    ///
    /// ```swift
    /// let outcome = try StoreCompaction.compact(StorageConfiguration(path: "/data/Library.store"))
    /// print(outcome.bytesBefore, "→", outcome.bytesAfter)
    /// ```
    /// - Throws: ``StorageError`` `.inUse` when another process has the store open or saved while
    ///   the copy was made (nothing changed; try again when it is closed), `.notFound`, `.damaged`,
    ///   and what writing the copy throws (a full disk: the store is left as it was).
    package static func compact(_ configuration: StorageConfiguration) throws -> Outcome {
        try replaceDataFile(configuration) { environment, copy in
            try EnvironmentBackup(environment, compact: true).write(to: copy)
            return DataFileValidator(dataFile: StoreFiles.dataFile(in: copy)).transactionIDs().max() ?? 0
        }
    }

    /// Replaces the data file of the store `configuration` names with a copy that `write`
    /// makes at the path it is given (a new store directory beside the store), from the store
    /// opened writable, and returns the id of the last commit it copied. Nothing is replaced
    /// when another process has the store open or saves to it meanwhile, or this process has
    /// it open; the copy is moved into place with one `rename`, so a crash leaves the old data
    /// file or the new one, whole.
    ///
    /// ```swift
    /// try StoreCompaction.replaceDataFile(configuration) { environment, copy in … }
    /// ```
    /// - Throws: ``StorageError`` `.notFound`, `.inUse`, or what `write` throws.
    package static func replaceDataFile(
        _ configuration: StorageConfiguration, with write: (LMDBEnvironment, String) throws -> UInt64
    ) throws -> Outcome {
        guard StoreFiles.isDirectory(configuration.path), let path = StoreFiles.canonical(configuration.path),
            let registryKey = StoreFiles.identity(of: path)
        else {
            throw StorageError(
                code: .notFound, message: "There is no store directory at this path. Check the path.",
                path: configuration.path)
        }
        // This process first: POSIX locks never conflict with the caller's own, so the lock below
        // cannot tell whether this process has the store open.
        try EnvironmentRegistry.shared.withStoreClosed(registryKey, path: path) {}
        let validator = DataFileValidator(
            directory: path, fullCheckLimit: configuration.fullCheckLimit, mayRepair: false)
        guard !validator.othersHaveTheStoreOpen() else { throw inUse(path) }
        // Copies left by runs that were stopped (their process is gone).
        StoreFiles.removeAbandonedScratchDirectories(in: StoreFiles.parent(of: path), prefix: copyPrefix(for: path))
        let copy = copyDirectory(for: path)
        defer { StoreFiles.removeDirectory(copy) }
        var before = 0
        let copied: UInt64
        do {
            var writable = configuration
            writable.path = path
            writable.isReadOnly = false
            let environment = try LMDBEnvironment.open(writable)
            before = environment.dataFileSize ?? 0
            copied = try write(environment, copy)
        }
        // The environment opened for the copy is released (the registry holds it weakly); while the
        // registry's lock is held no environment of this process can open the store.
        try EnvironmentRegistry.shared.withStoreClosed(registryKey, path: path) {
            try swapIn(copy, for: path, copied: copied, validator: validator)
        }
        let after = LMDBEnvironment.fileSize(StoreFiles.dataFile(in: path)) ?? 0
        return Outcome(bytesBefore: before, bytesAfter: after, transactionID: copied)
    }

    /// Moves the copy's data file over the store's, under LMDB's exclusive lock, when the store
    /// is still at commit `copied`.
    private static func swapIn(_ copy: String, for path: String, copied: UInt64, validator: DataFileValidator) throws {
        let lockPath = StoreFiles.lockFile(in: path)
        let fd = try StoreFiles.openRegularFile(lockPath, flags: O_RDWR, role: "lock file")
        defer { close(fd) }
        var lock = DataFileValidator.exclusiveLock
        guard fcntl(fd, F_SETLK, &lock) == 0 else { throw inUse(path) }
        // Held: no other process has the store open, and none can open it until the descriptor closes.
        guard validator.transactionIDs().max() == copied else {
            throw StorageError(
                code: .inUse,
                message: "Another process saved to the store while it was being copied; nothing was changed. "
                    + "Run this again when no other process uses it.",
                path: path)
        }
        try takeOwnership(of: StoreFiles.dataFile(in: copy), from: StoreFiles.dataFile(in: path))
        guard rename(StoreFiles.dataFile(in: copy), StoreFiles.dataFile(in: path)) == 0 else {
            throw LMDBError(errno).storageError(operation: "Moving the copy into place", path: path)
        }
        // The copy was flushed before it was verified; the directory entry is flushed now
        // (were this to fail, the store is whole either way: old file or new).
        try? StoreFiles.sync(path)
    }

    private static func takeOwnership(of copy: String, from original: String) throws {
        var info = stat()
        guard stat(original, &info) == 0 else {
            throw LMDBError(errno).storageError(operation: "Reading the data file's owner", path: original)
        }
        guard chown(copy, info.st_uid, info.st_gid) == 0 || geteuid() == info.st_uid,
            chmod(copy, info.st_mode & 0o7777) == 0
        else {
            throw LMDBError(errno).storageError(operation: "Giving the compacted copy the store's owner", path: copy)
        }
    }

    /// Where compacting the store at `path` writes its copy, beside the store: for showing its
    /// progress by the copy's size (`EnvironmentBackup.partialDataFile(in:)`).
    ///
    /// ```swift
    /// let copy = StoreCompaction.copyDirectory(for: "/data/Library.store")   // "/data/.Library.store.compacting-4242"
    /// ```
    package static func copyDirectory(for path: String) -> String {
        let path = StoreFiles.canonical(path) ?? path
        return StoreFiles.parent(of: path) + "/" + copyPrefix(for: path) + "\(getpid())"
    }

    private static func copyPrefix(for path: String) -> String {
        ".\(StoreFiles.lastComponent(of: path)).compacting-"
    }

    private static func inUse(_ path: String) -> StorageError {
        StorageError(
            code: .inUse,
            message: "Another process has the store open, and compacting (or encrypting, decrypting or rotating the "
                + "key of) a store replaces its data file. Close the other process and run this again, or back the "
                + "store up with compacting to a new path instead.",
            path: path)
    }
}

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
        guard StoreFiles.isDirectory(configuration.path), let path = StoreFiles.canonical(configuration.path) else {
            throw StorageError(
                code: .notFound, message: "There is no store directory at this path. Check the path.",
                path: configuration.path)
        }
        let validator = DataFileValidator(
            directory: path, fullCheckLimit: configuration.fullCheckLimit, mayRepair: false)
        guard !validator.othersHaveTheStoreOpen() else { throw inUse(path) }
        let name = path.split(separator: "/").last.map(String.init) ?? "store"
        let copy = StoreFiles.parent(of: path) + "/.\(name).compacting-\(getpid())"
        StoreFiles.removeDirectory(copy)  // a copy left by an earlier run that was stopped
        var copied: UInt64 = 0
        var before = 0
        do {
            do {
                var writable = configuration
                writable.path = path
                writable.isReadOnly = false
                let environment = try LMDBEnvironment.open(writable)
                before = environment.dataFileSize ?? 0
                try EnvironmentBackup(environment, compact: true).write(to: copy)
            }
            copied = DataFileValidator(dataFile: StoreFiles.dataFile(in: copy)).transactionIDs().max() ?? 0
            // The environment is closed now (the registry holds it weakly): this process holds no lock on the store.
            let lockPath = StoreFiles.lockFile(in: path)
            let fd = open(lockPath, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else {
                throw StorageError(code: .other, message: "The store's lock file cannot be opened.", path: lockPath)
            }
            defer { close(fd) }
            var lock = DataFileValidator.exclusiveLock
            guard fcntl(fd, F_SETLK, &lock) == 0 else { throw inUse(path) }
            // Held: no process has the store open, and none can open it until the descriptor closes.
            guard validator.transactionIDs().max() == copied else {
                throw StorageError(
                    code: .inUse,
                    message: "Another process saved to the store while it was being compacted; nothing was changed. "
                        + "Compact it again when no other process uses it.",
                    path: path)
            }
            guard rename(StoreFiles.dataFile(in: copy), StoreFiles.dataFile(in: path)) == 0 else {
                throw LMDBError(errno).storageError(operation: "Moving the compacted copy into place", path: path)
            }
            try StoreFiles.sync(path)
        } catch {
            StoreFiles.removeDirectory(copy)
            throw error
        }
        StoreFiles.removeDirectory(copy)
        let after = LMDBEnvironment.fileSize(StoreFiles.dataFile(in: path)) ?? 0
        return Outcome(bytesBefore: before, bytesAfter: after, transactionID: copied)
    }

    private static func inUse(_ path: String) -> StorageError {
        StorageError(
            code: .inUse,
            message: "Another process has the store open, and compacting replaces its data file. Close the other "
                + "process and run this again, or back the store up with compacting to a new path instead.",
            path: path)
    }
}

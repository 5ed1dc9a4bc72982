import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a store directory, and the file-system steps that keep them private and durable.
///
/// A store is a directory (mode `0700`) holding LMDB's `data.mdb` and `lock.mdb` (mode `0600`),
/// whatever the process's umask: `umask` can only remove permission bits, so files are created
/// `0600` and then set to `0600` explicitly, and the directory is `chmod`ed after `mkdir`.
enum StoreFiles {
    static let dataFileName = "data.mdb"
    static let lockFileName = "lock.mdb"
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    static func dataFile(in directory: String) -> String { directory + "/" + dataFileName }
    static func lockFile(in directory: String) -> String { directory + "/" + lockFileName }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` names a regular file (following symbolic links).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The absolute path with symbolic links resolved, for an existing path.
    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The file system's identity of a path (device and inode), or `nil` if it does not exist:
    /// two paths reach the same files exactly when their identities are equal, whatever links or
    /// mounts lead to them.
    static func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }

    static func parent(of path: String) -> String {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    static func makePrivateDirectory(_ path: String) throws(StorageError) {
        guard mkdir(path, directoryMode) == 0 else {
            throw LMDBError(errno).storageError(operation: "Creating the store directory", path: path)
        }
        try setMode(directoryMode, of: path)
    }

    /// Creates a new file, mode `0600` whatever the umask, and returns its descriptor.
    static func createPrivateFile(_ path: String) throws(StorageError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            throw LMDBError(errno).storageError(operation: "Creating a file", path: path)
        }
        guard fchmod(fd, fileMode) == 0 else {
            let code = errno
            close(fd)
            throw LMDBError(code).storageError(operation: "Making a file private", path: path)
        }
        return fd
    }

    static func setMode(_ mode: mode_t, of path: String) throws(StorageError) {
        guard chmod(path, mode) == 0 else {
            throw LMDBError(errno).storageError(operation: "Making the store's files private", path: path)
        }
    }

    /// Flushes a file or directory (a directory flush makes a rename in it durable).
    static func sync(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw LMDBError(errno).storageError(operation: "Opening a file to flush it", path: path)
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw LMDBError(errno).storageError(operation: "Flushing a file to disk", path: path)
        }
    }

    /// Removes a directory and the files directly inside it (stores have no subdirectories).
    static func removeDirectory(_ path: String) {
        for name in entries(of: path) { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// The prefix of the scratch directories new stores are built in (see `LMDBEnvironment.create`).
    static let scratchPrefix = ".cairn-creating-"

    /// Removes scratch directories in `parent` left by processes that died while creating a
    /// store (or compacting one, with its own `prefix`). A scratch directory is named
    /// `<prefix><pid>` or `<prefix><pid>-<random>`; only those whose process no longer exists are
    /// removed.
    static func removeAbandonedScratchDirectories(in parent: String, prefix: String = scratchPrefix) {
        for name in entries(of: parent) where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }) else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { removeDirectory(parent + "/" + name) }
        }
    }

    /// The names in a directory (without `.` and `..`), or none if it cannot be read.
    static func entries(of directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Whether the directory exists and holds no entries.
    static func isEmptyDirectory(_ path: String) -> Bool {
        isDirectory(path) && entries(of: path).isEmpty
    }
}

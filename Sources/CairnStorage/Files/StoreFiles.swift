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
///
/// The directory around a store may be writable by others (see `Docs/Security.md`), so every step
/// here examines entries without following a symbolic link, opens files without blocking on a
/// FIFO, creates files exclusively, and removes only directories it can prove are Cairn's own.
package enum StoreFiles {
    static let dataFileName = "data.mdb"
    static let lockFileName = "lock.mdb"
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    static func dataFile(in directory: String) -> String { directory + "/" + dataFileName }
    static func lockFile(in directory: String) -> String { directory + "/" + lockFileName }

    /// Whether anything, a dangling symbolic link included, is at `path`.
    static func exists(_ path: String) -> Bool { FileEntry(at: path) != .missing }

    /// Whether `path` names a directory (following symbolic links: the path the app gave).
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

    static func lastComponent(of path: String) -> String {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }

    /// Creates a new directory, mode `0700` whatever the umask. `mkdir` never follows a link, and
    /// the mode is set through a descriptor of the directory just made.
    static func makePrivateDirectory(_ path: String) throws(StorageError) {
        guard mkdir(path, directoryMode) == 0 else {
            throw LMDBError(errno).storageError(operation: "Creating the store directory", path: path)
        }
        let fd = try StoreDirectory.openDirectory(path)
        defer { closeDescriptor(fd) }
        guard fchmod(fd, directoryMode) == 0 else {
            throw LMDBError(errno).storageError(operation: "Making the store directory private", path: path)
        }
    }

    /// Creates the new file `name` in the directory open as `directory`, mode `0600` whatever the
    /// umask, and returns its descriptor: never through a link, never over an existing entry.
    static func createPrivateFile(named name: String, in directory: Int32) throws(StorageError) -> Int32 {
        let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            throw LMDBError(errno).storageError(operation: "Creating a file", path: name)
        }
        guard fchmod(fd, fileMode) == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw LMDBError(code).storageError(operation: "Making a file private", path: name)
        }
        return fd
    }

    /// Sets the mode of the regular file at `path`, refusing a link or special file there.
    static func setMode(_ mode: mode_t, of path: String) throws(StorageError) {
        let fd = try openRegularFile(path, flags: O_RDONLY, role: "file")
        defer { closeDescriptor(fd) }
        guard fchmod(fd, mode) == 0 else {
            throw LMDBError(errno).storageError(operation: "Making the store's files private", path: path)
        }
    }

    /// Opens the existing regular file at `path`: never through a symbolic link (`O_NOFOLLOW`),
    /// never blocking on a FIFO (`O_NONBLOCK` until the descriptor is known to be a regular
    /// file), and refusing a directory, link, FIFO, socket or device with a typed error.
    ///
    /// - Parameter role: What the file is to the store ("data file"), for the error's message.
    static func openRegularFile(_ path: String, flags: Int32, role: String) throws(StorageError) -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let entry = FileEntry(at: path)
            if entry != .regularFile && entry != .missing && entry != .unknown {
                throw entry.refusal(at: path, role: role)
            }
            if code == ENOENT {
                throw StorageError(
                    code: .notFound, message: "The store's \(role) is missing. Check the path.", path: path,
                    cause: LMDBError(code))
            }
            throw LMDBError(code).storageError(operation: "Opening the store's \(role)", path: path)
        }
        var info = stat()
        let entry = fstat(fd, &info) == 0 ? FileEntry(mode: info.st_mode) : .unknown
        guard entry == .regularFile else {
            closeDescriptor(fd)
            throw entry.refusal(at: path, role: role)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Flushes a regular file or a directory (a directory flush makes a rename in it durable),
    /// without following a link to either.
    static func sync(_ path: String) throws(StorageError) {
        let fd: Int32
        if FileEntry(at: path) == .directory {
            fd = try StoreDirectory.openDirectory(path)
        } else {
            fd = try openRegularFile(path, flags: O_RDONLY, role: "file")
        }
        defer { closeDescriptor(fd) }
        guard fsync(fd) == 0 else {
            throw LMDBError(errno).storageError(operation: "Flushing a file to disk", path: path)
        }
    }

    /// Flushes an open file to the drive's stable storage: `F_FULLFSYNC` on Apple platforms
    /// (`fsync` there leaves writes in the drive's cache; a file system without `F_FULLFSYNC`
    /// gets `fsync`, as SQLite does), `fdatasync` elsewhere.
    static func flushToStableStorage(_ fd: Int32) throws(LMDBError) {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        guard errno == ENOTSUP || errno == EINVAL || errno == ENOTTY, fsync(fd) == 0 else { throw LMDBError(errno) }
        #else
        guard fdatasync(fd) == 0 else { throw LMDBError(errno) }
        #endif
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

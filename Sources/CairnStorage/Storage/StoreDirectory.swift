internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store directory held open by descriptor while LMDB opens its files, so that nothing
/// planted in or around it can redirect what LMDB opens, creates or overwrites.
///
/// LMDB opens `data.mdb` and `lock.mdb` by name, with `O_CREAT` and without `O_NOFOLLOW`, and
/// writes the lock file's header even for a read-only open. So before `mdb_env_open`:
/// - the directory is opened without following a link (`O_NOFOLLOW`) and must belong to this
///   process's user (or to root) and be writable by no one else: only its owner could then plant
///   an entry in it, and the owner can write the store anyway;
/// - each file that exists must be a regular file (`lstat`: not a link, FIFO, socket, device or
///   directory), and a missing lock file is created here, exclusively and without following a link;
/// - LMDB is given the path of the open descriptor (`/proc/self/fd/N` on Linux), so a directory
///   swapped for another after these checks is not the one it opens.
///
/// After `mdb_env_open`, ``confirm(_:)`` checks that the data file LMDB opened is the regular file
/// examined here. See `Docs/Security.md` for the threat model.
///
/// ```swift
/// let directory = try StoreDirectory(path)
/// let rc = mdb_env_open(environment, directory.lmdbPath, flags, StoreFiles.fileMode)
/// try directory.confirm(environment)
/// ```
struct StoreDirectory: ~Copyable {
    let path: String
    let descriptor: Int32
    /// The path handed to LMDB: the descriptor's own where the system has one, else `path`.
    let lmdbPath: String

    /// Opens and checks the store directory at `path`, creating its lock file if it is missing.
    init(_ path: String) throws(StorageError) {
        let descriptor = try Self.openDirectory(path)
        do throws(StorageError) {
            try Self.checkOwnership(descriptor, path: path)
            try Self.checkFile(StoreFiles.dataFileName, role: "data file", in: descriptor, path: path)
            try Self.prepareLockFile(in: descriptor, path: path)
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
        lmdbPath = Self.descriptorPath(descriptor) ?? path
    }

    deinit { closeDescriptor(descriptor) }

    /// Checks the store directory at `path` (owner, mode, and that each of its files is missing or
    /// a regular file) without creating or changing anything: before the data file is read.
    static func examine(_ path: String) throws(StorageError) {
        let descriptor = try openDirectory(path)
        defer { closeDescriptor(descriptor) }
        try checkOwnership(descriptor, path: path)
        try checkFile(StoreFiles.dataFileName, role: "data file", in: descriptor, path: path)
        try checkFile(StoreFiles.lockFileName, role: "lock file", in: descriptor, path: path)
    }

    /// Checks, after LMDB opened the store, that the data file it opened is the regular file in
    /// this directory, and that the lock file is still a regular file.
    func confirm(_ environment: OpaquePointer) throws(StorageError) {
        var opened = stat(), named = stat()
        var fd: mdb_filehandle_t = -1
        guard mdb_env_get_fd(environment, &fd) == MDB_SUCCESS, fstat(fd, &opened) == 0,
            fstatat(descriptor, StoreFiles.dataFileName, &named, AT_SYMLINK_NOFOLLOW) == 0,
            FileEntry(mode: named.st_mode) == .regularFile,
            opened.st_dev == named.st_dev, opened.st_ino == named.st_ino
        else {
            throw StorageError(
                code: .unsafeFile,
                message: "The store's data file was replaced while the store was being opened, so what was opened "
                    + "is not the file that was checked. Nothing was written to it. Make sure no other program "
                    + "changes the store's directory, then open the store again.",
                path: StoreFiles.dataFile(in: path))
        }
        let lock = FileEntry(named: StoreFiles.lockFileName, in: descriptor)
        guard lock == .regularFile || lock == .missing else {
            throw lock.refusal(at: StoreFiles.lockFile(in: path), role: "lock file")
        }
    }

    /// The file `name` must be missing or a regular file.
    private static func checkFile(_ name: String, role: String, in descriptor: Int32, path: String) throws(StorageError) {
        let entry = FileEntry(named: name, in: descriptor)
        guard entry == .missing || entry == .regularFile else {
            throw entry.refusal(at: path + "/" + name, role: role)
        }
    }

    /// Checks the lock file, and creates it `0600` when it is missing: exclusively and without
    /// following a link, so that LMDB's own `O_CREAT` open finds a regular file in its place.
    private static func prepareLockFile(in descriptor: Int32, path: String) throws(StorageError) {
        let name = StoreFiles.lockFileName
        try checkFile(name, role: "lock file", in: descriptor, path: path)
        guard FileEntry(named: name, in: descriptor) == .missing else { return }
        let fd = openat(descriptor, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, StoreFiles.fileMode)
        if fd >= 0 {
            _ = fchmod(fd, StoreFiles.fileMode)
            closeDescriptor(fd)
        } else if errno == EEXIST {
            try checkFile(name, role: "lock file", in: descriptor, path: path)  // made meanwhile by another process
        }
        // Other failures (a read-only file system, no permission) are LMDB's to report as it opens.
    }

    /// Opens `path` as a directory without following a final symbolic link.
    static func openDirectory(_ path: String) throws(StorageError) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd < 0 else { return fd }
        let code = errno
        let entry = FileEntry(at: path)
        switch entry {
        case .missing:
            throw StorageError(
                code: .notFound,
                message: "There is no store directory at this path. Check the path, or create the store.", path: path)
        case .directory:
            throw LMDBError(code).storageError(operation: "Opening the store's directory", path: path)
        case .regularFile:
            throw StorageError(
                code: .isDirectory,
                message: "A store is a directory, but this path is a file. Point the store at its directory, or "
                    + "choose a path where nothing exists to create one.",
                path: path)
        default:
            throw entry.refusal(at: path, role: "directory")
        }
    }

    /// Refuses a directory of another user, or one that others may write to: its owner (or they)
    /// could swap a checked file for a link between the check and LMDB's open.
    private static func checkOwnership(_ descriptor: Int32, path: String) throws(StorageError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LMDBError(errno).storageError(operation: "Examining the store's directory", path: path)
        }
        let user = geteuid()
        if info.st_uid != user && info.st_uid != 0 {
            throw StorageError(
                code: .unsafeFile,
                message: "The store's directory belongs to user \(info.st_uid), not to this process's user (\(user)). "
                    + "Its owner could replace the store's files with links while Cairn opens them, so Cairn opens "
                    + "stores only as their owner: run as that user (for the command-line tool, sudo -u "
                    + "'#\(info.st_uid)' cairn …), or copy the store.",
                path: path)
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw StorageError(
                code: .unsafeFile,
                message: "The store's directory may be written by other users (mode "
                    + "\(String(info.st_mode & 0o7777, radix: 8))), who could plant links among its files. Cairn "
                    + "creates it 0700: make it so again (chmod 700), then open the store.",
                path: path)
        }
    }

    /// The path that names the directory open as `descriptor` itself (Linux's `/proc/self/fd/N`),
    /// or `nil` where the system offers none.
    private static func descriptorPath(_ descriptor: Int32) -> String? {
        #if os(Linux)
        let candidate = "/proc/self/fd/\(descriptor)"
        var viaPath = stat(), opened = stat()
        guard stat(candidate, &viaPath) == 0, fstat(descriptor, &opened) == 0,
            viaPath.st_dev == opened.st_dev, viaPath.st_ino == opened.st_ino
        else { return nil }
        return candidate
        #else
        return nil
        #endif
    }
}

/// `close(2)`, by a name that members called `close` cannot shadow.
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

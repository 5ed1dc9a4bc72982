#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the file system holds at a path, examined without following a symbolic link there
/// (`lstat`): the first question Cairn asks of any entry in a directory others may write to.
///
/// ```swift
/// if FileEntry(at: lockPath) == .symbolicLink { throw FileEntry.symbolicLink.refusal(at: lockPath, role: "lock file") }
/// ```
enum FileEntry: Equatable, Sendable {
    case missing, regularFile, directory, symbolicLink, fifo, socket, device, unknown

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR, S_IFBLK: self = .device
        default: self = .unknown
        }
    }

    /// The entry at `path`, not following a final symbolic link. An entry that cannot be
    /// examined (a directory on the way that may not be searched) reads as `unknown`.
    init(at path: String) {
        var info = stat()
        if lstat(path, &info) == 0 {
            self.init(mode: info.st_mode)
        } else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .unknown
        }
    }

    /// The entry named `name` in the directory open as `directory`, not following a link.
    init(named name: String, in directory: Int32) {
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            self.init(mode: info.st_mode)
        } else {
            self = errno == ENOENT ? .missing : .unknown
        }
    }

    /// The entry's kind in words, for messages: "a symbolic link", "a FIFO".
    var phrase: String {
        switch self {
        case .missing: "missing"
        case .regularFile: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .device: "a device"
        case .unknown: "an entry that cannot be examined"
        }
    }

    /// The typed error for finding this entry where a regular file (`role`, such as "data
    /// file") should be: `isDirectory` for a directory, `unsafeFile` for a link or a special file.
    func refusal(at path: String, role: String) -> StorageError {
        if self == .directory {
            return StorageError(
                code: .isDirectory,
                message: "The store's \(role) is a directory, not a file. Cairn does not open it. Point the store at "
                    + "the directory that holds \(role == "data file" ? "data.mdb" : "the store's files"), or, while "
                    + "no process uses the store, remove the directory that stands in the file's place.",
                path: path)
        }
        return StorageError(
            code: .unsafeFile,
            message: "The store's \(role) is \(phrase), not a regular file. Cairn never follows links or opens "
                + "special files among a store's files, because whoever planted it could make the store read or "
                + "overwrite another file. While no process uses the store, remove it (and put the real file back "
                + "if one was moved away), then open the store again.",
            path: path)
    }
}

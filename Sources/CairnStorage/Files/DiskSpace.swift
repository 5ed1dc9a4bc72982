#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the file system and the process's limits leave for a store's files to grow into.
///
/// LMDB reports a write that ran out of space part-way as `EIO` (its page flush treats a short
/// write as an input/output error), and a write past the process's file-size limit
/// (`RLIMIT_FSIZE`, `ulimit -f`) either kills the process with `SIGXFSZ` or fails. So before an
/// `EIO` is reported as an input/output error, the free space and the file-size limit are
/// checked, and the map never grows past the file-size limit: LMDB then reports a full map
/// before it writes past the limit, which Cairn reports as a full disk.
enum DiskSpace {
    /// Below this much free space, a failed write is taken for a full disk: a write that ran out
    /// of room leaves next to nothing, and a disk this full fails the next commit anyway.
    static let nearlyFull = 1 << 20

    /// The bytes an unprivileged process may still write on the file system holding `path`.
    static func availableBytes(at path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = Int(clamping: info.f_bavail).multipliedReportingOverflow(
            by: Int(clamping: info.f_frsize))
        return overflow ? Int.max : bytes
    }

    /// The process's file-size limit in bytes, or `nil` when there is none.
    static func fileSizeLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Why a failed write in the store at `path` (its directory or data file) was most likely a
    /// full disk, or `nil` when space and limits look fine.
    static func exhaustion(at path: String) -> String? {
        if let available = availableBytes(at: path), available < nearlyFull {
            return "the disk holding the store has \(available) bytes free. Free some space and save again; "
                + "earlier commits are intact."
        }
        if let limit = fileSizeLimit() {
            let data = StoreFiles.isDirectory(path) ? StoreFiles.dataFile(in: path) : path
            var info = stat()
            if stat(data, &info) == 0, Int(info.st_size) + nearlyFull >= limit {
                return "the data file reached the process's file-size limit (RLIMIT_FSIZE, `ulimit -f`) of \(limit) "
                    + "bytes. Raise the limit or delete data, then save again; earlier commits are intact."
            }
        }
        return nil
    }
}

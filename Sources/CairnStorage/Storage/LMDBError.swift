internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A return code from an `mdb_*` call, inside Storage only.
///
/// Storage turns these into ``StorageError`` at its boundary (see `storageError(operation:path:)`);
/// no other layer sees an LMDB code.
struct LMDBError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C return code: an LMDB code (negative) or an `errno` value (positive).
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The corresponding C error is `MDB_KEYEXIST`.
    static let keyExists = LMDBError(MDB_KEYEXIST)
    /// The corresponding C error is `MDB_NOTFOUND`.
    static let notFound = LMDBError(MDB_NOTFOUND)
    /// The corresponding C error is `MDB_PAGE_NOTFOUND`.
    static let pageNotFound = LMDBError(MDB_PAGE_NOTFOUND)
    /// The corresponding C error is `MDB_CORRUPTED`.
    static let corrupted = LMDBError(MDB_CORRUPTED)
    /// The corresponding C error is `MDB_PANIC`.
    static let panic = LMDBError(MDB_PANIC)
    /// The corresponding C error is `MDB_VERSION_MISMATCH`.
    static let versionMismatch = LMDBError(MDB_VERSION_MISMATCH)
    /// The corresponding C error is `MDB_INVALID`.
    static let invalid = LMDBError(MDB_INVALID)
    /// The corresponding C error is `MDB_MAP_FULL`.
    static let mapFull = LMDBError(MDB_MAP_FULL)
    /// The corresponding C error is `MDB_DBS_FULL`.
    static let tablesFull = LMDBError(MDB_DBS_FULL)
    /// The corresponding C error is `MDB_READERS_FULL`.
    static let readersFull = LMDBError(MDB_READERS_FULL)
    /// The corresponding C error is `MDB_TXN_FULL`.
    static let transactionFull = LMDBError(MDB_TXN_FULL)
    /// The corresponding C error is `MDB_CURSOR_FULL`.
    static let cursorFull = LMDBError(MDB_CURSOR_FULL)
    /// The corresponding C error is `MDB_PAGE_FULL`.
    static let pageFull = LMDBError(MDB_PAGE_FULL)
    /// The corresponding C error is `MDB_MAP_RESIZED`.
    static let mapResized = LMDBError(MDB_MAP_RESIZED)
    /// The corresponding C error is `MDB_INCOMPATIBLE`.
    static let incompatible = LMDBError(MDB_INCOMPATIBLE)
    /// The corresponding C error is `MDB_BAD_RSLOT`.
    static let badReaderSlot = LMDBError(MDB_BAD_RSLOT)
    /// The corresponding C error is `MDB_BAD_TXN`.
    static let badTransaction = LMDBError(MDB_BAD_TXN)
    /// The corresponding C error is `MDB_BAD_VALSIZE`.
    static let badValueSize = LMDBError(MDB_BAD_VALSIZE)
    /// The corresponding C error is `MDB_BAD_DBI`.
    static let badTable = LMDBError(MDB_BAD_DBI)

    /// LMDB's own text for the code (`mdb_strerror`, which also covers `errno` values).
    var description: String {
        "\(String(cString: mdb_strerror(rawValue))) (\(rawValue))"
    }

    /// Whether this code poisons the write transaction it happened in: LMDB marks the transaction
    /// as failed, and every later call in it would report `MDB_BAD_TXN` instead of the real cause.
    var poisonsTransaction: Bool {
        ![MDB_NOTFOUND, MDB_KEYEXIST, MDB_BAD_VALSIZE, MDB_INCOMPATIBLE].contains(rawValue)
    }

    /// This code as the public error, with a message that says how to fix it.
    func storageError(operation: String, path: String?) -> StorageError {
        // LMDB reports a write cut short by a full disk or a file-size limit as EIO.
        if rawValue == EIO || rawValue == MDB_PANIC, let path, let exhaustion = DiskSpace.exhaustion(at: path) {
            cairnLog.notice("Store \(path): \(operation) failed: \(exhaustion)")
            return StorageError(code: .diskFull, message: "\(operation) failed: \(exhaustion)", path: path, cause: self)
        }
        let (code, remedy) = classification
        if code == .diskFull { cairnLog.notice("Store \(path ?? "?"): \(operation) failed: \(remedy)") }
        return StorageError(
            code: code, message: "\(operation) failed: \(remedy)", path: path, cause: self)
    }

    private var classification: (StorageError.Code, String) {
        // Switch on the C code: a `.name` pattern here could also resolve to StorageError.Code's
        // public `~=`, which matches nothing, because both types have members of the same name.
        switch rawValue {
        case MDB_MAP_FULL:
            return (
                .maximumSizeReached,
                "the store reached its configured maximum size. Raise the maximum size or delete data."
            )
        case MDB_TXN_FULL:
            return (
                .transactionTooLarge,
                "one write touched more pages than a transaction can hold. Write the data in smaller chunks."
            )
        case MDB_READERS_FULL:
            return (
                .tooManyReaders,
                "every reader slot is in use. Raise the maximum number of readers, or use fewer threads or processes at once."
            )
        case MDB_DBS_FULL:
            return (
                .tooManyTables,
                "the store needs more named tables than it was configured for. Raise the maximum number of tables."
            )
        case MDB_VERSION_MISMATCH:
            return (
                .versionMismatch,
                "the file was written by an incompatible version of LMDB. Open it with the release that wrote it and export the data."
            )
        case MDB_INVALID, MDB_CORRUPTED, MDB_PAGE_NOTFOUND:
            return (
                .damaged,
                "the store's data file is damaged or is not a store. Restore it from a backup."
            )
        case MDB_BAD_VALSIZE:
            return (
                .invalidSize,
                "a key is empty or longer than 511 bytes, or a value is too large. Shorten the key or value."
            )
        case MDB_PANIC:
            return (
                .ioError,
                "the storage engine stopped after a fatal error and was reopened. Retry the operation; earlier commits are intact."
            )
        case ENOSPC, EFBIG, EDQUOT:
            return (
                .diskFull,
                "the disk or the file-size limit is full. Free some space and retry; earlier commits are intact."
            )
        case EIO:
            return (
                .ioError,
                "the operating system reported an input/output error. Check the disk and retry; earlier commits are intact."
            )
        case EACCES, EPERM:
            return (
                .permissionDenied,
                "the process may not access the store's files. Make them readable and writable by this user."
            )
        case EROFS:
            return (
                .readOnly,
                "the store is on a read-only file system. Open it read-only or move it to a writable location."
            )
        case ENOENT:
            return (.notFound, "a file of the store does not exist. Check the path.")
        case ENOMEM:
            return (
                .other,
                "the process could not map the store into memory. Lower the maximum size or free address space."
            )
        default:
            return (.other, "\(description). Report this with the message if it persists.")
        }
    }
}

/// The one funnel for `mdb_*` return codes.
///
/// - Returns: `true` on success, `false` for `MDB_NOTFOUND` (absence is an Optional upstream, never
///   an error).
/// - Throws: ``LMDBError`` for every other failure.
/// - Precondition: codes that can only mean a bug in Cairn (`MDB_BAD_TXN`, `MDB_BAD_DBI`) stop the
///   process with the name of the call, instead of being reported as a user's problem.
@inline(__always)
func lmdbCheck(_ rc: Int32, _ call: StaticString) throws(LMDBError) -> Bool {
    if rc == MDB_SUCCESS { return true }
    if rc == MDB_NOTFOUND { return false }
    precondition(rc != MDB_BAD_DBI, "\(call) used a table handle that is not open in this environment")
    precondition(rc != MDB_BAD_TXN, "\(call) used a transaction that already failed or finished")
    throw LMDBError(rc)
}

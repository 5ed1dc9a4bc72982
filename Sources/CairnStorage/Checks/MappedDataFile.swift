#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only view of an LMDB data file for checking it before (or apart from) LMDB.
///
/// The file is mapped privately for reading, exactly as long as it is when mapped, and every
/// access is bounds-checked: a page past the end of the file is an error, never a `SIGBUS`, and
/// every field read from a page checks its offset against the page. LMDB itself is not involved,
/// so nothing here can crash on damaged bytes.
///
/// LMDB only ever grows the data file, so the mapped range stays backed while the view lives.
final class MappedDataFile {
    let path: String
    let fileSize: Int
    private let base: UnsafeRawPointer?
    private let descriptor: Int32

    /// Maps the data file at `path`.
    ///
    /// - Throws: ``StorageError`` `.notFound` when there is no file, `.unsafeFile` or `.isDirectory`
    ///   when it is a link, a special file or a directory, or the code of the system error.
    convenience init(path: String) throws(StorageError) {
        let fd: Int32
        do throws(StorageError) {
            fd = try StoreFiles.openRegularFile(path, flags: O_RDONLY, role: "data file")
        } catch where error.code == .notFound {
            throw StorageError(
                code: .notFound,
                message: "There is no data file. Check the path, or create the store instead of opening it.",
                path: path)
        }
        try self.init(ownedDescriptor: fd, path: path)
    }

    /// Maps the file an open descriptor refers to (an open store's own), whatever has happened
    /// to its path since; the descriptor is duplicated, not taken.
    convenience init(duplicating descriptor: Int32, path: String) throws(StorageError) {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw LMDBError(errno).storageError(operation: "Reading the data file", path: path) }
        try self.init(ownedDescriptor: fd, path: path)
    }

    private init(ownedDescriptor fd: Int32, path: String) throws(StorageError) {
        self.path = path
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw LMDBError(code).storageError(operation: "Reading the data file's size", path: path)
        }
        descriptor = fd
        fileSize = Int(info.st_size)
        guard fileSize > 0 else {
            base = nil
            return
        }
        guard let mapped = mmap(nil, fileSize, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            let code = errno
            close(fd)
            throw LMDBError(code).storageError(operation: "Mapping the data file to check it", path: path)
        }
        base = UnsafeRawPointer(mapped)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), fileSize) }
        close(descriptor)
    }

    /// The `count` bytes at `offset`, or an error naming what they were for when the file ends first.
    func bytes(at offset: Int, count: Int, for purpose: @autoclosure () -> String) throws(StorageError) -> PageView {
        guard let base, offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else {
            throw StorageError(
                code: .damaged,
                message: "The store cannot be opened: the data file is \(fileSize) bytes and ends inside "
                    + "\(purpose()). It is truncated; restore it from a backup.",
                path: path)
        }
        handedOut &+= count
        if handedOut >= Self.residentLimit {
            // A walk reads each page about once: let the kernel take back what it has mapped so
            // far, so checking a large file never holds more than this much of it resident. The
            // mapping is read-only and shared, backed by the file: a page read again (by a view
            // still held, or a page visited twice) is mapped again, unchanged.
            handedOut = 0
            _ = madvise(UnsafeMutableRawPointer(mutating: base), fileSize, MADV_DONTNEED)
        }
        return PageView(base: base + offset, size: count)
    }

    /// Bytes of the file handed out since its mapped pages were last given back.
    private var handedOut = 0
    /// How much of the file a walk keeps resident at most, about.
    private static let residentLimit = 8 << 20
}

/// A bounds-checked window on bytes of a data file: a page, a meta page, or a sub-page inside a
/// node. Fields are little-endian, as LMDB writes them on the platforms Cairn supports.
struct PageView {
    let base: UnsafeRawPointer
    let size: Int

    /// Whether `count` bytes at `offset` lie inside the view.
    @inline(__always)
    func contains(_ offset: Int, _ count: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= size && count <= size - offset
    }

    @inline(__always)
    func u16(_ offset: Int) throws(PageFault) -> UInt16 { try load(offset) }
    @inline(__always)
    func u32(_ offset: Int) throws(PageFault) -> UInt32 { try load(offset) }
    @inline(__always)
    func u64(_ offset: Int) throws(PageFault) -> UInt64 { try load(offset) }

    @inline(__always)
    private func load<T: FixedWidthInteger>(_ offset: Int) throws(PageFault) -> T {
        guard contains(offset, MemoryLayout<T>.size) else { throw PageFault("a field lies outside its page") }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The `count` bytes at `offset` as a buffer that borrows the view's memory.
    func slice(_ offset: Int, _ count: Int) throws(PageFault) -> UnsafeRawBufferPointer {
        guard contains(offset, count) else { throw PageFault("a key or value runs past its page") }
        return UnsafeRawBufferPointer(start: base + offset, count: count)
    }

    /// A sub-view of `count` bytes at `offset`.
    func view(_ offset: Int, _ count: Int) throws(PageFault) -> PageView {
        guard contains(offset, count) else { throw PageFault("an embedded page runs past its page") }
        return PageView(base: base + offset, size: count)
    }

    /// Whether every byte from `offset` to the end is zero.
    func isZero(from offset: Int) -> Bool {
        guard offset < size else { return true }
        return UnsafeRawBufferPointer(start: base + offset, count: size - offset).allSatisfy { $0 == 0 }
    }
}

/// What is wrong with a page, found while reading it; the walker adds where.
struct PageFault: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks an existing LMDB data file with plain reads before LMDB maps it.
///
/// LMDB 0.9.24 keeps no page checksums and trusts its meta pages: a zero `psize` divides by zero
/// (SIGFPE), a root or last page beyond the end of the file faults when touched (SIGBUS), a
/// damaged transaction id silently selects an old snapshot whose pages may have been reused, and a
/// zero-length file is taken for a new store. So before `mdb_env_open` sees a file, this checks
/// the file size and both meta pages field by field (see `Docs/Design.md`, "Files and tables"),
/// and the root page of each of the two B-trees the chosen meta page points at.
///
/// The layout is LMDB 0.9.x's on 64-bit platforms: a 16-byte page header followed by `MDB_meta`.
struct DataFileValidator {
    /// What the chosen (newest) meta page says, for diagnostics and for sizing the map.
    struct Summary: Equatable {
        var pageSize: Int
        var lastPage: UInt64
        var transactionID: UInt64
        var mapSize: UInt64
        var fileSize: Int
    }

    static let magic: UInt32 = 0xBEEF_C0DE
    static let dataVersion: UInt32 = 1
    static let headerSize = 16
    /// `P_BRANCH`, `P_LEAF`, `P_OVERFLOW`, `P_META` from `mdb.c`.
    static let branchFlag: UInt16 = 0x01, leafFlag: UInt16 = 0x02, metaFlag: UInt16 = 0x08
    static let invalidPage = UInt64.max
    /// Byte offsets inside a meta page (page header included).
    enum Offset {
        static let pageNumber = 0, pad = 8, flags = 10, lower = 12, upper = 14
        static let magic = 16, version = 20, address = 24, mapSize = 32
        static let freeDB = 40, mainDB = 88, lastPage = 136, transactionID = 144
        static let end = 152
    }
    /// Offsets inside an `MDB_db` (48 bytes).
    enum DBOffset {
        static let pad = 0, flags = 4, depth = 6, branchPages = 8, leafPages = 16
        static let overflowPages = 24, entries = 32, root = 40
    }

    let path: String

    /// Validates the file at `path`.
    ///
    /// Another process may commit while the file is read, so damage is reported only when two
    /// passes in a row find the same fault.
    ///
    /// - Throws: ``StorageError`` `.notFound` when there is no file, `.damaged` for a zero-length,
    ///   truncated or damaged file, `.versionMismatch` for another LMDB data version.
    func validate() throws(StorageError) -> Summary {
        var previous: String?
        var attempts = 0
        while true {
            do {
                return try validateOnce()
            } catch  where error.code == .damaged && error.message != previous && attempts < 5 {
                previous = error.message
                attempts += 1
                usleep(2000)
            }
        }
    }

    private func validateOnce() throws(StorageError) -> Summary {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT {
                throw StorageError(
                    code: .notFound,
                    message: "There is no data file. Check the path, or create the store instead of opening it.",
                    path: path)
            }
            throw LMDBError(code).storageError(operation: "Reading the data file", path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw LMDBError(errno).storageError(operation: "Reading the data file's size", path: path)
        }
        let fileSize = Int(info.st_size)
        guard fileSize > 0 else {
            throw damaged(
                "the data file is empty (0 bytes). An empty file is never treated as a new store: "
                    + "if it was being created, delete the store directory and create it again; "
                    + "otherwise restore it from a backup.")
        }
        guard fileSize >= 2 * 512 else {
            throw damaged(
                "the data file is \(fileSize) bytes, too short to hold LMDB's two meta pages. "
                    + "It is truncated or not a store; restore it from a backup.")
        }

        // The first meta page tells the page size; read the minimum first, then whole pages.
        let first = try read(fd: fd, offset: 0, count: min(fileSize, 4096))
        let pageSize = Int(first.uint32(at: Offset.freeDB + DBOffset.pad))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw damaged(
                "meta page 0 gives a page size of \(pageSize), which is not a power of two "
                    + "between 512 and 65536. Restore the store from a backup.")
        }
        guard fileSize >= 2 * pageSize else {
            throw damaged(
                "the data file is \(fileSize) bytes, shorter than its two \(pageSize)-byte meta pages. "
                    + "It is truncated; restore it from a backup.")
        }
        let metas = try [0, 1].map { (index: Int) throws(StorageError) -> Bytes in
            let page = try read(fd: fd, offset: index * pageSize, count: pageSize)
            try checkMetaPage(page, index: index, pageSize: pageSize, fileSize: fileSize)
            return page
        }

        // One meta page is written per commit, alternating by transaction id parity, so the two
        // ids differ by exactly one, each in its own slot. Equal ids occur only when both meta
        // pages say the same (a new file); LMDB would then pick meta page 0, so a damaged id that
        // merely equals the other must not pass.
        let id0 = metas[0].uint64(at: Offset.transactionID), id1 = metas[1].uint64(at: Offset.transactionID)
        let identical = metas[0].storage[Offset.magic..<Offset.end] == metas[1].storage[Offset.magic..<Offset.end]
        let consistent =
            (id0 == id1 && identical) || (id0 % 2 == 0 && id1 % 2 == 1 && (id0 &+ 1 == id1 || id1 &+ 1 == id0))
        guard consistent else {
            throw damaged(
                "the meta pages' transaction ids (\(id0), \(id1)) do not follow each other, "
                    + "so LMDB could pick a stale snapshot. Restore the store from a backup.")
        }
        let newest = id1 > id0 ? metas[1] : metas[0]
        let lastPage = newest.uint64(at: Offset.lastPage)
        let pagesInFile = UInt64(fileSize / pageSize)
        if lastPage >= pagesInFile {
            // Short: safe only if nothing the trees reference lies past the end.
            var walker = PageWalker(fd: fd, pageSize: pageSize, pagesInFile: pagesInFile, path: path)
            try walker.walk(roots: [
                newest.uint64(at: Offset.freeDB + DBOffset.root),
                newest.uint64(at: Offset.mainDB + DBOffset.root),
            ])
        }
        for database in [Offset.freeDB, Offset.mainDB] {
            let root = newest.uint64(at: database + DBOffset.root)
            guard root != Self.invalidPage else { continue }
            guard root < pagesInFile else {
                throw damaged(
                    "the root page \(root) of the newest meta page lies past the end of the file: it is truncated. "
                        + "Restore it from a backup.")
            }
            let rootPage = try read(fd: fd, offset: Int(root) * pageSize, count: Self.headerSize)
            let depth = Int(newest.uint16(at: database + DBOffset.depth))
            let flags = rootPage.uint16(at: Offset.flags)
            let expected = depth == 1 ? Self.leafFlag : Self.branchFlag
            guard rootPage.uint64(at: Offset.pageNumber) == root, flags & 0x07 == expected else {
                throw damaged(
                    "the root page \(root) named by the newest meta page is not a "
                        + "\(depth == 1 ? "leaf" : "branch") page of this tree. Restore the store from a backup.")
            }
        }
        return Summary(
            pageSize: pageSize, lastPage: lastPage, transactionID: max(id0, id1),
            mapSize: newest.uint64(at: Offset.mapSize), fileSize: fileSize)
    }

    private func checkMetaPage(_ page: Bytes, index: Int, pageSize: Int, fileSize: Int) throws(StorageError) {
        let name = "meta page \(index)"
        guard page.uint32(at: Offset.magic) == Self.magic else {
            throw damaged(
                "\(name) lacks LMDB's magic number: the file is damaged or is not a store. "
                    + "Restore it from a backup.")
        }
        guard page.uint32(at: Offset.version) == Self.dataVersion else {
            throw StorageError(
                code: .versionMismatch,
                message: "\(name) has LMDB data version \(page.uint32(at: Offset.version)), "
                    + "this build reads version \(Self.dataVersion). Open the store with the release that wrote it.",
                path: path)
        }
        guard page.uint64(at: Offset.pageNumber) == UInt64(index),
            page.uint16(at: Offset.pad) == 0,
            page.uint16(at: Offset.flags) == Self.metaFlag,
            page.uint16(at: Offset.lower) == 0, page.uint16(at: Offset.upper) == 0
        else {
            throw damaged("\(name)'s page header is damaged. Restore the store from a backup.")
        }
        guard page.uint64(at: Offset.address) == 0 else {
            throw damaged("\(name) names a fixed map address, which Cairn never uses. Restore the store from a backup.")
        }
        guard Int(page.uint32(at: Offset.freeDB + DBOffset.pad)) == pageSize else {
            throw damaged("\(name) gives another page size than meta page 0. Restore the store from a backup.")
        }
        // Everything after the meta structure is zero in every page LMDB writes.
        for offset in Offset.end..<pageSize where page[offset] != 0 {
            throw damaged(
                "\(name) has non-zero bytes after its meta data (at byte \(offset)). "
                    + "Restore the store from a backup.")
        }
        let lastPage = page.uint64(at: Offset.lastPage)
        // The file may legitimately end before the last page (pages allocated and freed in one
        // transaction are never written); `validate` walks the trees when it does.
        guard lastPage >= 1, lastPage < UInt64(Int.max / pageSize) else {
            throw damaged("\(name) gives the impossible last page \(lastPage). Restore the store from a backup.")
        }
        let mapSize = page.uint64(at: Offset.mapSize)
        guard mapSize / UInt64(pageSize) > lastPage else {
            throw damaged(
                "\(name) gives a map size of \(mapSize) bytes, which does not hold its "
                    + "\(lastPage + 1) pages. Restore the store from a backup.")
        }
        // LMDB persists MDB_INTEGERKEY on the free-page tree and no flags on the main tree.
        guard page.uint16(at: Offset.freeDB + DBOffset.flags) == 0x08,
            page.uint32(at: Offset.mainDB + DBOffset.pad) == 0,
            page.uint16(at: Offset.mainDB + DBOffset.flags) == 0
        else {
            throw damaged("\(name)'s tree flags are damaged. Restore the store from a backup.")
        }
        for database in [Offset.freeDB, Offset.mainDB] {
            try checkTree(page, at: database, lastPage: lastPage, name: name)
        }
    }

    private func checkTree(_ page: Bytes, at base: Int, lastPage: UInt64, name: String) throws(StorageError) {
        let root = page.uint64(at: base + DBOffset.root)
        let depth = page.uint16(at: base + DBOffset.depth)
        let branch = page.uint64(at: base + DBOffset.branchPages)
        let leaf = page.uint64(at: base + DBOffset.leafPages)
        let overflow = page.uint64(at: base + DBOffset.overflowPages)
        let entries = page.uint64(at: base + DBOffset.entries)
        let tree = base == Offset.freeDB ? "free-page tree" : "main tree"
        if root == Self.invalidPage {
            guard depth == 0, branch == 0, leaf == 0, overflow == 0, entries == 0 else {
                throw damaged(
                    "\(name) describes an empty \(tree) with pages or entries. Restore the store from a backup.")
            }
            return
        }
        // LMDB's cursors hold at most 32 levels; pages 0 and 1 are the meta pages.
        let (pages, overflowed) = branch.addingReportingOverflow(leaf)
        guard root >= 2, root <= lastPage, depth >= 1, depth <= 32, leaf >= 1,
            (depth == 1) == (branch == 0), !overflowed, pages <= lastPage, overflow <= lastPage
        else {
            throw damaged(
                "\(name)'s \(tree) (root \(root), depth \(depth)) does not fit in the file's "
                    + "\(lastPage + 1) pages. Restore the store from a backup.")
        }
    }

    private func read(fd: Int32, offset: Int, count: Int) throws(StorageError) -> Bytes {
        try Self.read(fd: fd, offset: offset, count: count, path: path)
    }

    /// Reads `count` bytes at `offset`; a file that ends first is damage (truncation).
    static func read(fd: Int32, offset: Int, count: Int, path: String) throws(StorageError) -> Bytes {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw LMDBError(errno).storageError(operation: "Reading the data file", path: path)
            }
            if n == 0 {
                throw StorageError(
                    code: .damaged,
                    message:
                        "The store cannot be opened: the data file ends at byte \(offset + done), inside a page it "
                        + "needs. It is truncated; restore it from a backup.",
                    path: path)
            }
            done += n
        }
        return Bytes(storage: bytes)
    }

    private func damaged(_ reason: String) -> StorageError {
        StorageError(code: .damaged, message: "The store cannot be opened: \(reason)", path: path)
    }

    /// Little-endian field access; LMDB writes native order and Cairn supports little-endian
    /// platforms only (x86-64, arm64).
    struct Bytes {
        var storage: [UInt8]
        subscript(offset: Int) -> UInt8 { storage[offset] }
        func uint16(at offset: Int) -> UInt16 { load(at: offset) }
        func uint32(at offset: Int) -> UInt32 { load(at: offset) }
        func uint64(at offset: Int) -> UInt64 { load(at: offset) }
        private func load<T: FixedWidthInteger>(at offset: Int) -> T {
            precondition(offset + MemoryLayout<T>.size <= storage.count, "meta field read past the page")
            return storage.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        }
    }
}

/// One of the two meta pages at the start of an LMDB data file, read field by field.
///
/// Layout (LMDB 0.9 on 64-bit little-endian platforms; see `Docs/Design.md`, "Files and tables"):
/// a 16-byte page header (`mp_pgno` u64, `mp_pad` u16, `mp_flags` u16, `mp_lower` u16,
/// `mp_upper` u16), then `MDB_meta`: `mm_magic` u32, `mm_version` u32, `mm_address` u64,
/// `mm_mapsize` u64, two `MDB_db` records of 48 bytes (the free-page tree, then the main tree),
/// `mm_last_pg` u64 and `mm_txnid` u64, 152 bytes in all. This type is the one place that knows
/// that layout.
struct MetaPage {
    static let magic: UInt32 = 0xBEEF_C0DE
    static let dataVersion: UInt32 = 1
    static let headerSize = 16
    static let metaFlag: UInt16 = 0x08
    static let invalidPage = UInt64.max

    /// Byte offsets inside a meta page (page header included).
    enum Offset {
        static let pageNumber = 0, pad = 8, flags = 10, lower = 12, upper = 14
        static let magic = 16, version = 20, address = 24, mapSize = 32
        static let freeDB = 40, mainDB = 88, lastPage = 136, transactionID = 144
        static let end = 152
    }

    /// Which slot, 0 or 1.
    let index: Int
    let view: PageView
    let flags: UInt16
    let magic: UInt32
    let version: UInt32
    let pageSize: Int
    let mapSize: UInt64
    let lastPage: UInt64
    let transactionID: UInt64
    let freeTree: DatabaseRecord
    let mainTree: DatabaseRecord

    /// Reads meta page `index` from `view`, which holds at least the meta structure.
    init(index: Int, view: PageView) throws(PageFault) {
        self.index = index
        self.view = view
        flags = try view.u16(Offset.flags)
        magic = try view.u32(Offset.magic)
        version = try view.u32(Offset.version)
        mapSize = try view.u64(Offset.mapSize)
        freeTree = try DatabaseRecord(view, at: Offset.freeDB)
        mainTree = try DatabaseRecord(view, at: Offset.mainDB)
        pageSize = Int(freeTree.pad)
        lastPage = try view.u64(Offset.lastPage)
        transactionID = try view.u64(Offset.transactionID)
    }

    /// Whether LMDB itself accepts the page when it opens the file (`mdb_env_read_header`): it
    /// checks only the meta flag, the magic number and the data version. A page that fails this
    /// makes LMDB refuse the whole file.
    var isAcceptedByLMDB: Bool { flags & Self.metaFlag != 0 && magic == Self.magic && version == Self.dataVersion }

    /// Checks every field of a page Cairn is about to open the store at, against the file's page
    /// size and length. The trees themselves are checked by ``PageWalker``.
    ///
    /// The fixed fields of the page header and the magic number and version are left out: they
    /// hold the same constants in every meta page, so when everything else checks out (and the
    /// snapshot the page leads to is sound and carries its commit marker), they are restored
    /// rather than held against the commit (see ``canonicalBytes(slot:transactionID:)``).
    ///
    /// - Returns: why the page cannot be used, or `nil` when it can.
    func problem(pageSize expected: Int) -> String? {
        do throws(PageFault) {
            guard try view.u64(Offset.address) == 0 else {
                return "it names a fixed map address, which Cairn never uses"
            }
        } catch {
            return error.reason
        }
        guard pageSize == expected else { return "it gives the page size \(pageSize), not \(expected)" }
        // Everything after the meta structure is zero in every meta page LMDB writes.
        guard view.isZero(from: Offset.end) else { return "it has bytes after its meta data" }
        guard lastPage >= 1, lastPage < UInt64(Int.max / pageSize) else {
            return "it gives the impossible last page \(lastPage)"
        }
        // LMDB records a map size that holds every page at each commit. A page that breaks this
        // has one of the two damaged, and a damaged last page (a huge one) would make LMDB map
        // or write far past the file; the pair is the only check on it.
        guard mapSize / UInt64(pageSize) > lastPage else {
            return "its map size of \(mapSize) bytes does not hold its \(lastPage &+ 1) pages"
        }
        // LMDB persists MDB_INTEGERKEY on the free-page tree and no flags on the main tree.
        guard freeTree.flags == 0x08, mainTree.pad == 0, mainTree.flags == 0 else {
            return "its tree flags are damaged"
        }
        if let problem = freeTree.problem(lastPage: lastPage, name: "free-page tree") { return problem }
        if let problem = mainTree.problem(lastPage: lastPage, name: "main tree") { return problem }
        return nil
    }

    /// Whether the page holds a transaction id its slot can hold: slot k holds the commits of
    /// parity k, and both slots hold 0 in a file nobody has written to.
    var hasSlotParity: Bool { transactionID == 0 || Int(transactionID % 2) == index }

    /// Whether the page's header constants (page number, flags, magic number, data version) are
    /// what LMDB writes.
    var hasCanonicalHeader: Bool {
        guard isAcceptedByLMDB, flags == Self.metaFlag else { return false }
        return
            (try? view.u64(Offset.pageNumber) == UInt64(index) && view.u16(Offset.pad) == 0
            && view.u16(Offset.lower) == 0 && view.u16(Offset.upper) == 0) ?? false
    }

    /// The page as LMDB writes it for `transactionID` in `slot`: this page's trees, sizes and
    /// last page, with the header constants restored. Used to repair a meta page in place, or to
    /// retire the other one with a lower transaction id.
    func canonicalBytes(slot: Int, transactionID id: UInt64) -> [UInt8] {
        var bytes = Array(UnsafeRawBufferPointer(start: view.base, count: view.size))
        func set<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) {
                bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0)
            }
        }
        set(UInt64(slot), at: Offset.pageNumber)
        set(UInt16(0), at: Offset.pad)
        set(Self.metaFlag, at: Offset.flags)
        set(UInt16(0), at: Offset.lower)
        set(UInt16(0), at: Offset.upper)
        set(Self.magic, at: Offset.magic)
        set(Self.dataVersion, at: Offset.version)
        set(id, at: Offset.transactionID)
        return bytes
    }
}

/// An `MDB_db` record (48 bytes): `md_pad` u32 (the page size in the free tree's record, the value
/// size of a `DUPFIXED` sub-tree), `md_flags` u16, `md_depth` u16, then u64 counts of branch, leaf
/// and overflow pages and of entries, and the root page number.
struct DatabaseRecord: Equatable {
    static let size = 48
    var pad: UInt32
    var flags: UInt16
    var depth: UInt16
    var branchPages: UInt64
    var leafPages: UInt64
    var overflowPages: UInt64
    var entries: UInt64
    var root: UInt64

    init(_ view: PageView, at base: Int) throws(PageFault) {
        pad = try view.u32(base)
        flags = try view.u16(base + 4)
        depth = try view.u16(base + 6)
        branchPages = try view.u64(base + 8)
        leafPages = try view.u64(base + 16)
        overflowPages = try view.u64(base + 24)
        entries = try view.u64(base + 32)
        root = try view.u64(base + 40)
    }

    var isEmpty: Bool { root == MetaPage.invalidPage }

    /// Whether the record's counts and root fit a file of `lastPage + 1` pages.
    func problem(lastPage: UInt64, name: String) -> String? {
        if isEmpty {
            guard depth == 0, branchPages == 0, leafPages == 0, overflowPages == 0, entries == 0 else {
                return "it describes an empty \(name) with pages or entries"
            }
            return nil
        }
        // LMDB's cursors hold at most 32 levels; pages 0 and 1 are the meta pages.
        let (pages, overflowed) = branchPages.addingReportingOverflow(leafPages)
        guard root >= 2, root <= lastPage, depth >= 1, depth <= 32, leafPages >= 1,
            (depth == 1) == (branchPages == 0), !overflowed, pages <= lastPage, overflowPages <= lastPage
        else {
            return "its \(name) (root \(root), depth \(depth)) does not fit in the file's \(lastPage &+ 1) pages"
        }
        return nil
    }
}

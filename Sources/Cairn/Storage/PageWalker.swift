#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks LMDB's B-trees in a data file with plain reads, checking that every page the trees
/// reference lies inside the file and is the kind of page its parent says.
///
/// LMDB leaves a file shorter than its last page number when pages allocated and freed in one
/// transaction are never written; reading such a file is safe, because nothing references those
/// pages. A truncated file instead has referenced pages past its end, and LMDB touching one dies
/// with SIGBUS. The meta pages alone cannot tell the two apart, so when a file is short,
/// ``DataFileValidator`` has this walk every tree from the newest meta page's roots: the free-page
/// tree, the main tree, every named table it lists, and every duplicate sub-tree. Each page is
/// read once; a page referenced twice or of the wrong kind is damage too.
///
/// Layout (LMDB 0.9, 64-bit): a page has a 16-byte header (`mp_pgno` u64, `mp_pad` u16,
/// `mp_flags` u16, `mp_lower` u16, `mp_upper` u16 — or `mp_pages` u32 on overflow pages) and then
/// `(mp_lower - 16) / 2` u16 node offsets. A node is `mn_lo` u16, `mn_hi` u16, `mn_flags` u16,
/// `mn_ksize` u16, the key, then the data. In a branch page the child page number is
/// `mn_lo | mn_hi << 16 | mn_flags << 32`; in a leaf page the data size is `mn_lo | mn_hi << 16`
/// and `mn_flags` says whether the data is an overflow page number (`F_BIGDATA`), an `MDB_db`
/// (`F_SUBDATA`) or an inline page of duplicates (`F_DUPDATA`).
struct PageWalker {
    let fd: Int32
    let pageSize: Int
    let pagesInFile: UInt64
    let path: String

    static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, leaf2: UInt16 = 0x20
    static let databaseSize = 48

    private var visited = Set<UInt64>()

    init(fd: Int32, pageSize: Int, pagesInFile: UInt64, path: String) {
        self.fd = fd
        self.pageSize = pageSize
        self.pagesInFile = pagesInFile
        self.path = path
    }

    /// Walks the trees rooted at `roots` (free-page tree and main tree).
    mutating func walk(roots: [UInt64]) throws(StorageError) {
        var pending: [UInt64] = roots.filter { $0 != DataFileValidator.invalidPage }
        while let pageNumber = pending.popLast() {
            let page = try read(pageNumber)
            let flags = page.uint16(at: DataFileValidator.Offset.flags)
            if flags & Self.branch != 0 {
                try forEachNode(of: page, number: pageNumber) { (node) throws(StorageError) in
                    pending.append(
                        UInt64(page.uint16(at: node)) | UInt64(page.uint16(at: node + 2)) << 16
                            | UInt64(page.uint16(at: node + 4)) << 32)
                }
            } else if flags & Self.leaf2 != 0 {
                continue  // fixed-size duplicates: keys only, no references
            } else if flags & Self.leaf != 0 {
                try forEachNode(of: page, number: pageNumber) { (node) throws(StorageError) in
                    let nodeFlags = page.uint16(at: node + 4)
                    let keySize = Int(page.uint16(at: node + 6))
                    let data = node + 8 + keySize
                    if nodeFlags & Self.bigData != 0 {
                        try need(data + 8, in: pageNumber)
                        try checkOverflow(page.uint64(at: data), from: pageNumber)
                    } else if nodeFlags & Self.subData != 0 {
                        try need(data + Self.databaseSize, in: pageNumber)
                        let root = page.uint64(at: data + 40)
                        if root != DataFileValidator.invalidPage { pending.append(root) }
                    } else {
                        // Plain data, or an inline page of duplicates: no page references.
                        let size = Int(page.uint16(at: node)) | Int(page.uint16(at: node + 2)) << 16
                        try need(data + size, in: pageNumber)
                    }
                }
            } else {
                throw damaged("page \(pageNumber) is referenced as a tree page but has flags \(flags)")
            }
        }
    }

    private mutating func checkOverflow(_ first: UInt64, from parent: UInt64) throws(StorageError) {
        let page = try read(first)
        guard page.uint16(at: DataFileValidator.Offset.flags) & Self.overflow != 0 else {
            throw damaged("page \(parent) names page \(first) as a large value's first page, but it is not one")
        }
        let count = UInt64(page.uint32(at: 12))
        let (end, overflowed) = first.addingReportingOverflow(count)
        guard count >= 1, !overflowed, end <= pagesInFile else {
            throw damaged("the large value on pages \(first)…\(first &+ count &- 1) runs past the end of the file")
        }
    }

    /// Calls `body` with the offset of each node of a branch or leaf page, after bounds checks.
    private func forEachNode(
        of page: DataFileValidator.Bytes, number: UInt64, _ body: (Int) throws(StorageError) -> Void
    ) throws(StorageError) {
        let lower = Int(page.uint16(at: DataFileValidator.Offset.lower))
        let upper = Int(page.uint16(at: DataFileValidator.Offset.upper))
        guard lower >= DataFileValidator.headerSize, lower <= upper, upper <= pageSize, lower % 2 == 0 else {
            throw damaged("page \(number)'s node table is out of bounds")
        }
        for index in 0..<(lower - DataFileValidator.headerSize) / 2 {
            let node = Int(page.uint16(at: DataFileValidator.headerSize + 2 * index))
            guard node >= upper, node + 8 <= pageSize else {
                throw damaged("node \(index) of page \(number) lies outside the page")
            }
            try body(node)
        }
    }

    private func need(_ end: Int, in pageNumber: UInt64) throws(StorageError) {
        guard end <= pageSize else { throw damaged("a node of page \(pageNumber) runs past the page") }
    }

    private mutating func read(_ pageNumber: UInt64) throws(StorageError) -> DataFileValidator.Bytes {
        guard pageNumber >= 2, pageNumber < pagesInFile else {
            throw damaged(
                "the trees reference page \(pageNumber), but the file holds pages 0…\(pagesInFile &- 1): "
                    + "it is truncated")
        }
        guard visited.insert(pageNumber).inserted else {
            throw damaged("page \(pageNumber) is referenced twice")
        }
        let page = try DataFileValidator.read(fd: fd, offset: Int(pageNumber) * pageSize, count: pageSize, path: path)
        guard page.uint64(at: DataFileValidator.Offset.pageNumber) == pageNumber else {
            throw damaged("page \(pageNumber) says it is page \(page.uint64(at: DataFileValidator.Offset.pageNumber))")
        }
        return page
    }

    private func damaged(_ reason: String) -> StorageError {
        StorageError(
            code: .damaged, message: "The store cannot be opened: \(reason). Restore it from a backup.", path: path)
    }
}

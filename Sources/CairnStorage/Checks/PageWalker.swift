#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks LMDB's B-trees in a data file without LMDB, checking every page a snapshot uses.
///
/// LMDB 0.9.24 trusts its pages: a child pointer past the end of the file dies with `SIGBUS`, a
/// page of the wrong kind trips an assertion that aborts the process, a mis-sorted key makes
/// lookups miss rows that are there, and a damaged free list makes the first write reuse a page
/// that is still in use. So before LMDB maps a store, ``DataFileValidator`` has this walk the
/// snapshot it is about to open, and ``LMDBEnvironment/checkPages()`` walks the open one.
///
/// For every tree (the free-page tree, the main tree, each named table, each sub-tree of
/// duplicates) it checks that:
/// - each page lies inside the file and at or below the snapshot's last page, says it is the page
///   it is, is of the kind its parent expects, and is used once only;
/// - each page's node table and every node, key and value lie inside the page;
/// - keys ascend strictly within each page and stay between the separators of the parent page;
/// - every leaf is at the tree's depth, and the pages and entries counted match the tree's record;
/// - large values' overflow pages lie inside the file and are used once;
/// - the free list names only pages inside the snapshot that no tree uses, each once;
/// - the main tree holds Cairn's commit marker (see ``CommitMarker``), which it reports.
///
/// Layout (LMDB 0.9, 64-bit): a page has a 16-byte header (`mp_pgno` u64, `mp_pad` u16 — the key
/// size of a `LEAF2` page —, `mp_flags` u16, `mp_lower` u16, `mp_upper` u16, or `mp_pages` u32 at
/// byte 12 of an overflow page) and then `(mp_lower - 16) / 2` u16 node offsets. A node is `mn_lo`
/// u16, `mn_hi` u16, `mn_flags` u16, `mn_ksize` u16, the key, then the data. In a branch page the
/// child page number is `mn_lo | mn_hi << 16 | mn_flags << 32`; in a leaf page the data size is
/// `mn_lo | mn_hi << 16` and `mn_flags` says whether the data is an overflow page number
/// (`F_BIGDATA`), an `MDB_db` (`F_SUBDATA`: a named table, or with `F_DUPDATA` a sub-tree of
/// duplicates) or an inline sub-page of duplicates (`F_DUPDATA`). `LEAF2` pages hold fixed-size
/// keys back to back after the header. This type is the one place that knows that layout.
package struct PageWalker {
    /// How much of the snapshot to walk.
    enum Scope {
        /// Every page of every tree.
        case everything
        /// The free-page tree and the main tree, and only the root page of each named table:
        /// what is cheap on a store of any size.
        case catalogue
    }

    /// What a walk found.
    struct Summary {
        /// The commit marker's value in the main tree, if it has one.
        var marker: UInt64?
        /// Each named table (by name) with its record.
        var tables: [(name: String, record: DatabaseRecord)] = []
        /// Problems found, one per tree at most; empty when the snapshot is sound.
        var problems: [Problem] = []
    }

    /// What is wrong with one tree: the named table it belongs to (none for the free-page tree,
    /// the main tree and the free list) and where and what, in a sentence.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The named table, or `nil` for LMDB's own trees.
        package let table: String?
        /// The tree (when it is LMDB's own), the page and what is wrong with it.
        package let reason: String

        package var description: String { table.map { "table '\($0)': \(reason)" } ?? reason }
    }

    static let branchFlag: UInt16 = 0x01, leafFlag: UInt16 = 0x02, overflowFlag: UInt16 = 0x04
    static let dirtyFlag: UInt16 = 0x10, leaf2Flag: UInt16 = 0x20, subPageFlag: UInt16 = 0x40
    static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    /// `MDB_db.md_flags` bits that change how keys or duplicates compare.
    static let reverseKey: UInt16 = 0x02, duplicateSort: UInt16 = 0x04, integerKey: UInt16 = 0x08
    static let duplicateFixed: UInt16 = 0x10, integerDuplicate: UInt16 = 0x20, reverseDuplicate: UInt16 = 0x40
    static let headerSize = 16, nodeHeaderSize = 8

    let file: MappedDataFile
    let pageSize: Int
    let lastPage: UInt64
    let pagesInFile: UInt64
    /// One bit per page of the file: used by a tree walked so far.
    private var used: [UInt64]
    private var summary = Summary()

    init(file: MappedDataFile, pageSize: Int, lastPage: UInt64) {
        self.file = file
        self.pageSize = pageSize
        self.lastPage = lastPage
        pagesInFile = UInt64(file.fileSize / pageSize)
        used = [UInt64](repeating: 0, count: Int(min(pagesInFile, lastPage &+ 1) + 63) / 64)
    }

    /// Walks the snapshot `meta` names.
    ///
    /// - Parameter stopAtFirstProblem: throw the first problem (opening a store) instead of
    ///   collecting one problem per tree (verifying one).
    /// - Throws: ``StorageError`` `.damaged` whose message is the first problem alone (where it
    ///   is, what is wrong), when `stopAtFirstProblem`.
    mutating func walk(_ meta: MetaPage, scope: Scope, stopAtFirstProblem: Bool) throws(StorageError) -> Summary {
        var free: [UInt64] = []
        func attempt(
            _ tree: String, table: String? = nil, _ body: () throws(PageFault) -> Void
        ) throws(StorageError) {
            do {
                try body()
            } catch {
                let problem = Problem(table: table, reason: table == nil ? "\(tree): \(error.reason)" : error.reason)
                if stopAtFirstProblem {
                    // The caller says what it means for the store (refused, or recovered from).
                    throw StorageError(
                        code: .damaged, message: "in transaction \(meta.transactionID)'s \(problem)", path: file.path)
                }
                summary.problems.append(problem)
            }
        }
        try attempt("free-page tree") { () throws(PageFault) in
            try walkTree(meta.freeTree, kind: .free) { (key, value) throws(PageFault) in
                // A free-list record: u64 count, then that many page numbers.
                guard key.count == 8, value.count >= 8, value.count % 8 == 0 else {
                    throw PageFault("a free-list record has a \(key.count)-byte key and a \(value.count)-byte value")
                }
                // LMDB reads only the count's entries: a record reserved larger than it was filled
                // keeps a smaller count (mdb_freelist_save).
                let count = value.loadUnaligned(as: UInt64.self)
                guard count <= UInt64(value.count / 8 - 1) else {
                    throw PageFault("a free-list record counts \(count) pages in \(value.count) bytes")
                }
                for index in 0..<Int(count) {
                    free.append(value.loadUnaligned(fromByteOffset: (index + 1) * 8, as: UInt64.self))
                }
            }
        }
        var marker: UInt64?
        try attempt("main tree") { () throws(PageFault) in
            try walkTree(meta.mainTree, kind: .main) { (key, value) throws(PageFault) in
                guard key.elementsEqual(CommitMarker.key) else { return }
                guard value.count == 8 else { throw PageFault("the commit marker is \(value.count) bytes, not 8") }
                marker = UInt64(bigEndian: value.loadUnaligned(as: UInt64.self))
            }
        }
        summary.marker = marker
        for (name, record) in summary.tables {
            try attempt("table", table: name) { () throws(PageFault) in
                if let problem = record.problem(lastPage: lastPage, name: "tree") { throw PageFault(problem) }
                switch scope {
                case .everything: try walkTree(record, kind: .table) { _, _ in }
                case .catalogue: try checkRoot(of: record)
                }
            }
        }
        try attempt("free list") { () throws(PageFault) in
            try checkFreeList(free, scope: scope)
        }
        return summary
    }

    /// The commit marker in the main tree of the snapshot `meta` names, reading that tree only
    /// (a few pages: the tables' names and the marker), each page checked as the walk checks it;
    /// `nil` when the tree holds none.
    ///
    /// - Throws: ``PageFault`` when a page of the main tree is damaged.
    mutating func marker(of meta: MetaPage) throws(PageFault) -> UInt64? {
        var marker: UInt64?
        try walkTree(meta.mainTree, kind: .main) { (key, value) throws(PageFault) in
            guard key.elementsEqual(CommitMarker.key) else { return }
            guard value.count == 8 else { throw PageFault("the commit marker is \(value.count) bytes, not 8") }
            marker = UInt64(bigEndian: value.loadUnaligned(as: UInt64.self))
        }
        return marker
    }

    // MARK: Trees

    /// A page to visit, with the key range its parent allows (lower inclusive, upper exclusive).
    private struct Visit {
        let page: UInt64
        let level: Int
        let lower: UnsafeRawBufferPointer?
        let upper: UnsafeRawBufferPointer?
    }

    /// What a tree's pages hold, counted against its record.
    private struct TreeCounts {
        var branch: UInt64 = 0, leaf: UInt64 = 0, overflow: UInt64 = 0, entries: UInt64 = 0
    }

    /// Walks one tree, checking its pages and its record's counts; calls `leaf` with each plain
    /// key and value of a leaf (not for named tables or duplicates).
    private mutating func walkTree(
        _ record: DatabaseRecord, kind: TreeKind,
        leaf: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(PageFault) -> Void
    ) throws(PageFault) {
        guard !record.isEmpty else { return }
        let order = KeyOrder(kind: kind, flags: record.flags)
        var counts = TreeCounts()
        var pending = [Visit(page: record.root, level: 1, lower: nil, upper: nil)]
        while let visit = pending.popLast() {
            let page = try claim(visit.page)
            let flags = try page.u16(10)
            let fixedKeys = kind == .duplicates && record.flags & Self.duplicateFixed != 0
            if flags == Self.branchFlag {
                counts.branch += 1
                guard visit.level < Int(record.depth) else {
                    throw PageFault("branch page \(visit.page) lies at the leaf level \(visit.level)")
                }
                pending += try children(of: page, visit, order: order).reversed()
            } else if flags == Self.leafFlag || (fixedKeys && flags == Self.leafFlag | Self.leaf2Flag) {
                counts.leaf += 1
                guard visit.level == Int(record.depth) else {
                    throw PageFault(
                        "leaf page \(visit.page) lies at level \(visit.level) of a tree \(record.depth) deep")
                }
                if flags & Self.leaf2Flag != 0 {
                    counts.entries += try checkFixedKeys(
                        page, keySize: Int(record.pad), order: order, lower: visit.lower, upper: visit.upper,
                        in: visit.page)
                } else {
                    try walkLeaf(page, visit, record: record, kind: kind, order: order, counts: &counts, leaf: leaf)
                }
            } else {
                throw PageFault("page \(visit.page) is used as a tree page but has flags \(flags)")
            }
        }
        guard counts.branch == record.branchPages, counts.leaf == record.leafPages,
            counts.overflow == record.overflowPages, counts.entries == record.entries
        else {
            throw PageFault(
                "the tree holds \(counts.branch) branch, \(counts.leaf) leaf and \(counts.overflow) overflow pages "
                    + "and \(counts.entries) entries, but its record says \(record.branchPages), "
                    + "\(record.leafPages), \(record.overflowPages) and \(record.entries)")
        }
    }

    /// The children of a branch page, in key order, each with the key range its separators allow.
    private func children(of page: PageView, _ visit: Visit, order: KeyOrder) throws(PageFault) -> [Visit] {
        let nodes = try NodeTable(page, number: visit.page)
        guard nodes.count > 0 else { throw PageFault("branch page \(visit.page) is empty") }
        var separators: [UnsafeRawBufferPointer?] = []
        var children: [UInt64] = []
        separators.reserveCapacity(nodes.count)
        children.reserveCapacity(nodes.count)
        for index in 0..<nodes.count {
            let node = try nodes.offset(index, in: page, number: visit.page)
            let child =
                UInt64(try page.u16(node)) | UInt64(try page.u16(node + 2)) << 16 | UInt64(try page.u16(node + 4)) << 32
            let key = try page.slice(node + Self.nodeHeaderSize, Int(try page.u16(node + 6)))
            // The first node's key is not used: its child holds everything below the second.
            if index > 0 {
                // Keys that ascend lie below the parent's bound when the last one does.
                try order.check(
                    key, lower: separators.last ?? visit.lower, inclusive: index == 1,
                    upper: index == nodes.count - 1 ? visit.upper : nil, in: visit.page)
                separators.append(key)
            } else {
                separators.append(visit.lower)
            }
            children.append(child)
        }
        return children.enumerated().map { index, child in
            let upper = index + 1 < separators.count ? separators[index + 1] : visit.upper
            return Visit(page: child, level: visit.level + 1, lower: separators[index], upper: upper)
        }
    }

    /// The nodes of a leaf page: keys ascending within the parent's bounds, and each value plain,
    /// on overflow pages, a named table's record (main tree) or duplicates (a sub-tree or sub-page).
    private mutating func walkLeaf(
        _ page: PageView, _ visit: Visit, record: DatabaseRecord, kind: TreeKind, order: KeyOrder,
        counts: inout TreeCounts, leaf: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(PageFault) -> Void
    ) throws(PageFault) {
        let duplicates = kind == .table && record.flags & Self.duplicateSort != 0
        var previous = visit.lower
        let nodes = try NodeTable(page, number: visit.page)
        for index in 0..<nodes.count {
            let node = try nodes.offset(index, in: page, number: visit.page)
            let nodeFlags = try page.u16(node + 4)
            let key = try page.slice(node + Self.nodeHeaderSize, Int(try page.u16(node + 6)))
            // Keys that ascend lie below the parent's bound when the last one does.
            try order.check(
                key, lower: previous, inclusive: index == 0, upper: index == nodes.count - 1 ? visit.upper : nil,
                in: visit.page)
            previous = key
            let size = Int(try page.u16(node)) | Int(try page.u16(node + 2)) << 16
            let dataOffset = node + Self.nodeHeaderSize + key.count
            // Made only when thrown: the walk at open visits every node.
            func badFlags() -> PageFault { PageFault("a node of page \(visit.page) has flags \(nodeFlags)") }
            if nodeFlags & Self.bigData != 0 {
                guard nodeFlags == Self.bigData else { throw badFlags() }
                let (value, pages) = try overflowValue(first: try page.u64(dataOffset), size: size, from: visit.page)
                counts.overflow += pages
                counts.entries += 1
                if kind != .table { try leaf(key, value) }
            } else if nodeFlags & Self.subData != 0 {
                guard size == DatabaseRecord.size else {
                    throw PageFault("a tree record in page \(visit.page) is \(size) bytes, not \(DatabaseRecord.size)")
                }
                let sub = try DatabaseRecord(page, at: dataOffset)
                if kind == .main && nodeFlags == Self.subData {
                    summary.tables.append((String(decoding: key, as: UTF8.self), sub))
                    counts.entries += 1
                } else if duplicates && nodeFlags == Self.subData | Self.dupData {
                    if let problem = sub.problem(lastPage: lastPage, name: "sub-tree") { throw PageFault(problem) }
                    var subRecord = sub
                    subRecord.flags = record.flags
                    try walkTree(subRecord, kind: .duplicates) { _, _ in }
                    counts.entries += sub.entries
                } else {
                    throw badFlags()
                }
            } else if nodeFlags & Self.dupData != 0 {
                guard duplicates, nodeFlags == Self.dupData else { throw badFlags() }
                counts.entries += try checkSubPage(try page.view(dataOffset, size), flags: record.flags, in: visit.page)
            } else {
                guard nodeFlags == 0 else { throw badFlags() }
                counts.entries += 1
                if kind != .table { try leaf(key, try page.slice(dataOffset, size)) }
            }
        }
    }

    /// A page of the tree: inside the file and the snapshot, saying it is itself, used once.
    private mutating func claim(_ number: UInt64) throws(PageFault) -> PageView {
        guard number >= 2, number <= lastPage else {
            throw PageFault("a page refers to page \(number), outside the snapshot's pages 2…\(lastPage)")
        }
        guard number < pagesInFile else {
            throw PageFault("a page refers to page \(number), but the file ends at page \(pagesInFile) (truncated)")
        }
        try markUsed(number)
        let page: PageView
        do {
            page = try file.bytes(at: Int(number) * pageSize, count: pageSize, for: "page \(number)")
        } catch {
            throw PageFault("page \(number) lies past the end of the file")
        }
        guard try page.u64(0) == number else { throw PageFault("page \(number) says it is page \(try page.u64(0))") }
        return page
    }

    /// Records that a tree uses `page` (inside the file and the snapshot: the caller checked).
    private mutating func markUsed(_ page: UInt64) throws(PageFault) {
        let word = Int(page / 64), bit = UInt64(1) << (page % 64)
        guard used[word] & bit == 0 else { throw PageFault("page \(page) is used twice") }
        used[word] |= bit
    }

    /// A page's node table: how many nodes it has, checked to lie inside the page.
    private struct NodeTable {
        let count: Int
        let upper: Int

        init(_ page: PageView, number: UInt64) throws(PageFault) {
            let lower = Int(try page.u16(12))
            upper = Int(try page.u16(14))
            guard lower >= PageWalker.headerSize, lower <= upper, upper <= page.size, lower % 2 == 0 else {
                throw PageFault("page \(number)'s node table is out of bounds")
            }
            count = (lower - PageWalker.headerSize) / 2
        }

        /// The offset of node `index`, checked to lie inside the page with its header.
        @inline(__always)
        func offset(_ index: Int, in page: PageView, number: UInt64) throws(PageFault) -> Int {
            let node = Int(try page.u16(PageWalker.headerSize + 2 * index))
            guard node >= upper, node + PageWalker.nodeHeaderSize <= page.size else {
                throw PageFault("node \(index) of page \(number) lies outside the page")
            }
            return node
        }
    }

    /// A large value's bytes on its overflow pages, which are claimed, and how many pages the
    /// run holds. LMDB rewrites a value that shrank in place and keeps the run's length (the free
    /// list does this at every commit), so a run may be longer than its value needs; the tree's
    /// record counts the run.
    private mutating func overflowValue(
        first: UInt64, size: Int, from parent: UInt64
    ) throws(PageFault) -> (UnsafeRawBufferPointer, UInt64) {
        let head = try claim(first)
        guard try head.u16(10) == Self.overflowFlag else {
            throw PageFault("page \(parent) names page \(first) as a large value's first page, but it is not one")
        }
        let count = UInt64(try head.u32(12))
        let needed = UInt64((Self.headerSize + size + pageSize - 1) / pageSize)
        guard count >= needed, count - 1 <= lastPage - first else {
            throw PageFault(
                "the large value on page \(first) spans \(count) pages, but its \(size) bytes need \(needed) and the "
                    + "snapshot ends at page \(lastPage)")
        }
        for page in (first &+ 1)..<(first &+ count) {
            // The pages the value needs must be in the file; a tail it outgrew may lie past it.
            guard page < pagesInFile else {
                if page < first &+ needed {
                    throw PageFault("the large value on page \(first) runs past the end of the file")
                }
                break
            }
            try markUsed(page)
        }
        let value: PageView
        do {
            value = try file.bytes(
                at: Int(first) * pageSize + Self.headerSize, count: size, for: "the large value on page \(first)")
        } catch {
            throw PageFault(error.message)
        }
        return (try value.slice(0, size), count)
    }

    /// Checks an inline sub-page of duplicates; returns how many it holds.
    private func checkSubPage(_ sub: PageView, flags: UInt16, in number: UInt64) throws(PageFault) -> UInt64 {
        let order = KeyOrder(kind: .duplicates, flags: flags)
        let pageFlags = try sub.u16(10) & ~Self.dirtyFlag
        let fixed = flags & Self.duplicateFixed != 0
        guard pageFlags == Self.leafFlag | Self.subPageFlag | (fixed ? Self.leaf2Flag : 0) else {
            throw PageFault("a sub-page of duplicates in page \(number) has flags \(pageFlags)")
        }
        if fixed {
            return try checkFixedKeys(
                sub, keySize: Int(try sub.u16(8)), order: order, lower: nil, upper: nil, in: number)
        }
        var previous: UnsafeRawBufferPointer?
        let nodes = try NodeTable(sub, number: number)
        for index in 0..<nodes.count {
            let node = try nodes.offset(index, in: sub, number: number)
            guard try sub.u16(node + 4) == 0 else { throw PageFault("a duplicate in page \(number) has node flags") }
            let key = try sub.slice(node + Self.nodeHeaderSize, Int(try sub.u16(node + 6)))
            try order.check(key, lower: previous, inclusive: false, upper: nil, in: number)
            previous = key
        }
        return UInt64(nodes.count)
    }

    /// Checks a `LEAF2` page or sub-page: fixed-size keys after the header, in order.
    private func checkFixedKeys(
        _ page: PageView, keySize: Int, order: KeyOrder, lower: UnsafeRawBufferPointer?,
        upper: UnsafeRawBufferPointer?, in number: UInt64
    ) throws(PageFault) -> UInt64 {
        let lowerBound = Int(try page.u16(12))
        guard keySize >= 1, keySize <= 511, try page.u16(8) == UInt16(keySize), lowerBound >= Self.headerSize,
            lowerBound % 2 == 0
        else {
            throw PageFault("page \(number) of fixed-size duplicates gives a bad size or count")
        }
        let count = (lowerBound - Self.headerSize) / 2
        var previous = lower
        for index in 0..<count {
            let key = try page.slice(Self.headerSize + index * keySize, keySize)
            try order.check(
                key, lower: previous, inclusive: index == 0, upper: index == count - 1 ? upper : nil, in: number)
            previous = key
        }
        return UInt64(count)
    }

    /// Checks a named table's root page alone: inside the file and of the kind its depth says.
    private func checkRoot(of record: DatabaseRecord) throws(PageFault) {
        guard !record.isEmpty else { return }
        guard record.root < pagesInFile else {
            throw PageFault("its root page \(record.root) lies past the end of the file (truncated)")
        }
        let page: PageView
        do {
            page = try file.bytes(at: Int(record.root) * pageSize, count: Self.headerSize, for: "a root page")
        } catch {
            throw PageFault("its root page \(record.root) lies past the end of the file")
        }
        let flags = try page.u16(10)
        let expected = record.depth == 1 ? Self.leafFlag : Self.branchFlag
        guard try page.u64(0) == record.root, flags & 0x07 == expected else {
            throw PageFault("its root page \(record.root) is not a \(record.depth == 1 ? "leaf" : "branch") page")
        }
    }

    /// Checks the free list's pages: inside the snapshot, named once, and (when every tree was
    /// walked) used by none of them. Pages past the end of the file may be free: a transaction
    /// that allocated and freed them never wrote them.
    private func checkFreeList(_ free: [UInt64], scope: Scope) throws(PageFault) {
        var seen = Set<UInt64>()
        seen.reserveCapacity(free.count)
        for page in free {
            guard page >= 2, page <= lastPage else {
                throw PageFault("it names page \(page), outside the snapshot's pages 2…\(lastPage)")
            }
            guard seen.insert(page).inserted else { throw PageFault("it names page \(page) twice") }
            if scope == .everything && page < pagesInFile && used[Int(page / 64)] & (UInt64(1) << (page % 64)) != 0 {
                throw PageFault("it names page \(page), which a tree uses")
            }
        }
    }
}

/// Which tree a walk is in: the key order and what leaves hold depend on it.
private enum TreeKind {
    case free, main, table, duplicates
}

/// How a tree's keys compare, and the checks that they ascend.
enum KeyOrder {
    /// `mdb_cmp_memn`, the default.
    case bytes
    /// `mdb_cmp_long` / `mdb_cmp_int`: the free-page tree and `MDB_INTEGERKEY` tables.
    case integers
    /// An order this walker does not check (reverse keys, reverse or integer duplicates, which
    /// Cairn never uses).
    case unchecked

    fileprivate init(kind: TreeKind, flags: UInt16) {
        switch kind {
        case .free:
            self = .integers
        case .main, .table:
            if flags & PageWalker.integerKey != 0 {
                self = .integers
            } else if flags & PageWalker.reverseKey != 0 {
                self = .unchecked
            } else {
                self = .bytes
            }
        case .duplicates:
            self = flags & (PageWalker.integerDuplicate | PageWalker.reverseDuplicate) != 0 ? .unchecked : .bytes
        }
    }

    @inline(__always)
    func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        switch self {
        case .bytes: a.compareBytes(to: b)
        case .integers: Self.integers(a, b)
        case .unchecked: 0
        }
    }

    /// `mdb_cmp_long` / `mdb_cmp_int`: native unsigned integers of the keys' size.
    static func integers(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        guard a.count == b.count else { return a.count - b.count }
        switch a.count {
        case 8:
            let (x, y) = (a.loadUnaligned(as: UInt64.self), b.loadUnaligned(as: UInt64.self))
            return x < y ? -1 : x == y ? 0 : 1
        case 4:
            let (x, y) = (a.loadUnaligned(as: UInt32.self), b.loadUnaligned(as: UInt32.self))
            return x < y ? -1 : x == y ? 0 : 1
        default:
            return a.compareBytes(to: b)
        }
    }

    /// Checks that `key` follows `lower` (or equals it, when `inclusive`) and precedes `upper`.
    func check(
        _ key: UnsafeRawBufferPointer, lower: UnsafeRawBufferPointer?, inclusive: Bool,
        upper: UnsafeRawBufferPointer?, in page: UInt64
    ) throws(PageFault) {
        guard self != .unchecked else { return }
        if let lower {
            let order = compare(lower, key)
            if order > 0 || (order == 0 && !inclusive) { throw PageFault("the keys of page \(page) are out of order") }
        }
        if let upper, compare(key, upper) >= 0 {
            throw PageFault("a key of page \(page) lies beyond its parent's range")
        }
    }
}

import CairnStorage

/// Writes one full-text table's changes in a write transaction: a term's postings removed and
/// added block by block (``PostingLayout``), and the table's statistics moved by what a save
/// added and removed.
///
/// Only the blocks that hold the rows a change names are read and rewritten: the block that
/// holds the lowest row, and those starting up to the highest. New rows, which have the highest
/// ids, go to the end of a term's last block, and a full block is left as it is. Terms come in
/// the order of their keys: those past every key the table held are neither looked up nor
/// searched for, but appended (`MDB_APPEND`), as a large save or a new index's build has them.
///
/// ```swift
/// var writer = try PostingWriter(table: table, in: txn)
/// try writer.apply(term: term, removing: [12], adding: postings, in: txn)
/// try writer.addStatistics(documents: 1, tokens: 8, in: txn)
/// ```
struct PostingWriter {
    let table: Table
    /// The table's last key before this writer wrote, or `nil` for an empty table.
    private let lastKey: [UInt8]?
    /// Whether every block put so far was past the table's last key (put with `MDB_APPEND`).
    private var appending = true

    /// A writer for `table`, whose last key it reads.
    init(table: Table, in txn: borrowing WriteTransaction) throws {
        self.table = table
        lastKey = try txn.withCursor(on: table) { cursor in try cursor.last() ? Array(cursor.current.key) : nil }
    }

    /// Removes `term`'s postings of the rows in `removed` (ascending) and adds those of `added`
    /// (rows ascending, none twice; a row in both is replaced).
    ///
    /// - Throws: `StorageError` when a block read is damaged or the write fails.
    mutating func apply(
        term: [UInt8], removing removed: [UInt64], adding added: PostingRun, in txn: borrowing WriteTransaction
    ) throws {
        guard !removed.isEmpty || !added.isEmpty else { return }
        let lowest = min(removed.first ?? .max, added.isEmpty ? .max : added.row(0))
        let highest = max(removed.last ?? 0, added.isEmpty ? 0 : added.row(added.count - 1))
        let isNew = lastKey.map { PostingLayout.termStart(term).lexicographicallyPrecedes($0) == false } ?? true
        let old =
            isNew
            ? (blocks: [], postings: PostingList()) : try oldBlocks(of: term, from: lowest, through: highest, in: txn)
        let blocks: [(key: [UInt8], value: [UInt8])]
        if old.postings.isEmpty {
            blocks = Self.blocks(term: term, of: added)
        } else {
            blocks = Self.blocks(
                term: term, of: PostingRun(list: Self.merge(old.postings, removing: removed, adding: added)))
        }
        for (key, _) in old.blocks where !blocks.contains(where: { $0.key == key }) {
            _ = try txn.delete(key, in: table)
            appending = false
        }
        for block in blocks where !old.blocks.contains(where: { $0.key == block.key && $0.value == block.value }) {
            if appending, try txn.put(block.value, for: block.key, in: table, options: .append) { continue }
            appending = false
            _ = try txn.put(block.value, for: block.key, in: table)
        }
    }

    /// `old` without the rows of `removed` and of `added`, and with `added`, rows ascending.
    private static func merge(_ old: PostingList, removing removed: [UInt64], adding added: PostingRun) -> PostingList {
        var merged = PostingList()
        var (next, nextRemoved) = (0, 0)
        for index in 0..<old.count {
            let row = old.rows[index]
            while next < added.count && added.row(next) < row {
                merged.append(added.order[next], of: added.list)
                next += 1
            }
            while nextRemoved < removed.count && removed[nextRemoved] < row { nextRemoved += 1 }
            let isRemoved = nextRemoved < removed.count && removed[nextRemoved] == row
            let isReplaced = next < added.count && added.row(next) == row
            if !isRemoved && !isReplaced { merged.append(index, of: old) }
        }
        for position in next..<added.count { merged.append(added.order[position], of: added.list) }
        return merged
    }

    /// Moves the table's statistics by `documents` and `tokens` (negative for removals).
    func addStatistics(documents: Int, tokens: Int, in txn: borrowing WriteTransaction) throws {
        guard documents != 0 || tokens != 0 else { return }
        let stored = try Self.statistics(of: table, in: txn)
        let value = PostingLayout.statistics(documents: stored.documents + documents, tokens: stored.tokens + tokens)
        _ = try txn.put(value, for: PostingLayout.statisticsKey, in: table)
    }

    /// A table's statistics: the documents it indexes and their tokens (both 0 for an empty table).
    ///
    /// - Throws: `StorageError` `.damagedRecord` when they are damaged.
    static func statistics(
        of table: Table, in txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> (documents: Int, tokens: Int) {
        try txn.withValue(for: PostingLayout.statisticsKey, in: table) { value throws(StorageError) in
            try PostingLayout.parseStatistics(value, table: table)
        } ?? (0, 0)
    }

    /// The blocks of `term` that hold rows from `lowest` through `highest`, with their postings.
    private func oldBlocks(
        of term: [UInt8], from lowest: UInt64, through highest: UInt64, in txn: borrowing WriteTransaction
    ) throws -> (blocks: [(key: [UInt8], value: [UInt8])], postings: PostingList) {
        let start = PostingLayout.termStart(term)
        return try txn.withCursor(on: table) { cursor in
            var blocks: [(key: [UInt8], value: [UInt8])] = []
            var postings = PostingList()
            // The last block starting at or before `lowest`, or else the term's first one.
            let lowestKey = PostingLayout.blockKey(term: term, firstRow: lowest)
            var positioned = try cursor.seek(atLeast: lowestKey)
            if !positioned || !cursor.current.key.elementsEqual(lowestKey) {
                let landedInTerm = positioned && cursor.current.key.starts(with: start)
                let stepped = positioned ? try cursor.previous() : try cursor.last()
                if stepped && cursor.current.key.starts(with: start) {
                    positioned = true
                } else if landedInTerm {
                    // No block before `lowest`: the term's first block is the one found first.
                    positioned = try cursor.seek(atLeast: lowestKey)
                } else {
                    // A term with no block at all (a new one: the common case of a large save).
                    positioned = false
                }
            }
            while positioned && cursor.current.key.starts(with: start) {
                let (key, value) = cursor.current
                let (_, firstRow) = try PostingLayout.parseBlockKey(key, table: table)
                if !blocks.isEmpty && firstRow > highest { break }
                var reader = try PostingReader(value, key: key, firstRow: firstRow, table: table)
                blocks.append((Array(key), Array(value)))
                while try reader.appendNext(to: &postings) {}
                positioned = try cursor.next()
            }
            return (blocks, postings)
        }
    }

    /// The postings of `run` as blocks of up to ``PostingLayout/blockCapacity`` bytes, each keyed
    /// by its first row.
    private static func blocks(term: [UInt8], of run: PostingRun) -> [(key: [UInt8], value: [UInt8])] {
        var blocks: [(key: [UInt8], value: [UInt8])] = []
        var value: [UInt8] = []
        value.reserveCapacity(PostingLayout.blockCapacity + 64)
        var (start, previous) = (0, UInt64(0))
        func close(at end: Int) {
            let key = PostingLayout.blockKey(term: term, firstRow: run.row(start))
            blocks.append((key, PostingLayout.block(count: end - start, body: value, key: key)))
            start = end
            value.removeAll(keepingCapacity: true)
        }
        run.list.bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<run.count {
                if value.count >= PostingLayout.blockCapacity { close(at: index) }
                let row = run.row(index)
                Varint.append(value.isEmpty ? 0 : row &- previous, to: &value)
                value.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run.list.restRange(run.order[index])]))
                previous = row
            }
        }
        if start < run.count { close(at: run.count) }
        return blocks
    }
}

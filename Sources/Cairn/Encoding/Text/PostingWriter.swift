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
/// try writer.apply(term: term, removing: [12], adding: gathered, resolve: { $0 }, in: txn)
/// try writer.addStatistics(documents: 1, tokens: 8, in: txn)
/// ```
struct PostingWriter {
    let table: Table
    /// The table's last key before this writer wrote, or `nil` for an empty table.
    private let lastKey: [UInt8]?
    /// Whether every block put so far was past the table's last key (put with `MDB_APPEND`).
    private var appending = true
    /// Cuts each term's blocks; one for every term, so its buffer is allocated once.
    private var builder = BlockBuilder()

    /// A writer for `table`, whose last key it reads.
    init(table: Table, in txn: borrowing WriteTransaction) throws {
        self.table = table
        lastKey = try txn.withCursor(on: table) { cursor in try cursor.last() ? Array(cursor.current.key) : nil }
    }

    /// Removes `term`'s postings of the rows in `removed` (ascending) and adds those gathered in
    /// `encoded` (``PostingList/encode(row:length:positions:into:)``, none twice), their rows
    /// mapped by `resolve`; a row in both is replaced. A term with no block yet, and nothing
    /// removed, is cut into blocks straight from `encoded` when its rows ascend, with no list made:
    /// the common case of a large save.
    ///
    /// - Throws: `StorageError` when a block read is damaged or the write fails; what `resolve` throws.
    mutating func apply(
        term: [UInt8], removing removed: [UInt64], adding encoded: UnsafeBufferPointer<UInt8>,
        resolve: (UInt64) throws -> UInt64,
        in txn: borrowing WriteTransaction
    ) throws {
        guard !removed.isEmpty || !encoded.isEmpty else { return }
        let isNew = lastKey.map { !PostingLayout.termStart(term).lexicographicallyPrecedes($0) } ?? true
        if isNew && removed.isEmpty {
            builder.start(term: term)
            if try PostingList.forEachEncoded(encoded, { builder.add(row: try resolve($0), rest: $1) }) {
                return try put(builder.finish(), replacing: [], in: txn)
            }
        }
        let added = try PostingList(encoded: encoded, resolve: resolve).sortedByRow()
        let lowest = min(removed.first ?? .max, added.rows.first ?? .max)
        let highest = max(removed.last ?? 0, added.rows.last ?? 0)
        let old =
            isNew
            ? (blocks: [], postings: PostingList()) : try oldBlocks(of: term, from: lowest, through: highest, in: txn)
        let merged = old.postings.isEmpty ? added : Self.merge(old.postings, removing: removed, adding: added)
        builder.start(term: term)
        merged.bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<merged.count {
                let rest = UnsafeBufferPointer(rebasing: bytes[merged.restRange(index)])
                _ = builder.add(row: merged.rows[index], rest: rest)
            }
        }
        try put(builder.finish(), replacing: old.blocks, in: txn)
    }

    /// Puts `blocks` in place of `old`: old blocks no longer there deleted, blocks already there
    /// unchanged left alone, and new ones appended (`MDB_APPEND`) while each is past the table's
    /// last key.
    private mutating func put(
        _ blocks: [(key: [UInt8], value: [UInt8])], replacing old: [(key: [UInt8], value: [UInt8])],
        in txn: borrowing WriteTransaction
    ) throws {
        for (key, _) in old where !blocks.contains(where: { $0.key == key }) {
            _ = try txn.delete(key, in: table)
            appending = false
        }
        for block in blocks where !old.contains(where: { $0.key == block.key && $0.value == block.value }) {
            if appending, try txn.put(block.value, for: block.key, in: table, options: .append) { continue }
            appending = false
            _ = try txn.put(block.value, for: block.key, in: table)
        }
    }

    /// `old` without the rows of `removed` and of `added`, and with `added`, rows ascending.
    private static func merge(_ old: PostingList, removing removed: [UInt64], adding added: PostingList) -> PostingList
    {
        var merged = PostingList()
        var (next, nextRemoved) = (0, 0)
        for index in 0..<old.count {
            let row = old.rows[index]
            while next < added.count && added.rows[next] < row {
                merged.append(next, of: added)
                next += 1
            }
            while nextRemoved < removed.count && removed[nextRemoved] < row { nextRemoved += 1 }
            let isRemoved = nextRemoved < removed.count && removed[nextRemoved] == row
            let isReplaced = next < added.count && added.rows[next] == row
            if !isRemoved && !isReplaced { merged.append(index, of: old) }
        }
        for position in next..<added.count { merged.append(position, of: added) }
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
}

/// Cuts one term's postings, given in row order, into blocks of up to
/// ``PostingLayout/blockCapacity`` bytes, each keyed by its first row.
private struct BlockBuilder {
    private var term: [UInt8] = []
    private var blocks: [(key: [UInt8], value: [UInt8])] = []
    /// The postings of the block being cut, written in place.
    private let body = ByteArena(capacity: PostingLayout.blockCapacity + 64)
    private var (count, first, previous) = (0, UInt64(0), UInt64(0))
    /// Whether a posting was added (``previous`` is its row).
    private var started = false

    /// Begins the blocks of `term`, forgetting any earlier term's.
    mutating func start(term: [UInt8]) {
        self.term = term
        blocks.removeAll(keepingCapacity: true)
        body.removeAll()
        (count, first, previous, started) = (0, 0, 0, false)
    }

    /// Adds a posting; `false`, adding nothing, when its row does not follow the last one's.
    mutating func add(row: UInt64, rest: UnsafeBufferPointer<UInt8>) -> Bool {
        if started && row <= previous { return false }
        if body.count >= PostingLayout.blockCapacity { close() }
        if count == 0 { first = row }
        body.keep(Varint.write(count == 0 ? 0 : row &- previous, to: body.reserve(Varint.maximumLength)))
        body.append(UnsafeRawBufferPointer(rest))
        (count, previous, started) = (count + 1, row, true)
        return true
    }

    mutating func finish() -> [(key: [UInt8], value: [UInt8])] {
        if count > 0 { close() }
        return blocks
    }

    private mutating func close() {
        let key = PostingLayout.blockKey(term: term, firstRow: first)
        blocks.append((key, PostingLayout.block(count: count, body: body.bytes(in: 0..<body.count), key: key)))
        count = 0
        body.removeAll()
    }
}

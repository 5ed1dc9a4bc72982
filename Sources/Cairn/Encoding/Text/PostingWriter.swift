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
        let isNew = isPastLastKey(term)
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

    /// Whether every key of `term` sorts after every key the table held when the writer began:
    /// a term with no block there.
    func isPastLastKey(_ term: [UInt8]) -> Bool {
        lastKey.map { !PostingLayout.termStart(term).lexicographicallyPrecedes($0) } ?? true
    }

    /// Writes the postings of a term with no block yet (``isPastLastKey(_:)``) straight from
    /// `encoded` (``PostingList/encode(row:length:positions:into:)``), their rows mapped by
    /// `resolve`, with no list made: the common case of a large save. `false`, with nothing
    /// written, when the rows it resolves to do not ascend.
    mutating func addNew(
        term: [UInt8], encoded: [UInt8], resolve: (UInt64) throws -> UInt64, in txn: borrowing WriteTransaction
    ) throws -> Bool {
        var builder = BlockBuilder(term: term)
        let ascending = try encoded.withUnsafeBufferPointer { source in
            var index = 0
            while index + 8 <= source.count {
                let raw = UnsafeRawBufferPointer(source).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let row = try resolve(UInt64(littleEndian: raw))
                let start = index + 8
                index = start
                let bytes = UnsafeRawBufferPointer(source)
                _ = Varint.read(bytes, at: &index, end: source.count)
                let frequency = Varint.read(bytes, at: &index, end: source.count) ?? 0
                for _ in 0..<frequency { _ = Varint.read(bytes, at: &index, end: source.count) }
                guard builder.add(row: row, rest: UnsafeBufferPointer(rebasing: source[start..<index])) else {
                    return false
                }
            }
            return true
        }
        guard ascending else { return false }
        for block in builder.finish() {
            if appending, try txn.put(block.value, for: block.key, in: table, options: .append) { continue }
            appending = false
            _ = try txn.put(block.value, for: block.key, in: table)
        }
        return true
    }

    /// The postings of `run` as blocks of up to ``PostingLayout/blockCapacity`` bytes, each keyed
    /// by its first row.
    private static func blocks(term: [UInt8], of run: PostingRun) -> [(key: [UInt8], value: [UInt8])] {
        var builder = BlockBuilder(term: term)
        run.list.bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<run.count {
                _ = builder.add(
                    row: run.row(index),
                    rest: UnsafeBufferPointer(rebasing: bytes[run.list.restRange(run.order[index])]))
            }
        }
        return builder.finish()
    }
}

/// Cuts one term's postings, given in row order, into blocks of up to
/// ``PostingLayout/blockCapacity`` bytes, each keyed by its first row.
private struct BlockBuilder {
    let term: [UInt8]
    private var blocks: [(key: [UInt8], value: [UInt8])] = []
    private var body: [UInt8] = []
    private var (count, first, previous) = (0, UInt64(0), UInt64(0))

    init(term: [UInt8]) {
        self.term = term
        body.reserveCapacity(PostingLayout.blockCapacity + 64)
    }

    /// Adds a posting; `false`, adding nothing, when its row does not follow the last one's.
    mutating func add(row: UInt64, rest: UnsafeBufferPointer<UInt8>) -> Bool {
        if count > 0 && row <= previous { return false }
        if body.count >= PostingLayout.blockCapacity { close() }
        if count == 0 { first = row }
        Varint.append(count == 0 ? 0 : row &- previous, to: &body)
        body.append(contentsOf: rest)
        (count, previous) = (count + 1, row)
        return true
    }

    mutating func finish() -> [(key: [UInt8], value: [UInt8])] {
        if count > 0 { close() }
        return blocks
    }

    private mutating func close() {
        let key = PostingLayout.blockKey(term: term, firstRow: first)
        blocks.append((key, PostingLayout.block(count: count, body: body, key: key)))
        count = 0
        body.removeAll(keepingCapacity: true)
    }
}

import CairnStorage

/// The byte layout of a full-text table (`t/<Entity>/<attribute>`): the one place its keys and
/// values are made and read (`Docs/Search.md` draws them).
///
/// | key | value |
/// |---|---|
/// | `00` | the statistics: documents (varint), tokens (varint), CRC-32C |
/// | `01` ‖ term ‖ `00` ‖ first row (u64 big-endian) | a block of postings, CRC-32C |
///
/// A term's postings are in blocks, each keyed by its first row, holding the rows in ascending
/// order up to the next block's first row. A block is
/// `count ‖ (row delta ‖ length ‖ frequency ‖ frequency × position delta)…`, all varints: the
/// first row delta is from the key's row, so 0; `length` is the number of tokens in the row's
/// text (BM25's document length); the positions are the term's places among them. Terms hold
/// no zero byte, so the `00` after a term ends it, and a term's blocks come before those of
/// every longer term it starts. Every value ends with the CRC-32C of its key and its bytes
/// before the checksum; a reader checks it and every length, and throws on damage.
///
/// ```swift
/// let key = PostingLayout.blockKey(term: Array("swift".utf8), firstRow: 42)
/// let value = postings.withUnsafeBufferPointer { PostingLayout.block(count: 2, body: $0, key: key) }
/// ```
enum PostingLayout {
    /// The key of a table's statistics.
    static let statisticsKey: [UInt8] = [0x00]
    /// What every block key starts with.
    static let termMarker: UInt8 = 0x01
    /// The most bytes of postings a block is given before the next one starts.
    static let blockCapacity = 1_000

    /// The key of the block of `term`'s postings starting at `firstRow`.
    static func blockKey(term: [UInt8], firstRow: UInt64) -> [UInt8] {
        var key = termStart(term, reserving: 8)
        withUnsafeBytes(of: firstRow.bigEndian) { key.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        return key
    }

    /// What every block key of `term` starts with, in an array with room for `reserving` more.
    static func termStart(_ term: [UInt8], reserving extra: Int = 0) -> [UInt8] {
        var start: [UInt8] = []
        start.reserveCapacity(term.count + 2 + extra)
        start.append(termMarker)
        start.append(contentsOf: term)
        start.append(0x00)
        return start
    }

    /// What every block key of every term starting with `prefix` starts with.
    static func prefixStart(_ prefix: [UInt8]) -> [UInt8] { [termMarker] + prefix }

    /// The term and first row of a block key.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the key is not a block key.
    static func parseBlockKey(
        _ key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> (term: UnsafeRawBufferPointer, firstRow: UInt64) {
        guard key.count >= 10, key[0] == termMarker, key[key.count - 9] == 0 else {
            throw EntryLayout.damaged(table: table, key: key, "has a key that is not a term's block")
        }
        // The length was checked: eight bytes are there.
        let row = EntryLayout.bigEndianUInt64(in: key, at: key.count - 8) ?? 0
        return (UnsafeRawBufferPointer(rebasing: key[1..<(key.count - 9)]), row)
    }

    // MARK: Values

    /// A block value: the count of its postings, `body` (the postings as written: row delta
    /// and rest, the first row's delta 0), and the checksum over `key` and them.
    static func block(count: Int, body: UnsafeBufferPointer<UInt8>, key: [UInt8]) -> [UInt8] {
        var value: [UInt8] = []
        value.reserveCapacity(body.count + 8)
        Varint.append(UInt64(count), to: &value)
        value.append(contentsOf: body)
        EntryLayout.appendChecksum(to: &value, key: key)
        return value
    }

    /// The statistics value.
    static func statistics(documents: Int, tokens: Int, key: [UInt8] = statisticsKey) -> [UInt8] {
        var value: [UInt8] = []
        Varint.append(UInt64(max(documents, 0)), to: &value)
        Varint.append(UInt64(max(tokens, 0)), to: &value)
        EntryLayout.appendChecksum(to: &value, key: key)
        return value
    }

    /// Reads a statistics value.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when it is damaged.
    static func parseStatistics(
        _ value: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> (documents: Int, tokens: Int) {
        let body = try EntryLayout.checkedPayload(value, key: statisticsKey, table: table)
        var index = 0
        guard let documents = Varint.read(body, at: &index, end: body.count),
            let tokens = Varint.read(body, at: &index, end: body.count), index == body.count,
            documents <= UInt64(Int.max), tokens <= UInt64(Int.max)
        else {
            throw statisticsKey.withUnsafeBytes { EntryLayout.damaged(table: table, key: $0, "has damaged statistics") }
        }
        return (Int(documents), Int(tokens))
    }
}

/// Reads the postings of one block, checking every length against the block's bytes.
///
/// ```swift
/// var reader = try PostingReader(value, key: key, firstRow: row, table: table)
/// while let posting = try reader.next(positions: &positions) { … }   // or next(), skipping them
/// ```
struct PostingReader {
    private let body: UnsafeRawBufferPointer
    /// The block's key, which a damage report names (valid while the block is).
    private let key: UnsafeRawBufferPointer
    private let table: Table
    private var index = 0
    private var remaining: UInt64
    private var row: UInt64

    /// A reader of the block `value` stored under `key`, whose first row is `firstRow`.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the checksum does not match.
    init(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, firstRow: UInt64, table: Table
    ) throws(StorageError) {
        body = try EntryLayout.checkedPayload(value, key: key, table: table)
        self.key = key
        self.table = table
        row = firstRow
        var start = 0
        guard let count = Varint.read(body, at: &start, end: body.count) else {
            throw EntryLayout.damaged(table: table, key: key, "has a damaged block of postings")
        }
        (index, remaining) = (start, count)
    }

    /// The next posting: row, length and frequency, its positions skipped; `nil` after the last.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the bytes end early or overflow.
    mutating func next() throws(StorageError) -> (row: UInt64, length: Int, frequency: Int)? {
        var none: [UInt32] = []
        return try next(positions: &none, keeping: false)
    }

    /// The next posting, with its positions written into `positions` (replacing what it held).
    mutating func next(positions: inout [UInt32]) throws(StorageError) -> (row: UInt64, length: Int, frequency: Int)? {
        try next(positions: &positions, keeping: true)
    }

    private mutating func next(
        positions: inout [UInt32], keeping: Bool
    ) throws(StorageError) -> (row: UInt64, length: Int, frequency: Int)? {
        guard remaining > 0 else {
            guard index == body.count else { throw damaged() }
            return nil
        }
        remaining -= 1
        let end = body.count
        guard let delta = Varint.read(body, at: &index, end: end), let length = Varint.read(body, at: &index, end: end),
            let frequency = Varint.read(body, at: &index, end: end), frequency <= UInt64(end - index),
            length < UInt64(UInt32.max)
        else { throw damaged() }
        let (next, overflow) = row.addingReportingOverflow(delta)
        guard !overflow else { throw damaged() }
        row = next
        if keeping { positions.removeAll(keepingCapacity: true) }
        var position: UInt64 = 0
        for _ in 0..<Int(frequency) {
            guard let step = Varint.read(body, at: &index, end: end) else { throw damaged() }
            position &+= step
            if keeping { positions.append(UInt32(truncatingIfNeeded: position)) }
        }
        return (row, Int(length), Int(frequency))
    }

    /// Appends the next posting, its rest as stored, to `list`; `false` after the last.
    mutating func appendNext(to list: inout PostingList) throws(StorageError) -> Bool {
        let start = index
        guard let posting = try next() else { return false }
        var restStart = start
        _ = Varint.read(body, at: &restStart, end: body.count)
        list.append(row: posting.row, rest: UnsafeRawBufferPointer(rebasing: body[restStart..<index]))
        return true
    }

    private func damaged() -> StorageError {
        EntryLayout.damaged(table: table, key: key, "has a damaged block of postings")
    }
}

/// The postings of one term, end to end: each posting's row, and the bytes a block stores after
/// its row delta (``PostingLayout``: length, frequency, positions). Three arrays for any number
/// of postings, where an array per posting was an allocation per word of every text indexed.
///
/// ```swift
/// var list = PostingList()
/// list.append(row: 7, length: 12, positions: [0, 5])
/// list.rest(0)   // the bytes of 12, 2, 0, 5
/// ```
struct PostingList {
    private(set) var rows: [UInt64] = []
    /// Where each posting's rest ends in ``bytes``.
    private var ends: [Int] = []
    private(set) var bytes: [UInt8] = []

    init() {}

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    /// Appends a posting of `row`, whose text has `length` tokens, with the term at `positions`
    /// (ascending).
    mutating func append(row: UInt64, length: Int, positions: UnsafeBufferPointer<UInt32>) {
        Self.appendRest(length: length, positions: positions, to: &bytes)
        rows.append(row)
        ends.append(bytes.count)
    }

    /// Writes a posting as ``init(encoded:resolve:)`` reads it: its row (8 bytes,
    /// little-endian), then its rest.
    static func encode(row: UInt64, length: Int, positions: UnsafeBufferPointer<UInt32>, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: row.littleEndian) { bytes.append(contentsOf: $0) }
        appendRest(length: length, positions: positions, to: &bytes)
    }

    private static func appendRest(length: Int, positions: UnsafeBufferPointer<UInt32>, to bytes: inout [UInt8]) {
        Varint.append(UInt64(length), to: &bytes)
        Varint.append(UInt64(positions.count), to: &bytes)
        var previous: UInt32 = 0
        for position in positions {
            Varint.append(UInt64(position &- previous), to: &bytes)
            previous = position
        }
    }

    /// The postings ``encode(row:length:positions:into:)`` wrote into `encoded`, their rows
    /// mapped by `resolve`. The bytes are this process's own, made in memory.
    init(encoded: [UInt8], resolve: (UInt64) throws -> UInt64) rethrows {
        bytes.reserveCapacity(encoded.count)
        try encoded.withUnsafeBytes { source in
            var index = 0
            while index + 8 <= source.count {
                let row = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let start = index + 8
                index = start
                _ = Varint.read(source, at: &index, end: source.count)
                let frequency = Varint.read(source, at: &index, end: source.count) ?? 0
                for _ in 0..<frequency { _ = Varint.read(source, at: &index, end: source.count) }
                append(row: try resolve(row), rest: UnsafeRawBufferPointer(rebasing: source[start..<index]))
            }
        }
    }

    /// Appends a posting whose rest is already encoded.
    mutating func append(row: UInt64, rest: UnsafeRawBufferPointer) {
        // As typed bytes: an array appends those in one copy, raw ones byte by byte.
        bytes.append(contentsOf: rest.assumingMemoryBound(to: UInt8.self))
        rows.append(row)
        ends.append(bytes.count)
    }

    /// Appends posting `index` of `other`.
    mutating func append(_ index: Int, of other: PostingList) {
        bytes.append(contentsOf: other.bytes[other.restRange(index)])
        rows.append(other.rows[index])
        ends.append(bytes.count)
    }

    /// Where posting `index`'s rest lies in ``bytes``.
    func restRange(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

    /// The rest of posting `index`.
    func rest(_ index: Int) -> ArraySlice<UInt8> { bytes[restRange(index)] }

    /// Gives each posting the row `resolve` maps its row to, in place.
    mutating func mapRows(_ resolve: (UInt64) throws -> UInt64) rethrows {
        for index in rows.indices { rows[index] = try resolve(rows[index]) }
    }
}

/// Some postings of a ``PostingList`` (one term's, of a list that holds several), in the order
/// of their rows.
///
/// ```swift
/// let run = PostingRun(list: list, order: [4, 9, 12])
/// run.row(0)   // list.rows[4]
/// ```
struct PostingRun {
    let list: PostingList
    /// The positions in ``list``, rows ascending.
    let order: [Int]

    /// The postings of `list` at `order`, put in row order when they are not.
    init(list: PostingList, order: some Collection<Int>) {
        self.list = list
        var order = Array(order)
        if zip(order, order.dropFirst()).contains(where: { list.rows[$0] > list.rows[$1] }) {
            order.sort { list.rows[$0] < list.rows[$1] }
        }
        self.order = order
    }

    /// All the postings of `list`, whose rows ascend.
    init(list: PostingList) {
        self.list = list
        order = Array(0..<list.count)
    }

    var count: Int { order.count }
    var isEmpty: Bool { order.isEmpty }

    func row(_ index: Int) -> UInt64 { list.rows[order[index]] }
}

/// The terms of one save or one build, each stored once and named by a number: a term met again
/// is found by hashing its bytes where the tokenizer left them (``ByteHashing``, seeded per
/// table), with no array made for it.
///
/// ```swift
/// var terms = TermTable()
/// let id = terms.intern(termBytes)   // the same number each time these bytes come
/// terms.term(id)                     // the bytes
/// ```
struct TermTable {
    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Open addressing: term number + 1, or 0 for an empty slot.
    private var slots = [Int32](repeating: 0, count: 1024)
    private let seed = UInt64.random(in: .min ... .max)

    var count: Int { hashes.count }

    /// The number of `term`, given one when new.
    mutating func intern(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        let bytes = UnsafeRawBufferPointer(term)
        let hash = ByteHashing.hash(bytes, seed: seed)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let id = Int(slots[slot]) - 1
            if hashes[id] == hash && isTerm(id, bytes) { return id }
            slot = (slot + 1) & mask
        }
        let id = hashes.count
        arena.append(contentsOf: term)
        starts.append(arena.count)
        hashes.append(hash)
        slots[slot] = Int32(truncatingIfNeeded: id + 1)
        if hashes.count * 2 > slots.count { rehash() }
        return id
    }

    /// The bytes of term `id`.
    func term(_ id: Int) -> ArraySlice<UInt8> { arena[starts[id]..<starts[id + 1]] }

    @inline(__always)
    private func isTerm(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let (start, end) = (starts[id], starts[id + 1])
        guard end - start == bytes.count else { return false }
        return arena.withUnsafeBytes { ByteHashing.equal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), bytes) }
    }

    private mutating func rehash() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: id + 1)
        }
    }
}

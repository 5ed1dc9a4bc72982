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

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    /// Appends a posting of `row`, whose text has `length` tokens, with the term at `positions`
    /// (ascending).
    mutating func append(row: UInt64, length: Int, positions: UnsafeBufferPointer<UInt32>) {
        Varint.append(UInt64(length), to: &bytes)
        Varint.append(UInt64(positions.count), to: &bytes)
        var previous: UInt32 = 0
        for position in positions {
            Varint.append(UInt64(position &- previous), to: &bytes)
            previous = position
        }
        rows.append(row)
        ends.append(bytes.count)
    }

    /// Appends a posting whose rest is already encoded.
    mutating func append(row: UInt64, rest: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: rest)
        rows.append(row)
        ends.append(bytes.count)
    }

    /// Appends posting `index` of `other`.
    mutating func append(_ index: Int, of other: PostingList) {
        bytes.append(contentsOf: other.bytes[other.restRange(index)])
        rows.append(other.rows[index])
        ends.append(bytes.count)
    }

    /// Appends the postings of `other` from `start` on, in one copy.
    mutating func append(contentsOf other: PostingList, from start: Int) {
        guard start < other.count else { return }
        let offset = other.restRange(start).lowerBound
        let shift = bytes.count - offset
        bytes.append(contentsOf: other.bytes[offset...])
        rows.append(contentsOf: other.rows[start...])
        ends.append(contentsOf: other.ends[start...].lazy.map { $0 + shift })
    }

    /// Where posting `index`'s rest lies in ``bytes``.
    func restRange(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

    /// The rest of posting `index`.
    func rest(_ index: Int) -> ArraySlice<UInt8> { bytes[restRange(index)] }

    /// Gives each posting the row `resolve` maps its row to, and puts them back in row order.
    mutating func resolveRows(_ resolve: (UInt64) throws -> UInt64) rethrows {
        var sorted = true
        for index in rows.indices {
            rows[index] = try resolve(rows[index])
            if index > 0 && rows[index - 1] > rows[index] { sorted = false }
        }
        guard !sorted else { return }
        let order = rows.indices.sorted { rows[$0] < rows[$1] }
        var reordered = PostingList()
        for index in order { reordered.append(index, of: self) }
        self = reordered
    }
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

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
    mutating func append(row: UInt64, length: Int, positions: some Collection<UInt32>) {
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
/// is found by hashing its bytes where the tokenizer left them, with no array made for it.
///
/// ```swift
/// var terms = TermTable()
/// let id = terms.intern(termBytes)   // the same number each time these bytes come
/// terms.term(id)                     // the bytes
/// ```
struct TermTable {
    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    /// Open addressing: term number + 1, or 0 for an empty slot.
    private var slots = [Int32](repeating: 0, count: 1024)

    var count: Int { starts.count - 1 }

    /// The number of `term`, given one when new.
    mutating func intern(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        if count * 2 >= slots.count { grow() }
        let mask = slots.count - 1
        var slot = Self.hash(term) & mask
        while slots[slot] != 0 {
            let id = Int(slots[slot]) - 1
            if arena[starts[id]..<starts[id + 1]].elementsEqual(term) { return id }
            slot = (slot + 1) & mask
        }
        arena.append(contentsOf: term)
        starts.append(arena.count)
        slots[slot] = Int32(count)
        return count - 1
    }

    /// The bytes of term `id`.
    func term(_ id: Int) -> ArraySlice<UInt8> { arena[starts[id]..<starts[id + 1]] }

    /// The term numbers in the order of their bytes (the order their keys have in the table).
    func sortedIDs() -> [Int] {
        (0..<count).sorted { term($0).lexicographicallyPrecedes(term($1)) }
    }

    private mutating func grow() {
        var larger = [Int32](repeating: 0, count: slots.count * 2)
        let mask = larger.count - 1
        for id in 0..<count {
            var slot = arena.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[starts[id]..<starts[id + 1]])) } & mask
            while larger[slot] != 0 { slot = (slot + 1) & mask }
            larger[slot] = Int32(id + 1)
        }
        slots = larger
    }

    /// The bytes' hash, seeded per process (Swift's `Hasher`), so no text can be made to collide.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize() & Int.max
    }
}

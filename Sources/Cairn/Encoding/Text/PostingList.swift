/// The postings of one term, end to end: each posting's row, and the bytes a block stores after
/// its row delta (``PostingLayout``: length, frequency, positions). Three arrays for any number
/// of postings, where an array per posting was an allocation per word of every text indexed.
///
/// A save gathers a term's postings as ``write(row:length:positions:to:)`` writes them, each
/// its row and its rest, end to end (`TextIndexChanges`), and reads them back with
/// ``forEachEncoded(_:_:)``.
///
/// ```swift
/// let size = PostingList.write(row: 7, length: 12, positions: positions, to: arena.reserve(room))
/// arena.keep(size)
/// let list = try PostingList(encoded: arena.bytes(in: 0..<size), resolve: { $0 }).sortedByRow()
/// ```
struct PostingList {
    private(set) var rows: [UInt64] = []
    /// Where each posting's rest ends in ``bytes``.
    private var ends: [Int] = []
    private(set) var bytes: [UInt8] = []

    init() {}

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    /// The most bytes ``write(row:length:positions:to:)`` writes for a posting of `positions`.
    static func maximumLength(positions: Int) -> Int { 8 + Varint.maximumLength * (2 + positions) }

    /// Writes a posting of `row`, whose text has `length` tokens, with the term at `positions`
    /// (ascending), at `destination`, which has room for ``maximumLength(positions:)`` bytes:
    /// its row (8 bytes, little-endian), then its rest. Returns how many bytes it wrote.
    static func write(
        row: UInt64, length: Int, positions: UnsafeBufferPointer<UInt32>, to destination: UnsafeMutableRawPointer
    ) -> Int {
        destination.storeBytes(of: row.littleEndian, as: UInt64.self)
        var count = 8
        count += Varint.write(UInt64(length), to: destination + count)
        count += Varint.write(UInt64(positions.count), to: destination + count)
        var previous: UInt32 = 0
        for position in positions {
            count += Varint.write(UInt64(position &- previous), to: destination + count)
            previous = position
        }
        return count
    }

    /// Calls `body` with each posting ``write(row:length:positions:to:)`` wrote into `source`,
    /// end to end: its row and its rest, until `body` returns `false`. The bytes are this
    /// process's own, made in memory. Returns whether every posting was given.
    @discardableResult
    static func forEachEncoded(
        _ source: UnsafeBufferPointer<UInt8>, _ body: (UInt64, UnsafeBufferPointer<UInt8>) throws -> Bool
    ) rethrows -> Bool {
        let bytes = UnsafeRawBufferPointer(source)
        var index = 0
        while index + 8 <= source.count {
            let row = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let start = index + 8
            index = start
            _ = Varint.read(bytes, at: &index, end: source.count)
            let frequency = Varint.read(bytes, at: &index, end: source.count) ?? 0
            for _ in 0..<frequency { _ = Varint.read(bytes, at: &index, end: source.count) }
            guard try body(row, UnsafeBufferPointer(rebasing: source[start..<index])) else { return false }
        }
        return true
    }

    /// The postings ``write(row:length:positions:to:)`` wrote into `encoded`, their rows
    /// mapped by `resolve`, in the order written.
    init(encoded: UnsafeBufferPointer<UInt8>, resolve: (UInt64) throws -> UInt64) rethrows {
        bytes.reserveCapacity(encoded.count)
        try Self.forEachEncoded(encoded) { row, rest in
            append(row: try resolve(row), rest: UnsafeRawBufferPointer(rest))
            return true
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

    /// The same postings in the order of their rows (itself when they are in it already).
    func sortedByRow() -> PostingList {
        guard zip(rows, rows.dropFirst()).contains(where: { $0 > $1 }) else { return self }
        var sorted = PostingList()
        for index in rows.indices.sorted(by: { rows[$0] < rows[$1] }) { sorted.append(index, of: self) }
        return sorted
    }
}

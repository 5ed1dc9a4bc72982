/// The postings of one word as a search reads them: rows ascending, each with its text's
/// length, the word's frequency there and, when kept, its positions (all rows' positions end to
/// end). For a phrase, the positions are where the phrase starts and the frequency is how often
/// it occurs.
///
/// ```swift
/// var postings = TermPostings(keepsPositions: true)
/// try postings.read(&reader)
/// let phrase = postings.followed(by: next, at: 1)
/// ```
struct TermPostings {
    let keepsPositions: Bool
    private(set) var rows: [UInt64] = []
    private(set) var lengths: [Int] = []
    private(set) var frequencies: [Int] = []
    /// Where each row's positions start in ``positions`` (one more entry than rows).
    private var starts: [Int] = [0]
    private var positions: [UInt32] = []
    private var scratch: [UInt32] = []

    init(keepsPositions: Bool) { self.keepsPositions = keepsPositions }

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    /// The positions of row number `index`.
    func positions(_ index: Int) -> ArraySlice<UInt32> { positions[starts[index]..<starts[index + 1]] }

    /// Reads every posting of a block.
    mutating func read(_ reader: inout PostingReader) throws {
        while true {
            let posting = try keepsPositions ? reader.next(positions: &scratch) : reader.next()
            guard let posting else { return }
            append(posting.row, length: posting.length, frequency: posting.frequency, positions: scratch)
        }
    }

    private mutating func append(_ row: UInt64, length: Int, frequency: Int, positions found: some Collection<UInt32>) {
        rows.append(row)
        lengths.append(length)
        frequencies.append(frequency)
        if keepsPositions { positions.append(contentsOf: found) }
        starts.append(positions.count)
    }

    /// Puts the rows of several terms (a prefix's) in order, one posting per row: frequencies
    /// added, positions merged in order.
    mutating func joinRows() {
        // One term's rows ascend, each once: nothing to join.
        guard zip(rows, rows.dropFirst()).contains(where: { $0 >= $1 }) else { return }
        let order = rows.indices.sorted { rows[$0] != rows[$1] ? rows[$0] < rows[$1] : $0 < $1 }
        var joined = TermPostings(keepsPositions: keepsPositions)
        var index = 0
        while index < order.count {
            let row = rows[order[index]]
            var end = index + 1
            while end < order.count && rows[order[end]] == row { end += 1 }
            let group = order[index..<end]
            let merged = keepsPositions ? group.flatMap { positions($0) }.sorted() : []
            joined.append(
                row, length: lengths[order[index]], frequency: group.reduce(0) { $0 + frequencies[$1] },
                positions: merged)
            index = end
        }
        self = joined
    }

    /// The occurrences of this phrase followed, `offset` words after its start, by the word of
    /// `next`: the rows in both where it is, with the phrase's start positions.
    func followed(by next: TermPostings, at offset: Int) -> TermPostings {
        var result = TermPostings(keepsPositions: true)
        var other = 0
        for index in 0..<count {
            while other < next.count && next.rows[other] < rows[index] { other += 1 }
            guard other < next.count, next.rows[other] == rows[index] else { continue }
            // Both ascending: one pass over each.
            let following = next.positions(other)
            var step = following.startIndex
            let kept = positions(index).filter { start in
                let wanted = UInt64(start) + UInt64(offset)
                while step < following.endIndex && UInt64(following[step]) < wanted { step += 1 }
                return step < following.endIndex && UInt64(following[step]) == wanted
            }
            guard !kept.isEmpty else { continue }
            result.append(rows[index], length: lengths[index], frequency: kept.count, positions: kept)
        }
        return result
    }
}

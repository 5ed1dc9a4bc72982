import Foundation

/// Row ids in the order they were added, kept as runs of consecutive ids: an ``UpsertReport``'s
/// rows, which for new rows (given consecutive ids) take a few bytes however many there are.
///
/// ```swift
/// var rows = RowRuns()
/// rows.append(contentsOf: [5, 6, 7, 2])
/// rows.runCount   // 2: [5-7], [2]
/// Array(rows)     // [5, 6, 7, 2]
/// ```
struct RowRuns: Sendable, Sequence {
    private var runs: [(first: UInt64, count: UInt64)] = []
    private(set) var count = 0
    /// How many runs hold the rows.
    var runCount: Int { runs.count }

    mutating func append(_ row: UInt64) {
        count += 1
        if let last = runs.last, last.first &+ last.count == row {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((row, 1))
        }
    }

    mutating func append(contentsOf rows: some Sequence<UInt64>) {
        for row in rows { append(row) }
    }

    func makeIterator() -> some IteratorProtocol<UInt64> {
        runs.lazy.flatMap { run in (0..<run.count).lazy.map { run.first + $0 } }.makeIterator()
    }
}

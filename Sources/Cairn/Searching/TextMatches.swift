/// The rows a query or a part of it matches, ascending, each with its BM25 score so far; what
/// AND, OR and NOT combine (``TextSearcher``).
///
/// ```swift
/// let both = swift.intersection(data)   // rows in both, scores added
/// ```
struct TextMatches {
    private(set) var rows: [UInt64] = []
    private(set) var scores: [Double] = []

    var count: Int { rows.count }

    mutating func append(_ row: UInt64, _ score: Double) {
        rows.append(row)
        scores.append(score)
    }

    /// The rows of both, with their scores added.
    func intersection(_ other: TextMatches) -> TextMatches {
        var result = TextMatches()
        var (left, right) = (0, 0)
        while left < count && right < other.count {
            let (a, b) = (rows[left], other.rows[right])
            if a == b { result.append(a, scores[left] + other.scores[right]) }
            if a <= b { left += 1 }
            if b <= a { right += 1 }
        }
        return result
    }

    /// The rows of either, with the scores of those in both added.
    func union(_ other: TextMatches) -> TextMatches {
        var result = TextMatches()
        result.rows.reserveCapacity(max(count, other.count))
        result.scores.reserveCapacity(max(count, other.count))
        var (left, right) = (0, 0)
        while left < count || right < other.count {
            let a = left < count ? rows[left] : .max
            let b = right < other.count ? other.rows[right] : .max
            if a == b && left < count && right < other.count {
                result.append(a, scores[left] + other.scores[right])
                (left, right) = (left + 1, right + 1)
            } else if left < count && (a < b || right == other.count) {
                result.append(a, scores[left])
                left += 1
            } else {
                result.append(b, other.scores[right])
                right += 1
            }
        }
        return result
    }

    /// The rows of these not in `other`, with their scores.
    func subtracting(_ other: TextMatches) -> TextMatches {
        var result = TextMatches()
        var right = 0
        for left in 0..<count {
            while right < other.count && other.rows[right] < rows[left] { right += 1 }
            if right < other.count && other.rows[right] == rows[left] { continue }
            result.append(rows[left], scores[left])
        }
        return result
    }

    /// The positions of the rows, best score first (ties: the lower row first).
    func ranked() -> [Int] {
        rows.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : rows[$0] < rows[$1] }
    }
}

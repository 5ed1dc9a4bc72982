import Foundation

/// Reads, for a context's live queries, what the commits since a given one changed, once: the
/// queries of a context are usually at the same commit, and a hundred of them reading the same
/// history entries a hundred times cost a hundred decodings per save.
///
/// ```swift
/// var reader = LiveChangeReader()
/// let changes = try reader.rows(after: 41, store: store)   // read
/// let again = try reader.rows(after: 41, store: store)     // the same, not read again
/// ```
struct LiveChangeReader {
    /// The last answer: the commit it was asked after, and what it said.
    private var last: (after: UInt64, answer: (through: UInt64, rows: [ChangedRow])?)?

    /// ``ChangedRow/rows(after:store:)``, from the last answer when it was asked after the same commit
    /// and the store has no newer one since.
    mutating func rows(after commit: UInt64, store: Store) throws -> (through: UInt64, rows: [ChangedRow])? {
        let newest = UInt64(truncatingIfNeeded: store.lastCommittedTransactionID)
        if let last, last.after == commit, let answer = last.answer, answer.through >= newest { return answer }
        let answer = try ChangedRow.rows(after: commit, store: store)
        last = (commit, answer)
        return answer
    }
}

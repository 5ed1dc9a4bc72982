import CairnStorage

/// What one save, or one build of an index, changes in a full-text table: the texts added and
/// removed, tokenized (``TextTokenizer``) and gathered by term before the write transaction, so
/// the transaction only merges each term's postings into its blocks (``PostingWriter``).
///
/// Rows may be placeholders (a save's new rows have no id until the transaction): `write`
/// resolves them.
///
/// ```swift
/// var changes = TextIndexChanges()
/// changes.remove(row: 3, text: oldBody)
/// changes.add(row: 3, text: newBody)
/// try changes.write(to: table, storedTerm: { $0 }, resolve: { $0 }, in: txn)
/// ```
struct TextIndexChanges {
    private var terms = TermTable()
    /// The postings added, by term number.
    private var additions: [PostingList] = []
    /// The rows whose postings are removed, by term number.
    private var removals: [[UInt64]] = []
    /// The documents and tokens added, less those removed.
    private(set) var documents = 0
    private(set) var tokens = 0
    /// One text's tokens as (term number, position), reused from text to text.
    private var scratch: [(term: Int, position: UInt32)] = []

    var isEmpty: Bool { terms.count == 0 && documents == 0 && tokens == 0 }

    /// Adds the postings of `text` as the text of `row`.
    mutating func add(row: UInt64, text: String) {
        tokenize(text)
        guard !scratch.isEmpty else { return }
        documents += 1
        tokens += scratch.count
        let length = scratch.count
        var start = 0
        while start < scratch.count {
            let term = scratch[start].term
            var end = start + 1
            while end < scratch.count && scratch[end].term == term { end += 1 }
            additions[term].append(row: row, length: length, positions: scratch[start..<end].lazy.map(\.position))
            start = end
        }
    }

    /// Removes the postings of `text`, the text `row` had.
    mutating func remove(row: UInt64, text: String) {
        tokenize(text)
        guard !scratch.isEmpty else { return }
        documents -= 1
        tokens -= scratch.count
        var previous = -1
        for token in scratch where token.term != previous {
            removals[token.term].append(row)
            previous = token.term
        }
    }

    /// Writes the changes to `table`: each term's postings merged into its blocks, in the order
    /// of the terms as stored (`storedTerm`), then the statistics.
    ///
    /// - Throws: `StorageError` when a block read is damaged or a write fails; what `resolve` throws.
    func write(
        to table: Table, storedTerm: ([UInt8]) -> [UInt8], resolve: (UInt64) throws -> UInt64,
        in txn: borrowing WriteTransaction
    ) throws {
        let writer = PostingWriter(table: table)
        let stored = (0..<terms.count).map { storedTerm(Array(terms.term($0))) }
        for id in stored.indices.sorted(by: { stored[$0].lexicographicallyPrecedes(stored[$1]) }) {
            var added = additions[id]
            try added.resolveRows(resolve)
            let removed = try removals[id].map(resolve).sorted()
            try writer.apply(term: stored[id][...], removing: removed, adding: added, in: txn)
        }
        try writer.addStatistics(documents: documents, tokens: tokens, in: txn)
    }

    /// Fills ``scratch`` with the tokens of `text`, sorted by term, then position.
    private mutating func tokenize(_ text: String) {
        scratch.removeAll(keepingCapacity: true)
        var position: UInt32 = 0
        TextTokenizer.forEachToken(in: text) { term, _ in
            let id = terms.intern(term)
            if id == additions.count {
                additions.append(PostingList())
                removals.append([])
            }
            scratch.append((id, position))
            position &+= 1
        }
        scratch.sort { $0.term != $1.term ? $0.term < $1.term : $0.position < $1.position }
    }
}

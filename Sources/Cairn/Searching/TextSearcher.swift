import CairnStorage
import Foundation

/// Evaluates a ``TextQuery`` over an entity's full-text indexes in one read transaction: each
/// word or phrase is looked up in every index searched, scored by BM25 there, and the rows are
/// combined by AND, OR and NOT (``TextMatches``). A row's score is the sum of its words' scores
/// in every attribute it matched in (each attribute with its own document count and average
/// length).
///
/// BM25 with k₁ = 1.2 and b = 0.75: a word's score in a text is
/// idf · tf · (k₁ + 1) / (tf + k₁ · (1 − b + b · length / average length)), with
/// idf = ln(1 + (N − n + 0.5) / (n + 0.5)) for N texts of which n hold the word. A phrase counts
/// as one word whose occurrences are the phrase's; a prefix as one word that is any of the words
/// it starts.
///
/// ```swift
/// let searcher = TextSearcher(tables: tables, indexes: tables.keys.texts)
/// let matches = try store.read { txn in try searcher.matches(query, in: txn) }
/// ```
struct TextSearcher {
    let tables: Store.EntityTables
    let indexes: [Store.EntityTables.TextIndex]

    static let k1 = 1.2
    static let b = 0.75

    /// The rows matching `query`, ascending, with their scores.
    ///
    /// - Throws: ``FetchError`` `.notSearchable` for a prefix in an encrypted store;
    ///   `StorageError` `.damagedRecord` when a block read is damaged.
    func matches(_ query: TextQuery, in txn: borrowing ReadTransaction) throws -> TextMatches {
        let statistics = try indexes.map { try PostingWriter.statistics(of: $0.table, in: txn) }
        func evaluate(_ node: TextQuery.Node) throws -> TextMatches {
            switch node {
            case .phrase(let words):
                var found = TextMatches()
                for (index, counts) in zip(indexes, statistics) where counts.documents > 0 {
                    found = found.union(try phrase(words, in: index, statistics: counts, txn))
                }
                return found
            case .all(let nodes):
                return try nodes.dropFirst().reduce(try evaluate(nodes[0])) { $0.intersection(try evaluate($1)) }
            case .any(let nodes):
                return try nodes.dropFirst().reduce(try evaluate(nodes[0])) { $0.union(try evaluate($1)) }
            case .excluding(let kept, let excluded):
                return try evaluate(kept).subtracting(try evaluate(excluded))
            }
        }
        return try evaluate(query.root)
    }

    /// The rows where `words` occur next to each other in order in `index`, scored.
    private func phrase(
        _ words: [TextQuery.Word], in index: Store.EntityTables.TextIndex,
        statistics: (documents: Int, tokens: Int), _ txn: borrowing ReadTransaction
    ) throws -> TextMatches {
        var occurrences = try postings(of: words[0], in: index, positions: words.count > 1, txn)
        for (offset, word) in words.enumerated().dropFirst() {
            guard !occurrences.isEmpty else { break }
            occurrences = occurrences.followed(by: try postings(of: word, in: index, positions: true, txn), at: offset)
        }
        return score(occurrences, statistics: statistics)
    }

    /// BM25 scores of the rows of `postings` (each with its frequency and its text's length).
    private func score(_ postings: TermPostings, statistics: (documents: Int, tokens: Int)) -> TextMatches {
        let documents = Double(statistics.documents)
        let average = max(Double(statistics.tokens) / max(documents, 1), 1)
        let holding = Double(postings.count)
        let idf = log(1 + (documents - holding + 0.5) / (holding + 0.5))
        var matches = TextMatches()
        for position in 0..<postings.count where tables.includes(row: postings.rows[position]) {
            let frequency = Double(postings.frequencies[position])
            let norm = Self.k1 * (1 - Self.b + Self.b * Double(postings.lengths[position]) / average)
            matches.append(postings.rows[position], idf * frequency * (Self.k1 + 1) / (frequency + norm))
        }
        return matches
    }

    /// The postings of `word` in `index`: of its term, or, for a prefix, of every term it starts
    /// (a row's frequencies and positions joined).
    private func postings(
        of word: TextQuery.Word, in index: Store.EntityTables.TextIndex, positions: Bool,
        _ txn: borrowing ReadTransaction
    ) throws -> TermPostings {
        if word.isPrefix && index.hasher != nil {
            throw FetchError(
                code: .notSearchable,
                message: "The query asks for words starting with '\(String(decoding: word.term, as: UTF8.self))', but "
                    + "\(tables.entityName.text).\(index.attribute) is in an encrypted store, whose index keeps keyed "
                    + "hashes of whole words, not the words. Search for whole words there.",
                model: nil, underlying: "")
        }
        let start =
            word.isPrefix ? PostingLayout.prefixStart(word.term) : PostingLayout.termStart(index.storedTerm(word.term))
        var found = TermPostings(keepsPositions: positions)
        try txn.withCursor(on: index.table) { cursor in
            var positioned = try cursor.seek(atLeast: start)
            while positioned, cursor.current.key.starts(with: start) {
                let (key, value) = cursor.current
                let (_, firstRow) = try PostingLayout.parseBlockKey(key, table: index.table)
                var reader = try PostingReader(value, key: key, firstRow: firstRow, table: index.table)
                try found.read(&reader)
                positioned = try cursor.next()
            }
        }
        if word.isPrefix { found.joinRows() }
        return found
    }
}

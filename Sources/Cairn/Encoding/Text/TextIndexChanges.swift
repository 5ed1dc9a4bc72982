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
    /// The postings added, in the order added, each a record of its term number (4 bytes,
    /// little-endian), its size (4 bytes), then the posting as ``PostingList/write(row:length:positions:to:)``
    /// makes it: one run of bytes, written in place (an array per term, appended to a posting at
    /// a time, cost more than tokenizing). ``write(to:storedTerm:resolve:in:)`` sorts them by term.
    private var gathered = ByteArena()
    /// The terms of the words tokenizing folded through Foundation, so each is folded once
    /// (shared by copies: it only remembers what folding gives).
    private let foldCache = FoldCache()
    /// Per term number: the bytes of its postings in ``gathered``.
    private var termBytes: [Int] = []
    private var additionBytes = 0
    /// The postings removed: their terms and rows.
    private var removals: [(term: Int32, row: UInt64)] = []
    /// The documents and tokens added, less those removed.
    private(set) var documents = 0
    private(set) var tokens = 0
    /// One text's terms, by position, reused from text to text.
    private var tokenTerms: [Int] = []
    /// Its distinct terms, in the order they first occur.
    private var distinct: [Int] = []
    /// Per term number: how often it occurs in the text, then where its positions start in
    /// ``grouped`` (kept at 0 between texts).
    private var counts: [Int] = []
    /// The text's positions, grouped by term in the order of ``distinct``.
    private var grouped: [UInt32] = []

    /// About how many bytes the write puts: the postings with their row deltas, a block key
    /// and an entry's overhead per term, and room for blocks rewritten around them.
    var expectedBytes: Int { additionBytes * 3 / 2 + 64 * terms.count }

    /// Adds the postings of `text` as the text of `row`.
    mutating func add(row: UInt64, text: String) {
        tokenize(text)
        guard !tokenTerms.isEmpty else { return }
        documents += 1
        tokens += tokenTerms.count
        group()
        if !isKnownUniquelyReferenced(&gathered) { gathered = gathered.copy() }
        let length = tokenTerms.count
        grouped.withUnsafeBufferPointer { grouped in
            var start = 0
            for term in distinct {
                let end = counts[term]
                let positions = UnsafeBufferPointer(rebasing: grouped[start..<end])
                let at = gathered.reserve(8 + PostingList.maximumLength(positions: positions.count))
                let size = PostingList.write(row: row, length: length, positions: positions, to: at + 8)
                at.storeBytes(of: UInt32(truncatingIfNeeded: term).littleEndian, as: UInt32.self)
                at.storeBytes(of: UInt32(truncatingIfNeeded: size).littleEndian, toByteOffset: 4, as: UInt32.self)
                gathered.keep(8 + size)
                termBytes[term] += size
                additionBytes += size
                counts[term] = 0
                start = end
            }
        }
    }

    /// Removes the postings of `text`, the text `row` had.
    mutating func remove(row: UInt64, text: String) {
        tokenize(text)
        guard !tokenTerms.isEmpty else { return }
        documents -= 1
        tokens -= tokenTerms.count
        for term in tokenTerms where counts[term] == 0 {
            removals.append((Int32(truncatingIfNeeded: term), row))
            counts[term] = 1
        }
        for term in tokenTerms { counts[term] = 0 }
    }

    /// Writes the changes to `table`: each term's postings merged into its blocks, in the order
    /// of the terms as stored (`storedTerm`), then the statistics.
    ///
    /// - Throws: `StorageError` when a block read is damaged or a write fails; what `resolve` throws.
    func write(
        to table: Table, storedTerm: ([UInt8]) -> [UInt8], resolve: (UInt64) throws -> UInt64,
        in txn: borrowing WriteTransaction
    ) throws {
        let removedRows = try removals.map { try resolve($0.row) }
        let removedByTerm = Self.grouped(removals.map(\.term), terms: terms.count)
        let stored = (0..<terms.count).map { storedTerm(Array(terms.term($0))) }
        let (byTerm, starts) = gatheredByTerm()
        var writer = try PostingWriter(table: table, in: txn)
        for term in Self.keyOrder(of: stored) {
            let removing = removedByTerm.order[removedByTerm.starts[term]..<removedByTerm.starts[term + 1]]
            try writer.apply(
                term: stored[term], removing: removing.map { removedRows[$0] }.sorted(),
                adding: byTerm.bytes(in: starts[term]..<starts[term + 1]), resolve: resolve, in: txn)
        }
        try writer.addStatistics(documents: documents, tokens: tokens, in: txn)
    }

    /// The gathered postings copied term by term (a counting sort on the term numbers), each
    /// term's in the order added, with where each term's postings start.
    private func gatheredByTerm() -> (bytes: ByteArena, starts: [Int]) {
        var starts = [Int](repeating: 0, count: termBytes.count + 1)
        for term in termBytes.indices { starts[term + 1] = starts[term] + termBytes[term] }
        let sorted = ByteArena(capacity: additionBytes)
        let base = sorted.reserve(additionBytes)
        var next = starts
        let source = UnsafeRawBufferPointer(gathered.bytes(in: 0..<gathered.count))
        var offset = 0
        while offset + 8 <= source.count {
            let term = Int(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let size = Int(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            (base + next[term]).copyMemory(from: source.baseAddress! + offset + 8, byteCount: size)
            next[term] += size
            offset += 8 + size
        }
        sorted.keep(additionBytes)
        return (sorted, starts)
    }

    /// The positions of `keys` in the order LMDB sorts them (bytes compared as unsigned, a
    /// prefix first). Sorted by each key's first eight bytes as one number, the bytes compared
    /// only where those tie: a comparison of arrays cost several times as much over a save's terms.
    private static func keyOrder(of keys: [[UInt8]]) -> [Int] {
        var entries = keys.indices.map { (prefix: prefix(of: keys[$0]), index: $0) }
        entries.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            return precedes(keys[left.index], keys[right.index])
        }
        return entries.map(\.index)
    }

    /// The first eight bytes of `key` as a big-endian number, zeros past its end.
    private static func prefix(of key: [UInt8]) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(index < key.count ? key[index] : 0) }
        return value
    }

    /// Whether `left` sorts before `right` as LMDB orders keys.
    private static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBytes { left in right.withUnsafeBytes { left.compareBytes(to: $0) < 0 } }
    }

    /// The positions in `postingTerms` grouped by the term number there, each group in its order
    /// (a counting sort over `terms` numbers), with where each term's group starts.
    private static func grouped(_ postingTerms: [Int32], terms: Int) -> (order: [Int], starts: [Int]) {
        var starts = [Int](repeating: 0, count: terms + 1)
        for term in postingTerms { starts[Int(term) + 1] += 1 }
        for term in 0..<terms { starts[term + 1] += starts[term] }
        var next = starts
        var order = [Int](repeating: 0, count: postingTerms.count)
        for (position, term) in postingTerms.enumerated() {
            order[next[Int(term)]] = position
            next[Int(term)] += 1
        }
        return (order, starts)
    }

    /// Fills ``tokenTerms`` with the term numbers of `text`'s tokens, new terms interned.
    private mutating func tokenize(_ text: String) {
        tokenTerms.removeAll(keepingCapacity: true)
        TextTokenizer.forEachToken(in: text, cache: foldCache) { term, _ in
            let id = terms.intern(term)
            if id == counts.count {
                counts.append(0)
                termBytes.append(0)
            }
            tokenTerms.append(id)
        }
    }

    /// Groups the text's positions by term (a counting sort, positions ascending within each):
    /// fills ``distinct`` and ``grouped``, and leaves in ``counts`` where each term's positions end.
    private mutating func group() {
        distinct.removeAll(keepingCapacity: true)
        for term in tokenTerms {
            if counts[term] == 0 { distinct.append(term) }
            counts[term] += 1
        }
        var end = 0
        for term in distinct {
            end += counts[term]
            counts[term] = end - counts[term]
        }
        grouped.removeAll(keepingCapacity: true)
        grouped.append(contentsOf: repeatElement(0, count: tokenTerms.count))
        for (position, term) in tokenTerms.enumerated() {
            grouped[counts[term]] = UInt32(truncatingIfNeeded: position)
            counts[term] += 1
        }
    }
}

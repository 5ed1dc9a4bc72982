import CairnStorage

/// Reads one vector index for a similarity search: the nodes nearest a vector through the
/// graph, or every node's distance for an exact search.
///
/// ```swift
/// let searcher = VectorSearcher(index: index, vector: embedding)
/// let (nearest, total) = try store.read { txn in try searcher.approximate(effort: 64, in: txn) }
/// ```
struct VectorSearcher {
    let index: Store.EntityTables.VectorIndex
    /// The vector sought, as the index keeps vectors.
    let query: [Float]

    init(index: Store.EntityTables.VectorIndex, vector: [Float]) {
        self.index = index
        query = index.distance.prepared(vector)
    }

    /// Up to `effort` nodes nearest the query, nearest first, and how many nodes the index has.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the index is damaged.
    func approximate(
        effort: Int, in txn: borrowing ReadTransaction
    ) throws -> (
        nearest: [VectorCandidate], total: Int
    ) {
        var reader = VectorGraphReader(table: index.table, distance: index.distance)
        guard let header = try checkedHeader(reader, in: txn) else { return ([], 0) }
        // No walk keeps more candidates than there are nodes.
        let effort = min(effort, max(Int(clamping: header.count), 1))
        let nearest = try query.withUnsafeBytes { query in
            try HNSWSearch.nearest(&reader, query: query.baseAddress!, header: header, effort: effort, in: txn)
        }
        return (nearest, Int(clamping: header.count))
    }

    /// Every node's distance from the query, in row order.
    func exact(in txn: borrowing ReadTransaction) throws -> [VectorCandidate] {
        let reader = VectorGraphReader(table: index.table, distance: index.distance)
        guard try checkedHeader(reader, in: txn) != nil else { return [] }
        return try query.withUnsafeBytes { query in try reader.scan(from: query.baseAddress!, in: txn) }
    }

    /// The index's header, once it is of the declared shape (a read-only store opened with
    /// another declaration has not rebuilt it).
    private func checkedHeader(
        _ reader: VectorGraphReader, in txn: borrowing ReadTransaction
    ) throws -> VectorLayout.Header? {
        guard let header = try reader.header(in: txn) else { return nil }
        guard header.metric == index.distance.metric, header.dimensions == index.distance.dimensions else {
            throw FetchError(
                code: .notSearchable,
                message: "The vector index of \(index.attribute) was built for \(header.dimensions) dimensions by "
                    + "\(header.metric) distance, and the schema now declares \(index.distance.dimensions) by "
                    + "\(index.distance.metric). Open the store once with allowsSave: true to build it again.",
                model: nil, underlying: "")
        }
        return header
    }
}

extension VectorCandidate {
    /// The `count` candidates of `all` nearest first, ties by row, as a whole sort would give
    /// them, in O(n log count).
    static func nearest(_ count: Int, of all: [VectorCandidate]) -> [VectorCandidate] {
        guard count < all.count else { return all.sorted(by: precedes) }
        var kept = CandidateHeap(nearestFirst: false)
        for candidate in all {
            if kept.count < count {
                kept.push(candidate)
            } else if let farthest = kept.top, precedes(candidate, farthest) {
                _ = kept.pop()
                kept.push(candidate)
            }
        }
        return kept.elements.sorted(by: precedes)
    }
}

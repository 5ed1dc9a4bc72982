import CairnStorage

/// A vector index's graph as its table holds it, for searches: each distance reads the node's
/// vector where the store keeps it (no copy), each walk step the node's links.
///
/// ```swift
/// var reader = VectorGraphReader(table: table, distance: distance)
/// let nearest = try HNSWSearch.nearest(&reader, query: query, header: header, effort: 64, in: txn)
/// ```
struct VectorGraphReader: VectorGraph {
    let table: Table
    let distance: VectorDistance
    /// A key rewritten for each lookup (no array made per node read).
    private var key = [UInt8](repeating: 0, count: 9)

    init(table: Table, distance: VectorDistance) {
        self.table = table
        self.distance = distance
    }

    mutating func distance<T: StorageTransaction & ~Copyable>(
        from query: UnsafeRawPointer, to row: UInt64, in txn: borrowing T
    ) throws -> Float? {
        let measure = distance
        return try withNode(row, in: txn) { _, vector in measure(query, vector.baseAddress!) }
    }

    mutating func links<T: StorageTransaction & ~Copyable>(
        of row: UInt64, level: Int, in txn: borrowing T
    ) throws -> [UInt64] {
        guard let levels = try storedLinks(of: row, in: txn), level < levels.count else { return [] }
        return levels[level]
    }

    /// Calls `body` with the level and the vector's bytes of the node of `row` (valid during the
    /// call); `nil` when there is no such node.
    mutating func withNode<T: StorageTransaction & ~Copyable, R>(
        _ row: UInt64, in txn: borrowing T, _ body: (Int, UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        setKey(VectorLayout.nodeMarker, row)
        let (table, dimensions) = (table, distance.dimensions)
        return try key.withUnsafeBytes { key in
            try txn.withValue(for: key, in: table) { value in
                let node = try VectorLayout.node(value, dimensions: dimensions, key: key, table: table)
                return try body(node.level, node.vector)
            }
        }
    }

    /// The links of the node of `row` on every level, level 0 first; `nil` when none are stored.
    mutating func storedLinks<T: StorageTransaction & ~Copyable>(
        of row: UInt64, in txn: borrowing T
    ) throws -> [[UInt64]]? {
        setKey(VectorLayout.linksMarker, row)
        let table = table
        return try key.withUnsafeBytes { key in
            try txn.withValue(for: key, in: table) { try VectorLayout.links($0, key: key, table: table) }
        }
    }

    /// The index's header; `nil` before the index was first written.
    func header<T: StorageTransaction & ~Copyable>(in txn: borrowing T) throws -> VectorLayout.Header? {
        let table = table
        return try txn.withValue(for: VectorLayout.headerKey, in: table) { try VectorLayout.header($0, table: table) }
    }

    /// Every node's distance from `query`, in row order: an exact search's work.
    func scan<T: StorageTransaction & ~Copyable>(
        from query: UnsafeRawPointer, in txn: borrowing T
    ) throws -> [VectorCandidate] {
        var all: [VectorCandidate] = []
        let (table, distance, dimensions) = (table, distance, distance.dimensions)
        try txn.scan(table, .prefix([VectorLayout.nodeMarker])) { key, value in
            let row = try VectorLayout.row(ofNodeKey: key, table: table)
            let vector = try VectorLayout.node(value, dimensions: dimensions, key: key, table: table).vector
            all.append(VectorCandidate(distance: distance(query, vector.baseAddress!), row: row))
            return true
        }
        return all
    }

    private mutating func setKey(_ marker: UInt8, _ row: UInt64) {
        key[0] = marker
        withUnsafeBytes(of: row.bigEndian) { bytes in
            for index in 0..<8 { key[1 + index] = bytes[index] }
        }
    }
}

import CairnStorage

/// A vector index's graph being changed in a write transaction: nodes are read from the table
/// once, as the changes reach them, kept in memory with their vectors, changed there, and
/// written back together by ``write(in:)``.
///
/// Inserting a node is the paper's INSERT: a search of each of its levels for the
/// ``HNSWParameters/constructionEffort`` nearest nodes, of which it links to
/// ``HNSWParameters/links`` chosen by the paper's heuristic (a candidate is kept when it is
/// nearer to the new node than to every one kept before it, then the nearest of the rest fill
/// up), and each of those links back, choosing again among its links when it has more than its
/// capacity. Removing a node relinks each node that linked to it among their links and its own,
/// so the graph stays connected; links to it from nodes it did not link to are left, and read as
/// missing nodes (they go as those nodes' links are next chosen). When the entry node goes, the
/// highest of its neighbours takes its place.
///
/// ```swift
/// var editor = try VectorGraphEditor(table: table, distance: distance, in: txn)
/// try editor.remove(row: 7, in: txn)
/// try editor.insert(row: 7, vector: embedding, in: txn)
/// try editor.write(in: txn)
/// ```
struct VectorGraphEditor: VectorGraph {
    let table: Table
    let distance: VectorDistance
    private(set) var header: VectorLayout.Header
    /// Reads the nodes the changes reach, the first time each is met.
    private var reader: VectorGraphReader
    private var nodes: [UInt64: Node] = [:]
    /// Rows whose node was removed or whose links changed, to write.
    private var changed: Set<UInt64> = []
    private let vectors: VectorArena

    private struct Node {
        /// Where the vector is in ``vectors``; `nil` for a row with no node.
        var slot: Int?
        var links: [[UInt64]] = []
        /// Whether the node's vector is not yet in the table.
        var isNew = false
        var level: Int { links.count - 1 }
    }

    /// An editor of the graph in `table`, whose vectors have `distance`'s metric and length.
    init(table: Table, distance: VectorDistance, in txn: borrowing WriteTransaction) throws {
        self.table = table
        self.distance = distance
        vectors = VectorArena(dimensions: distance.dimensions)
        reader = VectorGraphReader(table: table, distance: distance)
        header =
            try reader.header(in: txn) ?? VectorLayout.Header(metric: distance.metric, dimensions: distance.dimensions)
    }

    // MARK: Reading

    mutating func distance<T: StorageTransaction & ~Copyable>(
        from query: UnsafeRawPointer, to row: UInt64, in txn: borrowing T
    ) throws -> Float? {
        guard let slot = try node(row, in: txn).slot else { return nil }
        return distance(query, vectors[slot])
    }

    mutating func links<T: StorageTransaction & ~Copyable>(
        of row: UInt64, level: Int, in txn: borrowing T
    ) throws -> [UInt64] {
        let node = try node(row, in: txn)
        return level < node.links.count ? node.links[level] : []
    }

    /// The node of `row`, read from the table the first time.
    private mutating func node<T: StorageTransaction & ~Copyable>(
        _ row: UInt64, in txn: borrowing T
    ) throws -> Node {
        if let known = nodes[row] { return known }
        let vectors = vectors
        var node = Node()
        let level = try reader.withNode(row, in: txn) { level, vector in
            node.slot = vectors.append(vector)
            return level
        }
        if let level {
            let stored = try reader.storedLinks(of: row, in: txn) ?? []
            node.links = (0...level).map { $0 < stored.count ? stored[$0] : [] }
        }
        nodes[row] = node
        return node
    }

    // MARK: Changing

    /// Adds the node of `row` with `vector` (of the index's length, finite), linked into the graph.
    mutating func insert(row: UInt64, vector: [Float], in txn: borrowing WriteTransaction) throws {
        if try node(row, in: txn).slot != nil { try remove(row: row, in: txn) }
        let slot = distance.prepared(vector).withUnsafeBytes { vectors.append($0) }
        let level = HNSWParameters.level(of: row)
        nodes[row] = Node(slot: slot, links: Array(repeating: [], count: level + 1), isNew: true)
        changed.insert(row)
        // Saturating: a damaged count must not trap.
        header.count = header.count == .max ? .max : header.count + 1
        guard let entry = header.entry, let entryDistance = try distance(from: vectors[slot], to: entry.row, in: txn)
        else {
            header.entry = (row, level)
            return
        }
        let query = vectors[slot]
        var nearest = [VectorCandidate(distance: entryDistance, row: entry.row)]
        for upper in stride(from: entry.level, to: level, by: -1) {
            nearest = try HNSWSearch.layer(&self, query: query, from: nearest, effort: 1, level: upper, in: txn)
        }
        for current in stride(from: min(level, entry.level), through: 0, by: -1) {
            nearest = try HNSWSearch.layer(
                &self, query: query, from: nearest, effort: HNSWParameters.constructionEffort, level: current, in: txn)
            let chosen = try choose(HNSWParameters.links, of: nearest.filter { $0.row != row }, in: txn)
            nodes[row]!.links[current] = chosen
            for neighbour in chosen { try link(neighbour, to: row, level: current, in: txn) }
        }
        if level > entry.level { header.entry = (row, level) }
    }

    /// Removes the node of `row`, if there is one, relinking the nodes it linked to.
    mutating func remove(row: UInt64, in txn: borrowing WriteTransaction) throws {
        let removed = try node(row, in: txn)
        guard removed.slot != nil else { return }
        nodes[row] = Node()
        changed.insert(row)
        header.count = header.count > 0 ? header.count - 1 : 0
        for level in removed.links.indices {
            for neighbour in removed.links[level] where neighbour != row {
                let node = try node(neighbour, in: txn)
                guard let slot = node.slot, level < node.links.count, node.links[level].contains(row) else { continue }
                let candidates = Set(node.links[level] + removed.links[level]).subtracting([row, neighbour])
                try relink(neighbour, level: level, slot: slot, among: candidates, in: txn)
            }
        }
        if header.entry?.row == row { header.entry = try newEntry(after: removed, in: txn) }
    }

    /// Writes every changed node and the header.
    func write(in txn: borrowing WriteTransaction) throws {
        for row in changed.sorted() {
            let node = nodes[row]!
            let (nodeKey, linksKey) = (VectorLayout.nodeKey(row: row), VectorLayout.linksKey(row: row))
            guard let slot = node.slot else {
                _ = try txn.delete(nodeKey, in: table)
                _ = try txn.delete(linksKey, in: table)
                continue
            }
            if node.isNew {
                let vector = UnsafeRawBufferPointer(start: vectors[slot], count: distance.dimensions * 4)
                try txn.put(VectorLayout.node(level: node.level, vector: vector), for: nodeKey, in: table)
            }
            try txn.put(VectorLayout.links(node.links, key: linksKey), for: linksKey, in: table)
        }
        try txn.put(VectorLayout.header(header), for: VectorLayout.headerKey, in: table)
    }

    // MARK: Links

    /// Adds a link from `row` to `target` on `level`, choosing again among its links when that
    /// passes its capacity.
    private mutating func link(_ row: UInt64, to target: UInt64, level: Int, in txn: borrowing WriteTransaction) throws
    {
        let node = try node(row, in: txn)
        guard let slot = node.slot, level < node.links.count else { return }
        var links = node.links[level]
        links.append(target)
        guard links.count > HNSWParameters.capacity(on: level) else {
            nodes[row]!.links[level] = links
            changed.insert(row)
            return
        }
        try relink(row, level: level, slot: slot, among: Set(links), in: txn)
    }

    /// Sets the links of `row` (whose vector is at `slot`) on `level` to those chosen among
    /// `candidates` that still have nodes.
    private mutating func relink(
        _ row: UInt64, level: Int, slot: Int, among candidates: Set<UInt64>, in txn: borrowing WriteTransaction
    ) throws {
        var measured: [VectorCandidate] = []
        for candidate in candidates {
            guard let distance = try distance(from: vectors[slot], to: candidate, in: txn) else { continue }
            measured.append(VectorCandidate(distance: distance, row: candidate))
        }
        measured.sort(by: VectorCandidate.precedes)
        nodes[row]!.links[level] = try choose(HNSWParameters.capacity(on: level), of: measured, in: txn)
        changed.insert(row)
    }

    /// Up to `count` of `candidates` (nearest first) to link to: each one nearer to the node
    /// than to every one chosen before it, then the nearest of the others.
    private mutating func choose(
        _ count: Int, of candidates: [VectorCandidate], in txn: borrowing WriteTransaction
    ) throws -> [UInt64] {
        var chosen: [UInt64] = []
        var passed: [UInt64] = []
        for candidate in candidates where chosen.count < count {
            guard let slot = try node(candidate.row, in: txn).slot else { continue }
            var diverse = true
            for other in chosen
            where try distance(from: vectors[slot], to: other, in: txn) ?? .infinity
                < candidate.distance
            {
                diverse = false
                break
            }
            if diverse { chosen.append(candidate.row) } else { passed.append(candidate.row) }
        }
        return chosen + passed.prefix(count - chosen.count)
    }

    /// The node to enter the graph at once `removed`, the entry, is gone: the highest of its
    /// neighbours, or, when it had none, the highest node in the table.
    private mutating func newEntry(
        after removed: Node, in txn: borrowing WriteTransaction
    ) throws -> (row: UInt64, level: Int)? {
        var best: (row: UInt64, level: Int)?
        for row in Set(removed.links.joined()) {
            let node = try node(row, in: txn)
            if node.slot != nil, node.level > best?.level ?? -1 { best = (row, node.level) }
        }
        if let best { return best }
        try txn.scan(table, .prefix([VectorLayout.nodeMarker])) { key, value in
            let row = try VectorLayout.row(ofNodeKey: key, table: table)
            let level = Int(min(value.first ?? 0, HNSWParameters.maximumLevel))
            // A row this save removed is in the table still, but not in the graph.
            let isLive = nodes[row].map { $0.slot != nil } ?? true
            if isLive, level > best?.level ?? -1 { best = (row, level) }
            return true
        }
        for (row, node) in nodes where node.slot != nil && node.level > best?.level ?? -1 { best = (row, node.level) }
        return best
    }
}

/// The vectors a ``VectorGraphEditor`` holds, in chunks that never move, so a pointer to one
/// stays valid while others are added.
final class VectorArena {
    private let dimensions: Int
    private var chunks: [UnsafeMutableRawPointer] = []
    private(set) var count = 0
    private static let chunkVectors = 1_024

    init(dimensions: Int) { self.dimensions = dimensions }

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// Copies `vector` (`dimensions` little-endian f32s) in; its slot.
    func append(_ vector: UnsafeRawBufferPointer) -> Int {
        let slot = count
        if slot % Self.chunkVectors == 0 {
            chunks.append(.allocate(byteCount: Self.chunkVectors * dimensions * 4, alignment: 16))
        }
        self[slot].copyMemory(from: vector.baseAddress!, byteCount: dimensions * 4)
        count += 1
        return slot
    }

    subscript(slot: Int) -> UnsafeMutableRawPointer {
        chunks[slot / Self.chunkVectors] + (slot % Self.chunkVectors) * dimensions * 4
    }
}

import CairnStorage
import Foundation

/// The shape of every vector index's graph (HNSW: Malkov and Yashunin, "Efficient and robust
/// approximate nearest neighbor search using Hierarchical Navigable Small World graphs").
///
/// Each node is on level 0 and, with probability 1/16 per level, on each level above; a node
/// links to up to ``links`` others on each upper level and twice that on level 0. A node's level
/// comes from a hash of its row, so a graph is the same however often it is built.
///
/// ```swift
/// let level = HNSWParameters.level(of: row)
/// ```
enum HNSWParameters {
    /// Links a new node makes on each level (M).
    static let links = 16
    /// Candidates an insertion considers on each level (efConstruction).
    static let constructionEffort = 100
    /// Candidates a search keeps on level 0 unless the descriptor asks for more (ef).
    static let searchEffort = 64
    /// The highest level a node can have.
    static let maximumLevel: UInt8 = 15

    /// The most links a node keeps on `level`.
    static func capacity(on level: Int) -> Int { level == 0 ? 2 * links : links }

    /// The level of the node of `row`: ⌊−ln(u) / ln(M)⌋ for u uniform in (0, 1] drawn from the row.
    static func level(of row: UInt64) -> Int {
        // SplitMix64's finaliser: rows in sequence give unrelated draws.
        var bits = row &+ 0x9E37_79B9_7F4A_7C15
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        bits ^= bits >> 31
        let uniform = (Double(bits >> 11) + 1) / Double(1 << 53)
        return min(Int(-log(uniform) / log(Double(links))), Int(maximumLevel))
    }
}

/// A node met in a search, with its distance from what is sought.
struct VectorCandidate: Sendable {
    var distance: Float
    var row: UInt64

    /// Whether `a` comes before `b`: nearer, or as near and of a lower row.
    static func precedes(_ a: VectorCandidate, _ b: VectorCandidate) -> Bool {
        (a.distance, a.row) < (b.distance, b.row)
    }
}

/// Where an HNSW search reads a graph: the store's table as committed (``VectorGraphReader``), or
/// a write transaction's graph as it is being changed (``VectorGraphEditor``).
protocol VectorGraph {
    /// The distance from `query` (a prepared vector) to the node of `row`; `nil` when there is
    /// no such node (a link left by a removed one).
    mutating func distance<T: StorageTransaction & ~Copyable>(
        from query: UnsafeRawPointer, to row: UInt64, in txn: borrowing T
    ) throws -> Float?

    /// The rows the node of `row` links to on `level` (none above its own level).
    mutating func links<T: StorageTransaction & ~Copyable>(
        of row: UInt64, level: Int, in txn: borrowing T
    ) throws -> [UInt64]
}

/// The searches of an HNSW graph, for any ``VectorGraph``.
///
/// ```swift
/// let nearest = try HNSWSearch.nearest(&reader, query: pointer, header: header, effort: 64, in: txn)
/// ```
enum HNSWSearch {
    /// Up to `effort` nodes nearest `query`, nearest first: greedy descent through the upper
    /// levels from the graph's entry, then a search of level 0.
    static func nearest<G: VectorGraph, T: StorageTransaction & ~Copyable>(
        _ graph: inout G, query: UnsafeRawPointer, header: VectorLayout.Header, effort: Int, in txn: borrowing T
    ) throws -> [VectorCandidate] {
        guard let entry = header.entry,
            let distance = try graph.distance(from: query, to: entry.row, in: txn)
        else { return [] }
        var nearest = [VectorCandidate(distance: distance, row: entry.row)]
        for level in stride(from: entry.level, to: 0, by: -1) {
            nearest = try layer(&graph, query: query, from: nearest, effort: 1, level: level, in: txn)
        }
        return try layer(&graph, query: query, from: nearest, effort: effort, level: 0, in: txn)
    }

    /// The `effort` nodes nearest `query` that a best-first walk of `level` from `entries`
    /// reaches, nearest first (the paper's SEARCH-LAYER).
    static func layer<G: VectorGraph, T: StorageTransaction & ~Copyable>(
        _ graph: inout G, query: UnsafeRawPointer, from entries: [VectorCandidate], effort: Int, level: Int,
        in txn: borrowing T
    ) throws -> [VectorCandidate] {
        var visited = Set(entries.map(\.row))
        visited.reserveCapacity(min(effort, 1 << 16) * 8)
        var frontier = CandidateHeap(nearestFirst: true, entries)
        var found = CandidateHeap(nearestFirst: false, entries)
        while let closest = frontier.pop() {
            if found.count >= effort, let farthest = found.top, closest.distance > farthest.distance { break }
            for row in try graph.links(of: closest.row, level: level, in: txn) where visited.insert(row).inserted {
                guard let distance = try graph.distance(from: query, to: row, in: txn) else { continue }
                if found.count < effort || distance < found.top!.distance {
                    let candidate = VectorCandidate(distance: distance, row: row)
                    frontier.push(candidate)
                    found.push(candidate)
                    if found.count > effort { _ = found.pop() }
                }
            }
        }
        return found.elements.sorted(by: VectorCandidate.precedes)
    }
}

/// A binary heap of candidates: nearest on top for a search's frontier, farthest on top for
/// the nodes it keeps.
struct CandidateHeap {
    private(set) var elements: [VectorCandidate] = []
    private let nearestFirst: Bool

    init(nearestFirst: Bool, _ elements: some Sequence<VectorCandidate> = []) {
        self.nearestFirst = nearestFirst
        for element in elements { push(element) }
    }

    var count: Int { elements.count }
    var top: VectorCandidate? { elements.first }

    @inline(__always)
    private func above(_ a: Int, _ b: Int) -> Bool {
        nearestFirst
            ? VectorCandidate.precedes(elements[a], elements[b]) : VectorCandidate.precedes(elements[b], elements[a])
    }

    mutating func push(_ element: VectorCandidate) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0, case let parent = (child - 1) / 2, above(child, parent) {
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> VectorCandidate? {
        guard let top = elements.first else { return nil }
        let last = elements.removeLast()
        guard !elements.isEmpty else { return top }
        elements[0] = last
        var parent = 0
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var best = parent
            if left < elements.count, above(left, best) { best = left }
            if right < elements.count, above(right, best) { best = right }
            if best == parent { break }
            elements.swapAt(parent, best)
            parent = best
        }
        return top
    }
}

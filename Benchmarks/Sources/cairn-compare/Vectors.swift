import BenchmarkModels
import Cairn
import Foundation

// W13: nearest-neighbour search over n embeddings of 384 dimensions (n = 100,000 for the
// issue's figure). There is no embedding model here, so the vectors are made the way real
// embeddings are shaped: 200 topics in a 32-dimensional space of meaning, each passage near one
// topic, mapped into 384 dimensions by one fixed random linear map, plus noise in every
// dimension (real embeddings have an intrinsic dimension of tens, not 384; uniform random
// vectors would not be like them). Queries are made the same way and are not in the store.
//
// - Build: every passage inserted and saved in one transaction, the HNSW graph written in it.
// - Queries: 200 queries for the 10 nearest by cosine distance, their models' numbers read,
//   exact (every vector compared) and approximate (the graph, its default effort and more), each
//   without a filter and with `category == 3` (a tenth of the passages). Recall@10: the share of
//   the exact ten the approximate search returns, over all queries.
enum VectorWorkload {
    static let dimensions = 384

    /// Embedding-shaped vectors from `seed`: topic centres, then points near them.
    struct Embeddings {
        var random: SplitMix
        let map: [[Float]]  // 384 × 32
        let topics: [[Float]]  // 200 × 32

        init(seed: UInt64) {
            random = SplitMix(seed: seed)
            var random = random
            map = (0..<VectorWorkload.dimensions).map { _ in (0..<32).map { _ in Self.gaussian(&random) } }
            topics = (0..<200).map { _ in (0..<32).map { _ in Self.gaussian(&random) } }
            self.random = random
        }

        /// Whether points are drawn from no structure at all (independent normal numbers in
        /// every dimension): the hardest case for any graph index, unlike real embeddings.
        var isUnstructured = false
        /// How far a passage lies from its topic in the space of meaning, and the noise added in
        /// every dimension (`CAIRN_VECTORS=spread`: 1.0 and 4.0, passages that share a topic far
        /// less, and as much noise per dimension as a quarter of the signal).
        var spread: (topic: Float, noise: Float) = (0.45, 0.8)

        mutating func next() -> [Float] {
            if isUnstructured { return (0..<VectorWorkload.dimensions).map { _ in Self.gaussian(&random) } }
            let topic = topics[Int(random.next() % UInt64(topics.count))]
            let meaning = topic.map { $0 + spread.topic * Self.gaussian(&random) }
            return map.map { row in
                var sum: Float = 0
                for index in 0..<32 { sum += row[index] * meaning[index] }
                return sum + spread.noise * Self.gaussian(&random)
            }
        }

        static func gaussian(_ random: inout SplitMix) -> Float {
            let u = (Double(random.next() >> 11) + 1) / Double(1 << 53)
            let v = Double(random.next() >> 11) / Double(1 << 53)
            return Float((-2 * log(u)).squareRoot() * cos(2 * .pi * v))
        }
    }

    /// The workload; with CAIRN_VECTORS=unstructured, on vectors with no structure (only the
    /// recall is of interest there).
    static func run(n: Int, rounds: Int) throws {
        var embeddings = Embeddings(seed: 13)
        embeddings.isUnstructured = ProcessInfo.processInfo.environment["CAIRN_VECTORS"] == "unstructured"
        if ProcessInfo.processInfo.environment["CAIRN_VECTORS"] == "spread" { embeddings.spread = (1.0, 4.0) }
        let vectors = (0..<n).map { _ in embeddings.next() }
        let queries = (0..<200).map { _ in embeddings.next() }
        let directory = scratchDirectory("w13-cairn")
        let url = directory.appendingPathComponent("Passages.store")
        let built = try measure {
            let container = try ModelContainer(for: Passage.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for (number, vector) in vectors.enumerated() {
                context.insert(Passage(number: number, category: number % 10, embedding: vector))
            }
            try context.save()
            return n
        }
        print("W13 build: \(n) passages of \(dimensions) dimensions inserted and saved at \(Int(built.perSecond))/s")
        let container = try ModelContainer(for: Passage.self, configurations: ModelConfiguration(url: url))
        var lines: [String] = []
        for filtered in [false, true] {
            let predicate = filtered ? #Predicate<Passage> { $0.category == 3 } : nil
            var exactAnswers: [[Int]] = []
            let exact = try timed(rounds) {
                exactAnswers = try answers(queries, container, predicate: predicate, exact: true, effort: nil)
            }
            lines.append(line("exact", filtered, exact, recall: 1))
            for effort in [nil, 128, 512] as [Int?] {
                var found: [[Int]] = []
                let approximate = try timed(rounds) {
                    found = try answers(queries, container, predicate: predicate, exact: false, effort: effort)
                }
                let recall = zip(found, exactAnswers).reduce(0) { $0 + Set($1.0).intersection($1.1).count }
                let name = "HNSW, effort \(effort.map(String.init) ?? "64 (default)")"
                lines.append(
                    line(name, filtered, approximate, recall: Double(recall) / Double(exactAnswers.joined().count))
                        + String(format: "  %.1f× exact", approximate / exact))
            }
        }
        print("W13 queries (\(queries.count) queries for the 10 nearest, median of \(rounds) rounds):")
        for line in lines { print("  " + line) }
    }

    /// Each query's 10 nearest passages' numbers.
    static func answers(
        _ queries: [[Float]], _ container: ModelContainer, predicate: Predicate<Passage>?, exact: Bool, effort: Int?
    ) throws -> [[Int]] {
        let context = ModelContext(container)
        return try queries.map { query in
            try context.search(
                SimilarityDescriptor<Passage>(
                    nearest: query, predicate: predicate, fetchLimit: 10, isExact: exact, searchEffort: effort)
            ).map(\.model.number)
        }
    }

    /// The median over `rounds` runs of `body`, in queries a second (200 queries a run).
    static func timed(_ rounds: Int, _ body: () throws -> Void) throws -> Double {
        var figures: [Double] = []
        for _ in 0..<max(rounds, 1) {
            figures.append(
                try measure {
                    try body(); return 200
                }.perSecond)
        }
        return figures.sorted()[figures.count / 2]
    }

    static func line(_ name: String, _ filtered: Bool, _ perSecond: Double, recall: Double) -> String {
        (name + (filtered ? ", category == 3" : "")).padding(toLength: 42, withPad: " ", startingAt: 0)
            + String(format: "%9.0f queries/s  recall@10 %.3f", perSecond, recall)
    }
}

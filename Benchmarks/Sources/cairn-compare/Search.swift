import BenchmarkModels
import Cairn
import Foundation
import GRDB

// W12: full-text search over n paragraphs of real text (n = 100,000 or more for the issue's
// figure): the Sphinx sources of the Linux kernel's documentation, as Debian's package
// linux-doc-6.1 installs them (`apt-get install linux-doc-6.1`; another directory of `.txt`
// files with CAIRN_SEARCH_CORPUS). A paragraph is a run of lines between blank lines, of at
// least 40 characters, taken in the order of the files' paths.
//
// - Building: every paragraph inserted and saved in one transaction, with its full-text index:
//   Cairn's `@Attribute(.spotlight)` against GRDB inserting into an FTS5 table (`unicode61`,
//   diacritics removed), as a GRDB expert would, in WAL mode. Throughput: paragraphs a second.
// - Querying: 400 queries drawn from the corpus (single words of three frequencies, two words
//   with AND, two-word phrases, prefixes), each for the 10 best by BM25 with their bodies read:
//   `context.search` against `MATCH … ORDER BY rank LIMIT 10`. Throughput: queries a second.
enum SearchWorkload {
    static var corpusDirectory: String {
        ProcessInfo.processInfo.environment["CAIRN_SEARCH_CORPUS"] ?? "/usr/share/doc/linux-doc-6.1/html/_sources"
    }

    /// The first `n` paragraphs of the corpus, with the path of the file each came from.
    static func corpus(_ n: Int) throws -> [(source: String, body: String)] {
        let root = URL(fileURLWithPath: corpusDirectory)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: root.path])
        }
        let paths = walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".txt") }.sorted()
        var paragraphs: [(String, String)] = []
        for path in paths where paragraphs.count < n {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            for block in text.components(separatedBy: "\n\n") {
                let body = block.trimmingCharacters(in: .whitespacesAndNewlines)
                if body.count >= 40 && paragraphs.count < n { paragraphs.append((path, body)) }
            }
        }
        return paragraphs
    }

    /// 400 queries drawn from the corpus with a fixed seed, written in the syntax both systems
    /// read the same way (words quoted, so none is taken for an operator).
    static func queries(_ corpus: [(source: String, body: String)]) -> [String] {
        var random = SplitMix(seed: 12)
        let paragraphs = corpus.map {
            $0.body.lowercased().split { !$0.isLetter }.map(String.init).filter {
                $0.count >= 3 && $0.allSatisfy(\.isASCII)
            }
        }
        var frequency: [String: Int] = [:]
        for words in paragraphs { for word in Set(words) { frequency[word, default: 0] += 1 } }
        let byBand = { (range: ClosedRange<Int>) in frequency.filter { range.contains($0.value) }.keys.sorted() }
        let (common, middling, rare) = (byBand(1_000...20_000), byBand(50...999), byBand(2...49))
        func pick(_ words: [String]) -> String {
            words.isEmpty ? "linux" : words[Int(random.next() % UInt64(words.count))]
        }
        func pair() -> (String, String) {
            for _ in 0..<100 {
                let words = paragraphs[Int(random.next() % UInt64(paragraphs.count))]
                if words.count >= 2 {
                    let start = Int(random.next() % UInt64(words.count - 1))
                    return (words[start], words[start + 1])
                }
            }
            return ("linux", "kernel")
        }
        var queries: [String] = []
        for _ in 0..<60 { queries.append("\"\(pick(common))\"") }
        for _ in 0..<60 { queries.append("\"\(pick(middling))\"") }
        for _ in 0..<60 { queries.append("\"\(pick(rare))\"") }
        for _ in 0..<80 {
            let (a, b) = pair()
            queries.append("\"\(a)\" AND \"\(b)\"")
        }
        for _ in 0..<80 {
            let (a, b) = pair()
            queries.append("\"\(a) \(b)\"")
        }
        for _ in 0..<60 { queries.append(String(pick(middling).prefix(4)) + "*") }
        return queries
    }

    static func cairnContainer(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Article.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("Articles.store")))
    }

    /// Cairn: every paragraph inserted and saved once, the index written in the same commit.
    static func cairnBuild(_ corpus: [(source: String, body: String)], into directory: URL) throws -> Int {
        let container = try cairnContainer(directory)
        let context = ModelContext(container)
        for paragraph in corpus { context.insert(Article(source: paragraph.source, body: paragraph.body)) }
        try context.save()
        return corpus.count
    }

    static func grdbQueue(_ directory: URL) throws -> DatabaseQueue {
        try DatabaseQueue(
            path: directory.appendingPathComponent("articles.sqlite").path,
            configuration: GRDBSystem.configuration(wal: true))
    }

    /// GRDB: every paragraph inserted into an FTS5 table in one transaction.
    static func grdbBuild(_ corpus: [(source: String, body: String)], into directory: URL) throws -> Int {
        let queue = try grdbQueue(directory)
        try queue.write { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE article USING fts5(source UNINDEXED, body, "
                    + "tokenize = 'unicode61 remove_diacritics 2')")
            let statement = try db.cachedStatement(sql: "INSERT INTO article (source, body) VALUES (?, ?)")
            for paragraph in corpus {
                statement.setUncheckedArguments([paragraph.source, paragraph.body])
                try statement.execute()
            }
        }
        return corpus.count
    }

    /// Cairn: each query's 10 best, their bodies read. Returns the results found, for the check.
    static func cairnQueries(_ queries: [TextQuery], _ container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        var found = 0
        for query in queries {
            for result in try context.search(SearchDescriptor<Article>(query, fetchLimit: 10)) {
                found += result.model.body.isEmpty ? 0 : 1
            }
        }
        return found
    }

    /// GRDB: each query's 10 best by FTS5's BM25, their bodies read.
    static func grdbQueries(_ queries: [String], _ queue: DatabaseQueue) throws -> Int {
        try queue.read { db in
            var found = 0
            let statement = try db.cachedStatement(
                sql: "SELECT rowid, body FROM article WHERE article MATCH ? ORDER BY rank LIMIT 10")
            for query in queries {
                let rows = try Row.fetchCursor(statement, arguments: [query])
                while let row = try rows.next() { found += (row[1] as String).isEmpty ? 0 : 1 }
            }
            return found
        }
    }

    /// A run of the queries against a store built the first time it runs, reporting the
    /// results found (the two systems' counts should be close).
    static func queryRun<Opened>(
        _ system: String, count: Int, build: @escaping () throws -> Opened, query: @escaping (Opened) throws -> Int
    ) -> Run {
        var store: Opened?
        return Run(workload: "W12", system: system, n: count) {
            let built = try store ?? build()
            store = built
            var found = 0
            let figure = try measure {
                found = try query(built)
                return count
            }
            FileHandle.standardError.write("W12 \(system): \(found) results\n".data(using: .utf8)!)
            return figure
        }
    }

    static func runs(_ n: Int) -> [Run] {
        let corpus: [(source: String, body: String)]
        do { corpus = try Self.corpus(n) } catch {
            FileHandle.standardError.write(
                "W12: no corpus at \(corpusDirectory) (\(error)); install linux-doc-6.1\n".data(using: .utf8)!)
            return []
        }
        let texts = queries(corpus)
        let parsed = texts.compactMap { try? TextQuery($0) }
        return [
            Run(workload: "W12", system: "Cairn insert + save, full-text index", n: corpus.count) {
                let directory = scratchDirectory("w12-cairn-build")
                return try measure { try cairnBuild(corpus, into: directory) }
            },
            Run(workload: "W12", system: "GRDB FTS5 INSERT (WAL)", n: corpus.count) {
                let directory = scratchDirectory("w12-grdb-build")
                return try measure { try grdbBuild(corpus, into: directory) }
            },
            queryRun("Cairn search, 10 best", count: texts.count) {
                let directory = scratchDirectory("w12-cairn")
                _ = try cairnBuild(corpus, into: directory)
                return try cairnContainer(directory)
            } query: {
                try cairnQueries(parsed, $0)
            },
            queryRun("GRDB FTS5 MATCH, 10 best by rank (WAL)", count: texts.count) {
                let directory = scratchDirectory("w12-grdb")
                _ = try grdbBuild(corpus, into: directory)
                return try grdbQueue(directory)
            } query: {
                try grdbQueries(texts, $0)
            },
        ]
    }
}

/// SplitMix64 (``mixed(_:)``, the models' mix) from a seed, so the queries are the same in every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        defer { state &+= 0x9E37_79B9_7F4A_7C15 }
        return mixed(state)
    }
}

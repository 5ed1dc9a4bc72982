import Foundation
import PropertyBased
import Testing

@testable import Cairn

// Search results equal a brute-force scan: random texts in two `.spotlight` attributes, saved
// over several saves with changes and deletes between them, and random queries (words,
// prefixes, phrases, AND, OR, NOT), each answered by the store and by scanning every saved text,
// with BM25 computed from the texts; with and without a limit and a predicate.

@Model final class PropDoc {
    var key: Int
    var group: Int
    @Attribute(.spotlight) var text: String
    @Attribute(.spotlight) var note: String?

    init(key: Int, group: Int, text: String, note: String?) {
        (self.key, self.group, self.text, self.note) = (key, group, text, note)
    }
}

/// The reference: a query evaluated on saved texts, with BM25 per attribute as documented.
struct SearchReference {
    /// Each saved document's terms, by attribute (0: text, 1: note).
    let documents: [Int: [[[UInt8]]]]

    init(_ texts: [Int: (String, String?)]) {
        documents = texts.mapValues { [TextTokenizer.terms(of: $0.0), TextTokenizer.terms(of: $0.1 ?? "")] }
    }

    /// Each matching document's score.
    func scores(_ node: TextQuery.Node) -> [Int: Double] {
        switch node {
        case .phrase(let words): return phraseScores(words)
        case .all(let nodes):
            return nodes.dropFirst().reduce(scores(nodes[0])) { found, node in
                let other = scores(node)
                return found.filter { other[$0.key] != nil }.reduce(into: [:]) {
                    $0[$1.key] = $1.value + other[$1.key]!
                }
            }
        case .any(let nodes):
            return nodes.map(scores).reduce([:]) { $0.merging($1, uniquingKeysWith: +) }
        case .excluding(let kept, let excluded):
            let removed = scores(excluded)
            return scores(kept).filter { removed[$0.key] == nil }
        }
    }

    private func phraseScores(_ words: [TextQuery.Word]) -> [Int: Double] {
        var total: [Int: Double] = [:]
        for attribute in 0..<2 {
            let texts = documents.mapValues { $0[attribute] }.filter { !$0.value.isEmpty }
            let count = Double(texts.count)
            let average = max(Double(texts.values.reduce(0) { $0 + $1.count }) / max(count, 1), 1)
            let frequencies = texts.mapValues { Self.occurrences(of: words, in: $0) }.filter { $0.value > 0 }
            let holding = Double(frequencies.count)
            let idf = log(1 + (count - holding + 0.5) / (holding + 0.5))
            for (key, frequency) in frequencies {
                let tf = Double(frequency)
                let norm = 1.2 * (1 - 0.75 + 0.75 * Double(texts[key]!.count) / average)
                total[key, default: 0] += idf * tf * 2.2 / (tf + norm)
            }
        }
        return total
    }

    static func occurrences(of words: [TextQuery.Word], in terms: [[UInt8]]) -> Int {
        guard terms.count >= words.count else { return 0 }
        return (0...(terms.count - words.count)).filter { start in
            words.indices.allSatisfy { offset in
                let term = terms[start + offset]
                return words[offset].isPrefix ? term.starts(with: words[offset].term) : term == words[offset].term
            }
        }.count
    }
}

@Suite struct SearchProperties {
    static let vocabulary = [
        "alpha", "Alpha", "ALPHA", "alphabet", "beta", "bet", "gamma", "délta", "Delta", "epsilon", "can't", "3.14",
        "東京都", "京都", "straße", "strasse", "zeta", "eta",
    ]

    static func text(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...7, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
            .joined(separator: [" ", ", ", "  ", ". "].randomElement(using: &random)!)
    }

    /// A random query tree, in the syntax's text.
    static func query(depth: Int, _ random: inout SeededGenerator) -> String {
        if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 {
            let word = vocabulary.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return "\"\(word) \(vocabulary.randomElement(using: &random)!)\""
            case 1: return String(word.prefix(Int.random(in: 1...3, using: &random))) + "*"
            default: return word
            }
        }
        let (left, right) = (query(depth: depth - 1, &random), query(depth: depth - 1, &random))
        return "(\(left) \(["AND", "OR", "NOT", ""].randomElement(using: &random)!) \(right))"
    }

    @Test func searchesEqualABruteForceScan() async {
        let input = zip(Gen.int(in: 1...40), Gen.int(in: 0...Int(Int32.max)))
        await propertyCheck(count: PropertyScale.count(30), input: input) { count, seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let url = URL(fileURLWithPath: TemporaryDirectory().child("Props.store"))
            let container = try ModelContainer(
                for: Schema([PropDoc.self]), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            var saved: [Int: (String, String?)] = [:]
            var docs: [Int: PropDoc] = [:]
            for key in 0..<count {
                let doc = PropDoc(
                    key: key, group: key % 3, text: Self.text(&random),
                    note: Bool.random(using: &random) ? Self.text(&random) : nil)
                context.insert(doc)
                docs[key] = doc
                if Int.random(in: 0..<8, using: &random) == 0 { try context.save() }
            }
            try context.save()
            for (key, doc) in docs { saved[key] = (doc.text, doc.note) }
            // Changes and deletes, saved.
            for key in docs.keys.sorted() where Int.random(in: 0..<4, using: &random) == 0 {
                if Bool.random(using: &random) {
                    context.delete(docs[key]!)
                    saved[key] = nil
                } else {
                    docs[key]!.text = Self.text(&random)
                    if Bool.random(using: &random) { docs[key]!.note = nil }
                    saved[key] = (docs[key]!.text, docs[key]!.note)
                }
            }
            try context.save()
            let reference = SearchReference(saved)
            for _ in 0..<8 {
                let text = Self.query(depth: Int.random(in: 0...3, using: &random), &random)
                let query = try TextQuery(text)
                let limit = Bool.random(using: &random) ? Int.random(in: 0...5, using: &random) : nil
                let grouped = Bool.random(using: &random)
                let predicate = grouped ? #Predicate<PropDoc> { $0.group != 1 } : nil
                let found = try context.search(SearchDescriptor(query, predicate: predicate, fetchLimit: limit))
                var expected = reference.scores(query.root)
                if grouped { expected = expected.filter { $0.key % 3 != 1 } }
                let ranked = expected.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                let shape = "\(text) limit \(limit.map(String.init) ?? "-") grouped \(grouped) [seed \(seed)]"
                #expect(found.count == min(limit ?? .max, ranked.count), "\(shape)")
                for (result, wanted) in zip(found, ranked) {
                    #expect(
                        abs(result.score - wanted.value) < 1e-9,
                        "\(result.model.key) \(result.score) vs \(wanted): \(shape)")
                }
                // Ties may come in either order: compare the keys found with the keys of those scores.
                if limit == nil { #expect(Set(found.map(\.model.key)) == Set(expected.keys), "\(shape)") }
            }
        }
    }
}

import Foundation

/// A full-text search of one model type: a ``TextQuery`` over its `@Attribute(.spotlight)` text
/// attributes, optionally narrowed by a predicate and cut to a number of results, best first.
///
/// ```swift
/// @Model final class Note {
///     @Attribute(.spotlight) var title: String
///     @Attribute(.spotlight) var body: String
///     var isArchived = false
/// }
///
/// let descriptor = SearchDescriptor<Note>(
///     try TextQuery("swift AND data*"),
///     predicate: #Predicate { !$0.isArchived },
///     fetchLimit: 20)
/// for result in try context.search(descriptor) {
///     print(result.model.title, result.score, result.matchedRanges(in: \.body))
/// }
/// ```
// Sendable for the reason `FetchDescriptor` is: its predicate is, and its key paths are
// immutable once made.
public struct SearchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// What to look for.
    ///
    /// ```swift
    /// descriptor.query = try TextQuery("\"core data\"")
    /// ```
    public var query: TextQuery
    /// The `.spotlight` attributes to search; `nil` searches every one the type has.
    ///
    /// ```swift
    /// descriptor.attributes = [\Note.title]   // titles only
    /// ```
    public var attributes: [PartialKeyPath<T>]?
    /// What the models found must also satisfy, evaluated on each model (its unsaved changes
    /// included), best results first, until ``fetchLimit`` of them do.
    ///
    /// ```swift
    /// descriptor.predicate = #Predicate { $0.folder?.name == "Work" }
    /// ```
    public var predicate: Predicate<T>?
    /// The most results to return; `nil` returns every match.
    ///
    /// ```swift
    /// descriptor.fetchLimit = 10
    /// ```
    public var fetchLimit: Int?

    /// A search for `query` in `attributes` (every `.spotlight` attribute when `nil`), of the
    /// models satisfying `predicate`, returning up to `fetchLimit` results.
    ///
    /// ```swift
    /// let descriptor = SearchDescriptor<Note>(try TextQuery("swift"), in: [\.title], fetchLimit: 5)
    /// ```
    public init(
        _ query: TextQuery, in attributes: [PartialKeyPath<T>]? = nil, predicate: Predicate<T>? = nil,
        fetchLimit: Int? = nil
    ) {
        self.query = query
        self.attributes = attributes
        self.predicate = predicate
        self.fetchLimit = fetchLimit
    }
}

/// A model a full-text search found, with its BM25 score (higher is better; comparable within
/// one search) and the words that matched, for highlighting.
///
/// ```swift
/// let result = try context.search(descriptor)[0]
/// var text = AttributedString(result.model.body)
/// for range in result.matchedRanges(in: \.body) {
///     if let found = Range(range, in: text) { text[found].font = .body.bold() }
/// }
/// ```
public struct SearchResult<T: PersistentModel> {
    /// The model found.
    ///
    /// ```swift
    /// print(result.model.title)
    /// ```
    public let model: T
    /// Its BM25 score, summed over the attributes it matched in: higher is better.
    ///
    /// ```swift
    /// print(String(format: "%.2f", result.score))
    /// ```
    public let score: Double
    /// The phrases (one or more words) the query looks for, excluded ones left out.
    let phrases: [[TextQuery.Word]]

    /// The ranges of `keyPath`'s text where the query's words and phrases occur, in order and
    /// not overlapping; read from the model's current text.
    ///
    /// ```swift
    /// for range in result.matchedRanges(in: \.title) { print(result.model.title[range]) }
    /// ```
    public func matchedRanges(in keyPath: KeyPath<T, String>) -> [Range<String.Index>] {
        TextHighlighter(phrases: phrases).ranges(in: model[keyPath: keyPath])
    }

    /// The same for an optional text: none when it is `nil`.
    ///
    /// ```swift
    /// let ranges = result.matchedRanges(in: \.subtitle)
    /// ```
    public func matchedRanges(in keyPath: KeyPath<T, String?>) -> [Range<String.Index>] {
        model[keyPath: keyPath].map { TextHighlighter(phrases: phrases).ranges(in: $0) } ?? []
    }
}

/// Finds where a query's phrases occur in a text, as ranges of it: the text tokenized as the
/// index tokenizes it, each phrase matched at each token.
///
/// ```swift
/// TextHighlighter(phrases: query.soughtPhrases).ranges(in: "Core Data and Swift")
/// ```
struct TextHighlighter {
    let phrases: [[TextQuery.Word]]

    func ranges(in text: String) -> [Range<String.Index>] {
        var tokens: [(term: [UInt8], range: Range<Int>)] = []
        TextTokenizer.forEachToken(in: text) { term, range in tokens.append((Array(term), range)) }
        var matched: [Range<Int>] = []
        for phrase in phrases where !phrase.isEmpty && phrase.count <= tokens.count {
            for start in 0...(tokens.count - phrase.count) {
                let fits = phrase.indices.allSatisfy { offset in
                    let (word, token) = (phrase[offset], tokens[start + offset].term)
                    return word.isPrefix ? token.starts(with: word.term) : token == word.term
                }
                if fits { matched.append(contentsOf: tokens[start..<start + phrase.count].map(\.range)) }
            }
        }
        var merged: [Range<Int>] = []
        for range in matched.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        let utf8 = text.utf8
        return merged.map {
            utf8.index(utf8.startIndex, offsetBy: $0.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: $0.upperBound)
        }
    }
}

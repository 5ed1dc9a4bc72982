/// What a full-text search looks for: words, prefixes and phrases combined with AND, OR and NOT.
///
/// Write one as text, in the syntax of SQLite's FTS5:
///
/// | query | finds texts with |
/// |---|---|
/// | `swift data` or `swift AND data` | both words |
/// | `swift OR kotlin` | either |
/// | `swift NOT objc` | `swift` and not `objc` |
/// | `"core data"` | the two words next to each other, in this order |
/// | `data*` | a word starting with `data` ("data", "database", …) |
/// | `"core dat*"` | `core` followed by a word starting with `dat` |
/// | `(swift OR kotlin) NOT java` | parentheses group |
///
/// `NOT` binds tighter than `AND`, which binds tighter than `OR`; the operators are written in
/// capitals (a lowercase "and" is a word). Words are found as the index folds them: case,
/// accents and width do not matter ("cafe" finds "Café"), and Chinese or Japanese text is
/// matched by pairs of characters, so a query for "京都" finds "東京都".
///
/// ```swift
/// let query = try TextQuery("swift AND (data* OR \"core data\") NOT objc")
/// let typed = TextQuery.allWords(in: searchField.text, lastIsPrefix: true)   // never throws
/// ```
public struct TextQuery: Sendable, Hashable, CustomStringConvertible {
    /// One word of a phrase: its folded term, and whether it matches every term it starts.
    struct Word: Sendable, Hashable {
        let term: [UInt8]
        let isPrefix: Bool
    }

    indirect enum Node: Sendable, Hashable {
        /// One word, or several next to each other in order.
        case phrase([Word])
        case all([Node])
        case any([Node])
        /// Texts matching the first and not the second.
        case excluding(Node, Node)
    }

    let root: Node

    init(root: Node) { self.root = root }

    /// A query parsed from `text`, in the syntax the type describes.
    ///
    /// ```swift
    /// let query = try TextQuery("\"hello world\" OR greeting*")
    /// ```
    ///
    /// - Throws: ``FetchError`` with code ``FetchError/Code/invalidQuery`` when `text` has an
    ///   unclosed quote or parenthesis, an operator with nothing on one side, a `NOT` with nothing
    ///   before it, or no word at all.
    public init(_ text: String) throws {
        var parser = TextQueryParser(text)
        root = try parser.parse()
    }

    /// A query for texts holding every word of `text` (none of its characters is syntax); with
    /// `lastIsPrefix`, the last word matches the words it starts, as a search field does while
    /// the user types. `nil` when `text` has no word.
    ///
    /// ```swift
    /// let query = TextQuery.allWords(in: "swift dat", lastIsPrefix: true)   // swift AND dat*
    /// ```
    public static func allWords(in text: String, lastIsPrefix: Bool = false) -> TextQuery? {
        let terms = TextTokenizer.terms(of: text)
        guard !terms.isEmpty else { return nil }
        let words = terms.enumerated().map { index, term in
            Node.phrase([Word(term: term, isPrefix: lastIsPrefix && index == terms.count - 1)])
        }
        return TextQuery(root: words.count == 1 ? words[0] : .all(words))
    }

    /// A query for texts holding the words of `text` next to each other, in order. `nil` when
    /// `text` has no word.
    ///
    /// ```swift
    /// let query = TextQuery.phrase("core data")
    /// ```
    public static func phrase(_ text: String) -> TextQuery? {
        let terms = TextTokenizer.terms(of: text)
        guard !terms.isEmpty else { return nil }
        return TextQuery(root: .phrase(terms.map { Word(term: $0, isPrefix: false) }))
    }

    /// Texts matching both queries.
    ///
    /// ```swift
    /// let both = try TextQuery("swift") && TextQuery("data")
    /// ```
    public static func && (lhs: TextQuery, rhs: TextQuery) -> TextQuery { TextQuery(root: .all([lhs.root, rhs.root])) }

    /// Texts matching either query.
    ///
    /// ```swift
    /// let either = try TextQuery("swift") || TextQuery("kotlin")
    /// ```
    public static func || (lhs: TextQuery, rhs: TextQuery) -> TextQuery { TextQuery(root: .any([lhs.root, rhs.root])) }

    /// Texts matching this query and not `other`.
    ///
    /// ```swift
    /// let query = try TextQuery("swift").excluding(TextQuery("objc"))
    /// ```
    public func excluding(_ other: TextQuery) -> TextQuery { TextQuery(root: .excluding(root, other.root)) }

    /// The query in the syntax ``init(_:)`` reads, with its words as the index folds them.
    ///
    /// ```swift
    /// try TextQuery("Swift AND Data*").description   // "swift AND data*"
    /// ```
    public var description: String { Self.describe(root) }

    private static func describe(_ node: Node) -> String {
        switch node {
        case .phrase(let words):
            let text = words.map { String(decoding: $0.term, as: UTF8.self) + ($0.isPrefix ? "*" : "") }
            return words.count == 1 ? text[0] : "\"\(text.joined(separator: " "))\""
        case .all(let nodes): return "(" + nodes.map(describe).joined(separator: " AND ") + ")"
        case .any(let nodes): return "(" + nodes.map(describe).joined(separator: " OR ") + ")"
        case .excluding(let kept, let excluded): return "(\(describe(kept)) NOT \(describe(excluded)))"
        }
    }

    /// Every word the query looks for, not counting those it excludes: what matched ranges show.
    var soughtPhrases: [[Word]] {
        func collect(_ node: Node) -> [[Word]] {
            switch node {
            case .phrase(let words): [words]
            case .all(let nodes), .any(let nodes): nodes.flatMap(collect)
            case .excluding(let kept, _): collect(kept)
            }
        }
        return collect(root)
    }
}

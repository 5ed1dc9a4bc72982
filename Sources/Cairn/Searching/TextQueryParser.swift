/// Reads the text syntax of ``TextQuery`` (SQLite FTS5's): words, `"phrases"`, `prefix*`,
/// `AND`, `OR`, `NOT` and parentheses. A recursive descent over the query's tokens, one
/// function per precedence level: `OR` below `AND` (also written as two queries side by side)
/// below `NOT`.
///
/// ```swift
/// var parser = TextQueryParser("swift NOT objc")
/// let root = try parser.parse()   // .excluding(swift, objc)
/// ```
struct TextQueryParser {
    private enum Token: Equatable {
        case word(String, isPrefix: Bool)
        case quoted(String, isPrefix: Bool)
        case and, or, not, open, close
    }

    private let text: String
    private var tokens: [Token] = []
    private var next = 0

    init(_ text: String) { self.text = text }

    /// The query's tree.
    ///
    /// - Throws: ``FetchError`` `.invalidQuery` when the text is not a query.
    mutating func parse() throws -> TextQuery.Node {
        tokens = try Self.lex(text)
        guard !tokens.isEmpty else { throw invalid("has no word to search for") }
        let root = try parseAny()
        guard next == tokens.count else {
            throw invalid(
                tokens[next] == .close ? "closes a parenthesis it never opened" : "could not be read to its end")
        }
        return root
    }

    private mutating func parseAny() throws -> TextQuery.Node {
        var nodes = [try parseAll()]
        while peek == .or {
            next += 1
            nodes.append(try parseAll())
        }
        return nodes.count == 1 ? nodes[0] : .any(nodes)
    }

    private mutating func parseAll() throws -> TextQuery.Node {
        var nodes = [try parseExcluding()]
        while let token = peek, token != .or, token != .close {
            if token == .and { next += 1 }
            nodes.append(try parseExcluding())
        }
        return nodes.count == 1 ? nodes[0] : .all(nodes)
    }

    private mutating func parseExcluding() throws -> TextQuery.Node {
        var node = try parsePrimary()
        while peek == .not {
            next += 1
            node = .excluding(node, try parsePrimary())
        }
        return node
    }

    private mutating func parsePrimary() throws -> TextQuery.Node {
        guard let token = peek else { throw invalid("ends where a word was expected") }
        next += 1
        switch token {
        case .open:
            let node = try parseAny()
            guard peek == .close else { throw invalid("opens a parenthesis it never closes") }
            next += 1
            return node
        case .word(let word, let isPrefix), .quoted(let word, let isPrefix):
            let terms = TextTokenizer.terms(of: word)
            guard !terms.isEmpty else { throw invalid("has \"\(word)\", in which there is no word to search for") }
            return .phrase(
                terms.enumerated().map { index, term in
                    TextQuery.Word(term: term, isPrefix: isPrefix && index == terms.count - 1)
                })
        case .and, .or, .not:
            throw invalid("has \(token == .and ? "AND" : token == .or ? "OR" : "NOT") where a word was expected")
        case .close:
            throw invalid("has a parenthesis closed where a word was expected")
        }
    }

    private var peek: Token? { next < tokens.count ? tokens[next] : nil }

    private func invalid(_ problem: String) -> FetchError {
        FetchError(
            code: .invalidQuery,
            message: "The text query '\(text)' \(problem). Write words, \"phrases\" and prefix* joined by AND, OR "
                + "and NOT (in capitals), with parentheses to group; or use TextQuery.allWords(in:) for text "
                + "a user typed.",
            model: nil, underlying: "")
    }

    /// The query's tokens: quoted phrases, parentheses, operators and words (a word runs to the
    /// next space, quote or parenthesis; a `*` at its end makes it a prefix).
    private static func lex(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        func prefixed(_ word: Substring) -> (String, Bool) {
            word.hasSuffix("*") ? (String(word.dropLast()), true) : (String(word), false)
        }
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "(" || character == ")" {
                tokens.append(character == "(" ? .open : .close)
                index = text.index(after: index)
            } else if character == "\"" {
                let start = text.index(after: index)
                guard let end = text[start...].firstIndex(of: "\"") else {
                    throw TextQueryParser(text).invalid("opens a quote it never closes")
                }
                index = text.index(after: end)
                var isPrefix = false
                if index < text.endIndex, text[index] == "*" {
                    isPrefix = true
                    index = text.index(after: index)
                }
                let (phrase, starred) = prefixed(text[start..<end])
                tokens.append(.quoted(phrase, isPrefix: isPrefix || starred))
            } else {
                let end =
                    text[index...].firstIndex { $0.isWhitespace || $0 == "(" || $0 == ")" || $0 == "\"" }
                    ?? text.endIndex
                let word = text[index..<end]
                index = end
                switch word {
                case "AND": tokens.append(.and)
                case "OR": tokens.append(.or)
                case "NOT": tokens.append(.not)
                default:
                    let (term, isPrefix) = prefixed(word)
                    tokens.append(.word(term, isPrefix: isPrefix))
                }
            }
        }
        return tokens
    }
}

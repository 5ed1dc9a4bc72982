import Cairn
import Foundation

/// The workloads' models, exactly as Docs/Benchmarks.md describes them; shared by `cairn-compare`
/// and the package-benchmark targets.
@Model public final class Author {
    #Unique<Author>([\.id])
    public var id: Int64
    public var name: String
    public var email: String
    public var score: Double
    public var createdAt: Date
    @Relationship(deleteRule: .cascade, inverse: \Book.author) public var books: [Book] = []

    public init(id: Int64, name: String, email: String, score: Double, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.score = score
        self.createdAt = createdAt
    }
}

@Model public final class Book {
    #Unique<Book>([\.id])
    public var id: Int64
    public var title: String
    public var year: Int
    public var author: Author?

    public init(id: Int64, title: String, year: Int) {
        self.id = id
        self.title = title
        self.year = year
    }
}

/// One author's values, generated from its id (deterministic; `version` changes name and score).
public struct AuthorValues: Sendable {
    public let id: Int64
    public let name: String  // ~16 characters
    public let email: String  // ~24 characters
    public let score: Double
    public let createdAt: Date

    public init(_ id: Int64, version: Int = 0) {
        self.id = id
        name = padded("Author \(String(id, radix: 36)) v\(version)", to: 16, with: "·")
        email = padded("author\(id)@example.org", to: 24, with: "x")
        score = Double(id % 1000) / 10 + Double(version)
        createdAt = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(id))
    }

    public var model: Author { Author(id: id, name: name, email: email, score: score, createdAt: createdAt) }
}

/// W2's input: every author exists; odd ids change.
public func changedHalf(_ n: Int) -> [AuthorValues] {
    (0..<Int64(n)).map { AuthorValues($0, version: $0 % 2 == 1 ? 1 : 0) }
}

/// `text` cut or padded with `pad` to `length` characters: what Foundation's
/// `padding(toLength:withPad:startingAt:)` gives for a one-character pad, at a fraction of its
/// cost (generating a million authors' values took longer than saving them).
public func padded(_ text: String, to length: Int, with pad: Character = "·") -> String {
    let count = text.count
    if count >= length { return String(text.prefix(length)) }
    return text + String(repeating: pad, count: length - count)
}

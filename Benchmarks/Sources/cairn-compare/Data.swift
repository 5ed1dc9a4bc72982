import Cairn
import Foundation

/// The workloads' models, exactly as Docs/Benchmarks.md describes them.
@Model final class Author {
    #Unique<Author>([\.id])
    var id: Int64
    var name: String
    var email: String
    var score: Double
    var createdAt: Date
    @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []

    init(id: Int64, name: String, email: String, score: Double, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.score = score
        self.createdAt = createdAt
    }
}

@Model final class Book {
    #Unique<Book>([\.id])
    var id: Int64
    var title: String
    var year: Int
    var author: Author?

    init(id: Int64, title: String, year: Int) {
        self.id = id
        self.title = title
        self.year = year
    }
}

/// One author's values, generated from its id (deterministic; `version` changes name and score).
struct AuthorValues: Sendable {
    let id: Int64
    let name: String  // ~16 characters
    let email: String  // ~24 characters
    let score: Double
    let createdAt: Date

    init(_ id: Int64, version: Int = 0) {
        self.id = id
        name = "Author \(String(id, radix: 36)) v\(version)".padding(toLength: 16, withPad: "·", startingAt: 0)
        email = "author\(id)@example.org".padding(toLength: 24, withPad: "x", startingAt: 0)
        score = Double(id % 1000) / 10 + Double(version)
        createdAt = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(id))
    }

    var model: Author { Author(id: id, name: name, email: email, score: score, createdAt: createdAt) }
}

/// W2's input: every author exists; odd ids change.
func changedHalf(_ n: Int) -> [AuthorValues] {
    (0..<Int64(n)).map { AuthorValues($0, version: $0 % 2 == 1 ? 1 : 0) }
}

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

/// W8's simple object, as the public Realm-versus-SwiftData suite defines its user: a unique
/// UUID, two names and an age, no other index.
@Model public final class SimpleUser {
    @Attribute(.unique) public var id: UUID
    public var firstName: String
    public var surname: String
    public var age: Int

    public init(id: UUID, firstName: String, surname: String, age: Int) {
        self.id = id
        self.firstName = firstName
        self.surname = surname
        self.age = age
    }
}

/// One simple user's values, generated from its position (deterministic): a UUID that looks
/// random (so that inserts land all over the unique key's table, as `UUID()`'s do), a first name
/// of 1,000 (one of them "Jane"), a surname of 1,000 and an age below 99.
public struct SimpleUserValues: Sendable {
    public let id: UUID
    public let firstName: String
    public let surname: String
    public let age: Int

    /// The first name W8 fetches and renames: about one user in a thousand has it.
    public static let fetchedName = "Jane"
    /// The name W8 gives the users it renames.
    public static let newName = "Wendy"

    public init(_ position: Int) {
        let (high, low) = (mixed(UInt64(position) &* 2), mixed(UInt64(position) &* 2 &+ 1))
        id = UUID(uuid: withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { $0.load(as: uuid_t.self) })
        let first = Int(high % 1000)
        firstName = first == 0 ? Self.fetchedName : "First\(first)"
        surname = "Surname\(low % 1000)"
        age = Int(low % 99)
    }

    public var model: SimpleUser { SimpleUser(id: id, firstName: firstName, surname: surname, age: age) }
}

/// SplitMix64's output function: a well-mixed 64-bit value for each input.
public func mixed(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// W11's model: a sale in one of 20 regions, with an amount and a day.
@Model public final class Sale {
    public var region: String
    public var amount: Int
    public var day: Int

    public init(region: String, amount: Int, day: Int) {
        self.region = region
        self.amount = amount
        self.day = day
    }
}

/// W11's rows, generated from their number: 20 regions, amounts 1…997, days 0…364.
public struct SaleValues: Sendable {
    public let region: String
    public let amount: Int
    public let day: Int

    public init(_ number: Int) {
        region = "region-\(String(number * 7 % 20).count == 1 ? "0" : "")\(number * 7 % 20)"
        amount = number * 31 % 997 + 1
        day = number % 365
    }
}

/// W11's model again, with the index a grouped sum of `amount` per `region` reads instead of the
/// records (as SQL's covering index).
@Model public final class IndexedSale {
    #Index<IndexedSale>([\.region, \.amount])
    public var region: String
    public var amount: Int
    public var day: Int

    public init(region: String, amount: Int, day: Int) {
        self.region = region
        self.amount = amount
        self.day = day
    }
}

/// W12's model: one paragraph of a text corpus, its body in a full-text index.
@Model public final class Article {
    public var source: String
    @Attribute(.spotlight) public var body: String

    public init(source: String, body: String) {
        self.source = source
        self.body = body
    }
}

/// W13's model: a passage's embedding (384 numbers, as a small sentence-embedding model gives)
/// in a vector index, and one of ten categories to filter by.
@Model public final class Passage {
    public var number: Int
    public var category: Int
    @Attribute(.vector(dimensions: 384, metric: .cosine)) public var embedding: [Float]

    public init(number: Int, category: Int, embedding: [Float]) {
        self.number = number
        self.category = category
        self.embedding = embedding
    }
}

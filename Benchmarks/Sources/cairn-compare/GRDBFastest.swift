import BenchmarkModels
import Foundation
import GRDB

// GRDB written for speed, the baseline every target is measured against: what GRDB's own
// performance advice has an expert write.
//
// - Records decode by column index (`init(row:)`) and encode by hand (`encode(to:)`), not
//   through `Codable`.
// - Statements are cached (`cachedStatement`) and given their arguments unchecked.
// - Dates are stored as their time interval, as Cairn stores them, not as ISO text.
// - The database is opened, and its schema made, before the timed part.
// - The same unique key as the Cairn model (the id) and no other index.
//
// The Codable records and per-call statements of `Systems.swift` stay beside it as GRDB's
// idiomatic code.

/// An author as a GRDB expert writes the record.
struct FastAuthorRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    var id: Int64
    var name: String
    var email: String
    var score: Double
    var createdAt: Date

    init(row: Row) throws {
        id = row[0]
        name = row[1]
        email = row[2]
        score = row[3]
        createdAt = Date(timeIntervalSinceReferenceDate: row[4])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["email"] = email
        container["score"] = score
        container["createdAt"] = createdAt.timeIntervalSinceReferenceDate
    }
}

/// A book as a GRDB expert writes the record.
struct FastBookRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    var id: Int64
    var title: String
    var year: Int
    var authorId: Int64

    init(row: Row) throws {
        id = row[0]
        title = row[1]
        year = row[2]
        authorId = row[3]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["title"] = title
        container["year"] = year
        container["authorId"] = authorId
    }
}

extension FastAuthorRecord {
    static let books = hasMany(FastBookRecord.self, using: ForeignKey(["authorId"])).forKey("books")
}

/// An author with its books, from `including(all:)`'s rows decoded by index.
struct FastAuthorWithBooks: FetchableRecord {
    var author: FastAuthorRecord
    var books: [FastBookRecord]

    init(row: Row) throws {
        author = try FastAuthorRecord(row: row)
        books = try (row.prefetchedRows["books"] ?? []).map(FastBookRecord.init(row:))
    }
}

enum GRDBFastest {
    static let insertSQL = "INSERT INTO author (id, name, email, score, createdAt) VALUES (?, ?, ?, ?, ?)"
    static let upsertSQL = insertSQL + """
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
            score = excluded.score, createdAt = excluded.createdAt
        """

    /// The database in `directory`, opened and given its table: what the timed part receives.
    static func open(_ directory: URL, wal: Bool) throws -> DatabaseQueue {
        try GRDBSystem.queue(directory, wal: wal, file: "fast.sqlite", dates: "DOUBLE")
    }

    /// W1: one cached INSERT, unchecked arguments, one transaction.
    static func insert(_ values: some Sequence<AuthorValues>, into queue: DatabaseQueue) throws -> Int {
        try execute(insertSQL, for: values, in: queue, datesAsText: false)
    }

    /// W1 as `insert(_:into:)`, with the dates as GRDB stores a `Date` by default (text), into the
    /// idiomatic table: what the date's encoding alone costs.
    static func insertDatesAsText(_ values: some Sequence<AuthorValues>, into queue: DatabaseQueue) throws -> Int {
        try execute(insertSQL, for: values, in: queue, datesAsText: true)
    }

    /// W2: one cached `ON CONFLICT` upsert, unchecked arguments, one transaction.
    static func upsert(_ values: [AuthorValues], into queue: DatabaseQueue) throws -> Int {
        try execute(upsertSQL, for: values, in: queue, datesAsText: false)
    }

    /// Runs the cached statement `sql` once per value, with unchecked arguments, in one transaction.
    private static func execute(
        _ sql: String, for values: some Sequence<AuthorValues>, in queue: DatabaseQueue, datesAsText: Bool
    ) throws -> Int {
        try queue.write { db in try run(db.cachedStatement(sql: sql), for: values, datesAsText: datesAsText) }
    }

    /// Runs `statement` (an author insert or upsert) once per value, with unchecked arguments.
    private static func run(
        _ statement: Statement, for values: some Sequence<AuthorValues>, datesAsText: Bool
    ) throws -> Int {
        var count = 0
        for value in values {
            let createdAt: any DatabaseValueConvertible =
                datesAsText ? value.createdAt : value.createdAt.timeIntervalSinceReferenceDate
            statement.setUncheckedArguments([value.id, value.name, value.email, value.score, createdAt])
            try statement.execute()
            count += 1
        }
        return count
    }

    /// The database in `directory` with W3's tables (authors' dates as time intervals).
    static func openGraph(_ directory: URL, wal: Bool) throws -> DatabaseQueue {
        let queue = try open(directory, wal: wal)
        try GRDBSystem.createBooks(queue)
        return queue
    }

    /// W3: cached INSERTs with unchecked arguments for the authors, then the books, one transaction.
    static func insertGraph(_ graph: Graph, into queue: DatabaseQueue) throws -> Int {
        try queue.write { db in
            _ = try run(db.cachedStatement(sql: insertSQL), for: graph.authors, datesAsText: false)
            let books = try db.cachedStatement(sql: "INSERT INTO book (id, title, year, authorId) VALUES (?, ?, ?, ?)")
            for value in graph.books {
                books.setUncheckedArguments([value.id, value.title, value.year, graph.authors[value.author].id])
                try books.execute()
            }
        }
        return graph.objects
    }

    /// W4 with `including(all:)`, records decoded by index.
    static func readTitlesIncludingAll(in queue: DatabaseQueue) throws -> Int {
        try queue.read { db in
            var titles = TitleCount()
            let request = FastAuthorRecord.including(all: FastAuthorRecord.books)
            for info in try FastAuthorWithBooks.fetchAll(db, request) {
                for book in info.books {
                    titles.add(book.title)
                }
            }
            return titles.result
        }
    }

    /// W4 without prefetching: every author, then one query per author through one cached
    /// statement with unchecked arguments, records decoded by index.
    static func readTitlesPerAuthor(in queue: DatabaseQueue) throws -> Int {
        try queue.read { db in
            var titles = TitleCount()
            let statement = try db.cachedStatement(sql: "SELECT * FROM book WHERE authorId = ?")
            for author in try FastAuthorRecord.fetchAll(db, sql: "SELECT * FROM author") {
                statement.setUncheckedArguments([author.id])
                for book in try FastBookRecord.fetchAll(statement) {
                    titles.add(book.title)
                }
            }
            return titles.result
        }
    }

    /// W2 as a record user writes it fast: fetch every author, change the odd ones, update them.
    static func fetchThenUpdate(_ values: [AuthorValues], in queue: DatabaseQueue) throws -> Int {
        try queue.write { db in
            var authors = try FastAuthorRecord.fetchAll(db, sql: "SELECT * FROM author ORDER BY id")
            for (index, value) in values.enumerated() where authors[index].name != value.name {
                authors[index].name = value.name
                authors[index].score = value.score
                try authors[index].update(db)
            }
            return values.count
        }
    }

    /// W5: every author into records decoded by index.
    static func readAuthors(in queue: DatabaseQueue) throws -> Int {
        try queue.read { db in
            var check = Checksum()
            for author in try FastAuthorRecord.fetchAll(db, sql: "SELECT * FROM author") {
                check.add(author.id, author.name, author.email, author.score, author.createdAt)
            }
            return check.count
        }
    }
}

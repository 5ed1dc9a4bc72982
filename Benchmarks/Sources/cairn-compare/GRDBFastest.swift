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
        try queue.write { db in
            let statement = try db.cachedStatement(sql: sql)
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

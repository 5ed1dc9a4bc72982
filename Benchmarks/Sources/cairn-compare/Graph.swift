import BenchmarkModels
import CLMDBRaw
import Cairn
import Foundation
import GRDB

// W3 (authors with books in one save), W4 (every book's title, with and without prefetching)
// and W5 (every author's every attribute) on the three systems.

/// One book's values, generated from its id: 10 books per author, assigned round-robin.
struct BookValues: Sendable {
    let id: Int64
    let title: String  // ~32 characters
    let year: Int
    /// The position of its author among the authors.
    let author: Int

    init(_ id: Int64, authors: Int) {
        self.id = id
        title = padded("Book \(id) of the benchmark", to: 32)
        year = 1900 + Int(id % 120)
        author = Int(id % Int64(authors))
    }
}

/// The W3 input: `authors` authors and 10 books for each.
struct Graph: Sendable {
    let authors: [AuthorValues]
    let books: [BookValues]

    init(authors count: Int) {
        authors = (0..<Int64(count)).map { AuthorValues($0) }
        books = (0..<Int64(count * 10)).map { BookValues($0, authors: count) }
    }

    var objects: Int { authors.count + books.count }
}

// MARK: - Cairn

extension CairnSystem {
    /// W3: every author and book inserted, each book's author set (the inverse fills
    /// `Author.books`), one save.
    @inline(never)  // a symbol of its own, for profiling
    static func insertGraph(_ graph: Graph, into container: ModelContainer) throws -> Int {
        try saveGraph(graph, into: container) { context, book, author in
            context.insert(book)
            book.author = author
        }
    }

    /// W3 as a SwiftData user often writes it: each book appended to its author's `books` (the
    /// inverse sets `Book.author`), one save.
    @inline(never)  // a symbol of its own, for profiling
    static func appendGraph(_ graph: Graph, into container: ModelContainer) throws -> Int {
        try saveGraph(graph, into: container) { _, book, author in author.books.append(book) }
    }

    /// Inserts the authors, relates each new book to its author with `relate`, saves once.
    private static func saveGraph(
        _ graph: Graph, into container: ModelContainer, relate: (ModelContext, Book, Author) -> Void
    ) throws -> Int {
        let context = ModelContext(container)
        let authors = graph.authors.map(\.model)
        for author in authors { context.insert(author) }
        for values in graph.books {
            relate(context, Book(id: values.id, title: values.title, year: values.year), authors[values.author])
        }
        try context.save()
        return graph.objects
    }

    /// W4: every author, then every one of its books' titles; returns the number of books read.
    static func readTitles(in container: ModelContainer, prefetch: Bool) throws -> Int {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Author>()
        if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.books] }
        var titles = TitleCount()
        for author in try context.fetch(descriptor) {
            for book in author.books {
                titles.add(book.title)
            }
        }
        return titles.result
    }

    /// W5: every author as an object, every attribute read; returns the number of authors.
    static func readAuthors(in container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        var check = Checksum()
        let authors = try context.fetch(FetchDescriptor<Author>())
        for author in authors {
            check.add(author.id, author.name, author.email, author.score, author.createdAt)
        }
        return check.count
    }
}

/// Counts the titles read, keeping their lengths so the optimizer cannot drop the reads.
struct TitleCount {
    private var count = 0
    private var characters = 0

    mutating func add(_ title: String) {
        count += 1
        characters &+= title.utf8.count
    }

    /// How many titles were read; stops if none had any characters.
    var result: Int {
        precondition(characters > 0)
        return count
    }
}

/// Folds every attribute read into a value the optimizer cannot drop.
struct Checksum {
    var count = 0
    var bits: UInt64 = 0

    mutating func add(_ id: Int64, _ name: String, _ email: String, _ score: Double, _ createdAt: Date) {
        count += 1
        bits &+=
            UInt64(bitPattern: id) &+ UInt64(name.utf8.count) &+ UInt64(email.utf8.count)
            &+ score.bitPattern &+ createdAt.timeIntervalSinceReferenceDate.bitPattern
        precondition(bits != 1)
    }
}

// MARK: - GRDB

struct BookRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    var id: Int64
    var title: String
    var year: Int
    var authorId: Int64
}

extension AuthorRecord {
    static let books = hasMany(BookRecord.self, using: ForeignKey(["authorId"]))
}

/// An author with its books, as `including(all:)` decodes it.
struct AuthorWithBooks: Decodable, FetchableRecord {
    var author: AuthorRecord
    var books: [BookRecord]
}

extension GRDBSystem {
    static func createBooks(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS book (
                        id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL,
                        authorId INTEGER NOT NULL REFERENCES author(id));
                    CREATE INDEX IF NOT EXISTS book_authorId ON book(authorId);
                    """)
        }
    }

    /// W3: prepared INSERTs for the authors, then the books, one transaction.
    static func insertGraph(_ graph: Graph, into directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        try createBooks(queue)
        try queue.write { db in
            let authors = try db.makeStatement(
                sql: "INSERT INTO author (id, name, email, score, createdAt) VALUES (?, ?, ?, ?, ?)")
            for value in graph.authors {
                try authors.execute(arguments: [value.id, value.name, value.email, value.score, value.createdAt])
            }
            let books = try db.makeStatement(sql: "INSERT INTO book (id, title, year, authorId) VALUES (?, ?, ?, ?)")
            for value in graph.books {
                try books.execute(arguments: [value.id, value.title, value.year, graph.authors[value.author].id])
            }
        }
        return graph.objects
    }

    /// W4 with `including(all:)`: every author with its books in one request.
    static func readTitlesIncludingAll(in directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        return try queue.read { db in
            var titles = TitleCount()
            let request = AuthorRecord.including(all: AuthorRecord.books)
            for info in try AuthorWithBooks.fetchAll(db, request) {
                for book in info.books {
                    titles.add(book.title)
                }
            }
            return titles.result
        }
    }

    /// W4 without prefetching: every author, then one query per author through one reused
    /// prepared statement.
    static func readTitlesPerAuthor(in directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        return try queue.read { db in
            var titles = TitleCount()
            let statement = try db.makeStatement(sql: "SELECT * FROM book WHERE authorId = ?")
            for author in try AuthorRecord.fetchAll(db) {
                for book in try BookRecord.fetchAll(statement, arguments: [author.id]) {
                    titles.add(book.title)
                }
            }
            return titles.result
        }
    }

    /// W5: `fetchAll` into records, every attribute read.
    static func readAuthors(in directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        return try queue.read { db in
            var check = Checksum()
            for author in try AuthorRecord.fetchAll(db) {
                check.add(author.id, author.name, author.email, author.score, author.createdAt)
            }
            return check.count
        }
    }
}

// MARK: - Raw LMDB

extension RawLMDB {
    /// W3: what Cairn puts for the graph: author and book records (appended) and unique keys,
    /// each author's book edges (rank and book row, duplicates of the author's row) and each
    /// book's author edge; one transaction.
    func insertGraph(_ graph: Graph) -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        for (position, value) in graph.authors.enumerated() {
            let row = UInt64(position + 1)
            put(Self.rowKey(row), Self.record(value), records, txn, flags: MDB_APPEND)
            put(Self.uniqueKey(value.id), Self.rowKey(row), uniques, txn, flags: MDB_NOOVERWRITE)
        }
        for (position, value) in graph.books.enumerated() {
            let row = UInt64(position + 1)
            put(Self.rowKey(row), Self.record(value), bookRecords, txn, flags: MDB_APPEND)
            put(Self.uniqueKey(value.id), Self.rowKey(row), bookUniques, txn, flags: MDB_NOOVERWRITE)
            put(
                Self.rowKey(row), Self.rowKey(0) + Self.rowKey(UInt64(value.author + 1)), bookAuthor, txn,
                flags: MDB_APPEND)
        }
        // Each author's books in rank order: author a has books a, a + n, a + 2n, …
        let count = graph.authors.count
        for author in 0..<count {
            var rank: UInt64 = 0
            for book in stride(from: author, to: graph.books.count, by: count) {
                put(
                    Self.rowKey(UInt64(author + 1)), Self.rowKey(rank) + Self.rowKey(UInt64(book + 1)), authorBooks,
                    txn,
                    flags: MDB_APPENDDUP)
                rank += 1
            }
        }
        precondition(mdb_txn_commit(txn) == 0, "mdb_txn_commit")
        return graph.objects
    }

    /// W4: every author record, its book edges, and each book's record, whose title is read.
    func readTitles() -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
        defer { mdb_txn_abort(txn) }
        var authors: OpaquePointer?
        var edges: OpaquePointer?
        mdb_cursor_open(txn, records, &authors)
        mdb_cursor_open(txn, authorBooks, &edges)
        defer {
            mdb_cursor_close(authors)
            mdb_cursor_close(edges)
        }
        var titles = TitleCount()
        var key = MDB_val()
        var value = MDB_val()
        var operation = MDB_FIRST
        while mdb_cursor_get(authors, &key, &value, operation) == 0 {
            operation = MDB_NEXT
            _ = Self.decodeAuthor(value)
            var edgeKey = key
            var edge = MDB_val()
            var edgeOperation = MDB_SET_KEY
            while mdb_cursor_get(edges, &edgeKey, &edge, edgeOperation) == 0 {
                edgeOperation = MDB_NEXT_DUP
                var bookKey = MDB_val(mv_size: 8, mv_data: edge.mv_data! + 8)
                var book = MDB_val()
                precondition(mdb_get(txn, bookRecords, &bookKey, &book) == 0)
                titles.add(Self.decodeTitle(book))
            }
        }
        return titles.result
    }

    /// W5: every author record decoded into values.
    func readAuthors() -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        mdb_cursor_open(txn, records, &cursor)
        defer { mdb_cursor_close(cursor) }
        var check = Checksum()
        var key = MDB_val()
        var value = MDB_val()
        var operation = MDB_FIRST
        while mdb_cursor_get(cursor, &key, &value, operation) == 0 {
            operation = MDB_NEXT
            let author = Self.decodeAuthor(value)
            check.add(author.id, author.name, author.email, author.score, author.createdAt)
        }
        return check.count
    }

    /// A book record: the title length-prefixed, then year and id.
    static func record(_ value: BookValues) -> [UInt8] {
        var bytes: [UInt8] = [1, UInt8(value.title.utf8.count)]
        bytes += value.title.utf8
        bytes += withUnsafeBytes(of: Int64(value.year)) { Array($0) }
        bytes += withUnsafeBytes(of: value.id) { Array($0) }
        return bytes
    }

    static func decodeTitle(_ value: MDB_val) -> String {
        let bytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        let length = Int(bytes[1])
        return String(decoding: bytes[2..<(2 + length)], as: UTF8.self)
    }

    /// Reads back what ``record(_:)-(AuthorValues)`` wrote.
    static func decodeAuthor(
        _ value: MDB_val
    ) -> (
        id: Int64, name: String, email: String, score: Double, createdAt: Date
    ) {
        let bytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        var offset = 1
        func text() -> String {
            let length = Int(bytes[offset])
            defer { offset += 1 + length }
            return String(decoding: bytes[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
        }
        func word() -> UInt64 {
            defer { offset += 8 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        }
        let name = text()
        let email = text()
        let score = Double(bitPattern: word())
        let createdAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: word()))
        let id = Int64(bitPattern: word())
        return (id, name, email, score, createdAt)
    }
}

import BenchmarkModels
import CLMDBRaw
import Cairn
import Foundation
import GRDB

// MARK: - Cairn

// Every Cairn workload is handed its container opened, as GRDB's fastest code is handed its open
// database: opening is measured on its own (W0). Each makes its own context, as an app does per
// unit of work.
enum CairnSystem {
    /// The secret of the store an encrypted twin run opens (`--encrypted`), set while it runs;
    /// `nil` for the plaintext runs.
    nonisolated(unsafe) static var encryption: ModelConfiguration.Encryption?

    static func container(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Author.self, Book.self,
            configurations: ModelConfiguration(
                url: directory.appendingPathComponent("Bench.store"), encryption: encryption))
    }

    static func insertAndSave(_ values: [AuthorValues], into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        for value in values { context.insert(value.model) }
        try context.save()
        return values.count
    }

    static func upsert(_ values: some Sequence<AuthorValues>, into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        // CAIRN_BENCH_CHUNK measures other chunk sizes than the default (Benchmarks.md).
        let report =
            if let chunk = ProcessInfo.processInfo.environment["CAIRN_BENCH_CHUNK"].flatMap(Int.init) {
                try context.upsert(values.lazy.map(\.model), chunkSize: chunk)
            } else {
                try context.upsert(values.lazy.map(\.model))
            }
        return report.insertedCount + report.updatedCount + report.unchangedCount
    }

    /// SwiftData's pattern: fetch each by its key, update or insert, save once.
    static func fetchThenUpdate(_ values: [AuthorValues], into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        for value in values {
            let id = value.id
            let found = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id })).first
            update(found, with: value, in: context)
        }
        try context.save()
        return values.count
    }

    /// SwiftData's batch pattern: fetch every existing one with `ids.contains($0.id)`, update it or
    /// insert a new one, save once.
    static func fetchContainsThenUpdate(_ values: [AuthorValues], into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        let ids = values.map(\.id)
        let existing = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { ids.contains($0.id) }))
        var byID: [Int64: Author] = [:]
        for author in existing { byID[author.id] = author }
        for value in values { update(byID[value.id], with: value, in: context) }
        try context.save()
        return values.count
    }

    /// Gives `author` the values, or inserts a new author when there is none.
    private static func update(_ author: Author?, with value: AuthorValues, in context: ModelContext) {
        guard let author else { return context.insert(value.model) }
        author.name = value.name
        author.email = value.email
        author.score = value.score
        author.createdAt = value.createdAt
    }
}

// MARK: - GRDB

struct AuthorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    var id: Int64
    var name: String
    var email: String
    var score: Double
    var createdAt: Date

    init(_ value: AuthorValues) {
        id = value.id
        name = value.name
        email = value.email
        score = value.score
        createdAt = value.createdAt
    }
}

enum GRDBSystem {
    /// The database in `directory` (`file`), with its author table; dates as GRDB stores a `Date`
    /// (text), or as `DOUBLE` time intervals for the fastest records (`GRDBFastest`).
    static func queue(
        _ directory: URL, wal: Bool, file: String = "bench.sqlite", dates: String = "DATETIME"
    ) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(
            path: directory.appendingPathComponent(file).path, configuration: configuration(wal: wal))
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS author (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
                        score DOUBLE NOT NULL, createdAt \(dates) NOT NULL)
                    """)
        }
        return queue
    }

    /// GRDB's default configuration (a rollback journal), or WAL with `synchronous = NORMAL`.
    static func configuration(wal: Bool) -> Configuration {
        var configuration = Configuration()
        if wal {
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
        return configuration
    }

    static func preparedInsert(_ values: some Sequence<AuthorValues>, into directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        return try queue.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT INTO author (id, name, email, score, createdAt) VALUES (?, ?, ?, ?, ?)")
            var count = 0
            for value in values {
                try statement.execute(arguments: [value.id, value.name, value.email, value.score, value.createdAt])
                count += 1
            }
            return count
        }
    }

    static func preparedUpsert(_ values: [AuthorValues], into directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        try queue.write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO author (id, name, email, score, createdAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
                        score = excluded.score, createdAt = excluded.createdAt
                    """)
            for value in values {
                try statement.execute(arguments: [value.id, value.name, value.email, value.score, value.createdAt])
            }
        }
        return values.count
    }

    static func recordUpsert(_ values: [AuthorValues], into directory: URL, wal: Bool) throws -> Int {
        let queue = try queue(directory, wal: wal)
        try queue.write { db in
            for value in values { try AuthorRecord(value).upsert(db) }
        }
        return values.count
    }
}

// MARK: - Raw LMDB

/// LMDB called directly: the same puts Cairn makes for an author (its record under a row id,
/// appended, and its unique key pointing at the row), one write transaction, synced commit.
final class RawLMDB {
    var env: OpaquePointer?
    var records: MDB_dbi = 0
    var uniques: MDB_dbi = 0
    var bookRecords: MDB_dbi = 0
    var bookUniques: MDB_dbi = 0
    /// Author.books edges: duplicates of the author's row, rank then book row (as Cairn's).
    var authorBooks: MDB_dbi = 0
    /// Book.author edges.
    var bookAuthor: MDB_dbi = 0
    /// History entries by an 8-byte counter, as Cairn's `h` (W9 writes them).
    var history: MDB_dbi = 0
    /// LMDB's main table, where Cairn keeps its commit marker (W9 writes one).
    var main: MDB_dbi = 0

    init(_ directory: URL) {
        mdb_env_create(&env)
        mdb_env_set_mapsize(env, 16 << 30)
        mdb_env_set_maxdbs(env, 8)
        precondition(mdb_env_open(env, directory.path, UInt32(MDB_NOTLS), 0o600) == 0, "mdb_env_open")
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        let edges = UInt32(MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED)
        mdb_dbi_open(txn, "e/Author", UInt32(MDB_CREATE), &records)
        mdb_dbi_open(txn, "u/Author/id", UInt32(MDB_CREATE), &uniques)
        mdb_dbi_open(txn, "e/Book", UInt32(MDB_CREATE), &bookRecords)
        mdb_dbi_open(txn, "u/Book/id", UInt32(MDB_CREATE), &bookUniques)
        mdb_dbi_open(txn, "r/Author/books", edges, &authorBooks)
        mdb_dbi_open(txn, "r/Book/author", edges, &bookAuthor)
        mdb_dbi_open(txn, "h", UInt32(MDB_CREATE), &history)
        mdb_dbi_open(txn, nil, 0, &main)
        mdb_txn_commit(txn)
    }

    deinit { mdb_env_close(env) }

    static func rowKey(_ row: UInt64) -> [UInt8] { withUnsafeBytes(of: row.bigEndian) { Array($0) } }
    static func uniqueKey(_ id: Int64) -> [UInt8] {
        withUnsafeBytes(of: (UInt64(bitPattern: id) ^ (1 << 63)).bigEndian) { Array($0) }
    }

    /// A record of about the size Cairn writes: the fields, length-prefixed.
    static func record(_ value: AuthorValues) -> [UInt8] {
        var bytes: [UInt8] = [1]
        for text in [value.name, value.email] {
            bytes.append(UInt8(text.utf8.count))
            bytes += text.utf8
        }
        bytes += withUnsafeBytes(of: value.score.bitPattern) { Array($0) }
        bytes += withUnsafeBytes(of: value.createdAt.timeIntervalSinceReferenceDate.bitPattern) { Array($0) }
        bytes += withUnsafeBytes(of: value.id) { Array($0) }
        return bytes
    }

    func put(_ key: [UInt8], _ value: [UInt8], _ dbi: MDB_dbi, _ txn: OpaquePointer?, flags: Int32 = 0) {
        var key = key, value = value
        key.withUnsafeMutableBytes { k in
            value.withUnsafeMutableBytes { v in
                var mk = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                var mv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                precondition(mdb_put(txn, dbi, &mk, &mv, UInt32(flags)) == 0, "mdb_put")
            }
        }
    }

    func get(_ key: [UInt8], _ dbi: MDB_dbi, _ txn: OpaquePointer?) -> [UInt8]? {
        var key = key
        return key.withUnsafeMutableBytes { k -> [UInt8]? in
            var mk = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
            var mv = MDB_val()
            guard mdb_get(txn, dbi, &mk, &mv) == 0 else { return nil }
            return Array(UnsafeRawBufferPointer(start: mv.mv_data, count: mv.mv_size))
        }
    }

    func insert(_ values: some Sequence<AuthorValues>) -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        var row: UInt64 = 1
        for value in values {
            put(Self.rowKey(row), Self.record(value), records, txn, flags: MDB_APPEND)
            put(Self.uniqueKey(value.id), Self.rowKey(row), uniques, txn, flags: MDB_NOOVERWRITE)
            row += 1
        }
        precondition(mdb_txn_commit(txn) == 0, "mdb_txn_commit")
        return Int(row - 1)
    }

    /// Looks each key up, reads the record, writes it only when it differs.
    func upsert(_ values: [AuthorValues]) -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        for value in values {
            let record = Self.record(value)
            if let row = get(Self.uniqueKey(value.id), uniques, txn) {
                if get(row, records, txn) != record { put(row, record, records, txn) }
            }
        }
        precondition(mdb_txn_commit(txn) == 0, "mdb_txn_commit")
        return values.count
    }
}

import Foundation
import Testing

@testable import Cairn

/// A record's checksum covers the key it is stored under, so damage to a row key that keeps the
/// table's key order (row 5 read as row 4, where row 4 was deleted) is a typed error, never the
/// row answering for another identifier. Each test moves stored bytes to another key through the
/// storage API of an open store: what a flipped bit in the key does.
@Suite struct DamagedRowKeyTests {
    /// Books `k-1` … `k-6` in rows 1 … 6, each with a cover; row 4 deleted.
    func library(_ directory: TemporaryDirectory) throws -> (ModelContainer, [String: PersistentIdentifier]) {
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        var books: [LibraryBook] = []
        for number in 1...6 {
            let book = LibraryBook(isbn: "k-\(number)", title: "Book \(number)")
            book.cover = Data("cover \(number)".utf8)
            context.insert(book)
            books.append(book)
        }
        try context.save()
        var ids: [String: PersistentIdentifier] = [:]
        for book in books { ids[book.isbn] = book.persistentModelID }
        #expect(books.map { $0.persistentModelID.rowID } == [1, 2, 3, 4, 5, 6])
        context.delete(books[3])
        try context.save()
        return (container, ids)
    }

    func isDamagedRecord(_ error: any Error) -> Bool {
        (error as? StorageError)?.code == .damagedRecord
    }

    /// Moves the value stored under `from` to `to` in `table` (the other key's value is replaced).
    func move(_ from: [UInt8], to: [UInt8], in table: Table, _ container: ModelContainer) throws {
        try container.store.environment.write { txn in
            let bytes = try #require(try txn.get(from, in: table))
            try txn.delete(from, in: table)
            try txn.put(bytes, for: to, in: table)
        }
    }

    @Test func aRecordUnderAnotherRowKeyIsDamageNotAnotherModel() throws {
        let (container, ids) = try library(TemporaryDirectory())
        let records = try #require(container.store.entities["LibraryBook"]).layout.records
        try move(EntryLayout.rowKey(5), to: EntryLayout.rowKey(4), in: records, container)

        // A full scan would have listed book k-5's values under row 4.
        #expect { try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()) } throws: { isDamagedRecord($0) }
        #expect {
            try ModelContext(container).fetch(FetchDescriptor<LibraryBook>(), batchSize: 2).forEach { _ = $0.title }
        } throws: { isDamagedRecord($0) || ($0 as? FetchError)?.code == .loadFailed }

        // A fault of row 4 reads the default, and the load error is recorded.
        let context = ModelContext(container)
        let moved = try #require(ids["k-4"])
        #expect(moved.rowID == 4)
        let book = try #require(context.model(for: moved) as? LibraryBook)
        #expect(book.isbn == "", "not k-5's isbn")
        let cause = context.pendingLoadErrors.first?.cause
        #expect(cause.map(isDamagedRecord) == true)

        // The verifier lists it.
        let report = try container.verify()
        #expect(report.problems.contains { $0.kind == .damagedRecord && $0.table == "e/LibraryBook" }, "\(report)")
    }

    @Test func anExternalValueUnderAnotherRowIsDamage() throws {
        let (container, ids) = try library(TemporaryDirectory())
        let tables = try #require(container.store.entities["LibraryBook"])
        let tag = try #require(tables.codec.tags["cover"])
        try move(
            EntryLayout.externalKey(row: 1, tag: tag), to: EntryLayout.externalKey(row: 2, tag: tag),
            in: try #require(tables.layout.externals), container)

        let context = ModelContext(container)
        let book = try #require(context.model(for: ids["k-2"]!) as? LibraryBook)
        #expect(book.title == "Book 2")
        #expect(book.cover == nil, "not book k-1's cover")
        #expect(context.pendingLoadErrors.first?.property == "cover")
        #expect(context.pendingLoadErrors.first?.cause.map(isDamagedRecord) == true)
    }

    /// The upsert of a row the context does not hold decodes the stored record for its old index
    /// keys: a record under another row's key would have removed the wrong index entry and left a
    /// stale one.
    @Test func theUpsertOfARowNotHeldReadsAStoredRecordUnderItsOwnKey() throws {
        let container = try makeContainer(Reading.self, in: TemporaryDirectory(), named: "Upsert.store")
        let context = ModelContext(container)
        _ = try context.upsert((1...3).map { Reading(sensor: $0, value: Double($0), note: "v1") })
        let records = try #require(container.store.entities["Reading"]).layout.records
        // Row 2 now holds row 1's bytes: its unique entry (sensor 2 → row 2) is intact.
        try container.store.environment.write { txn in
            let bytes = try #require(try txn.get(EntryLayout.rowKey(1), in: records))
            try txn.put(bytes, for: EntryLayout.rowKey(2), in: records)
        }
        let upserting = ModelContext(container)
        #expect { try upserting.upsert([Reading(sensor: 2, value: 20, note: "v2")]) } throws: { isDamagedRecord($0) }
    }

    /// The general upsert (a model with two uniqueness constraints) reads the row it takes over
    /// for its old index keys.
    @Test func theGeneralUpsertReadsAStoredRecordUnderItsOwnKey() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        for (first, last) in [("Mary", "Shelley"), ("Jane", "Austen")] {
            context.insert(LibraryAuthor(firstName: first, lastName: last, email: "\(first)@example.org"))
        }
        try context.save()
        let records = try #require(container.store.entities["LibraryAuthor"]).layout.records
        try container.store.environment.write { txn in
            let bytes = try #require(try txn.get(EntryLayout.rowKey(1), in: records))
            try txn.put(bytes, for: EntryLayout.rowKey(2), in: records)
        }
        let upserting = ModelContext(container)
        #expect {
            try upserting.upsert([LibraryAuthor(firstName: "Jane", lastName: "Eyre", email: "Jane@example.org")])
        } throws: { isDamagedRecord($0) || ($0 as? FetchError)?.code == .loadFailed }
    }

    @Test func aSealedRecordReadsOnlyUnderItsKey() throws {
        var writer = RecordWriter()
        writer.write("Ada", tag: 1)
        var record = writer.encoded()
        let unkeyed = record.bytes
        #expect(try RecordReader(unkeyed).read(String.self, tag: 1) == "Ada")
        let sealed = record.sealed(forRow: 5)
        #expect(try RecordReader(sealed, key: EntryLayout.rowKey(5)).read(String.self, tag: 1) == "Ada")
        #expect(try RecordReader(sealed, key: EntryLayout.rowKey(5)).checksum == record.contentChecksum)
        for row: UInt64 in [4, 7, 5 | 1 << 40] {
            #expect(throws: StorageError.self) { try RecordReader(sealed, key: EntryLayout.rowKey(row)) }
        }
        #expect(throws: StorageError.self) { try RecordReader(sealed) }
        // Sealing again sets the checksum for the new key; it does not toggle it.
        _ = record.sealed(forRow: 9)
        let resealed = record.sealed(forRow: 9)
        #expect(try RecordReader(resealed, key: EntryLayout.rowKey(9)).read(String.self, tag: 1) == "Ada")
    }
}

import Foundation
import Testing

@testable import Cairn

/// `ModelContainer.verify()` finds each kind of damage that reads back wrong, naming the table
/// and the models involved, and never throws because of it.
@Suite struct VerifyTests {
    /// Three books (two chapters each) and two authors; book `b-1` belongs to the first author.
    func library() throws -> (ModelContainer, [LibraryBook], [LibraryAuthor]) {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let books = (0..<3).map { LibraryBook(isbn: "b-\($0)", title: "Book \($0)") }
        for book in books {
            book.chapters = [LibraryChapter(title: "One", number: 1), LibraryChapter(title: "Two", number: 2)]
            context.insert(book)
        }
        let authors = [
            LibraryAuthor(firstName: "Mary", lastName: "Shelley", email: "m@example.org"),
            LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "j@example.org"),
        ]
        authors.forEach(context.insert)
        authors[0].books = [books[1]]
        try context.save()
        return (container, books, authors)
    }

    func write(_ container: ModelContainer, _ body: (borrowing WriteTransaction) throws -> Void) throws {
        try container.store.environment.write { txn in try body(txn) }
    }

    @Test func aConsistentStoreIsClean() throws {
        let (container, _, _) = try library()
        let report = try container.verify()
        #expect(report.isClean, "\(report)")
        #expect(report.rowsByEntity["LibraryBook"] == 3)
        #expect(report.rowsByEntity["LibraryChapter"] == 6)
        #expect(report.entriesByTable["r/LibraryBook/chapters"] == 6)
        #expect(report.entriesByTable["u/LibraryBook/isbn"] == 3)
        #expect(report.entriesByTable["i/LibraryAuthor/lastName"] == 2)
    }

    @Test func aDamagedRecordIsFound() throws {
        let (container, books, _) = try library()
        let id = books[2].persistentModelID
        let records = container.store.entities["LibraryBook"]!.layout.records
        try write(container) { txn in
            var record = try #require(try txn.get(EntryLayout.rowKey(id.rowID!), in: records))
            record[4] ^= 0x10
            try txn.put(record, for: EntryLayout.rowKey(id.rowID!), in: records)
        }
        let report = try container.verify()
        #expect(report.problems.contains { $0.kind == .damagedRecord && $0.identifiers == [id] }, "\(report)")
    }

    @Test func aDamagedUniqueEntryAndTheRowLeftWithoutOneAreFound() throws {
        let (container, books, _) = try library()
        let unique = container.store.entities["LibraryBook"]!.keys.uniques[0].table
        let key = LibraryBook.uniqueKey("b-0")
        try write(container) { txn in
            var value = try #require(try txn.get(key, in: unique))
            value[7] ^= 0x02
            try txn.put(value, for: key, in: unique)
        }
        let report = try container.verify()
        #expect(report.problems.contains { $0.kind == .damagedEntry && $0.table == "u/LibraryBook/isbn" }, "\(report)")
        #expect(report.problems.contains { $0.kind == .missingEntry && $0.identifiers == [books[0].persistentModelID] })
    }

    @Test func anIndexEntryUnderAWrongKeyIsFound() throws {
        let (container, _, authors) = try library()
        let index = container.store.entities["LibraryAuthor"]!.keys.indexes.first { $0.names == ["lastName"] }!.table
        let row = authors[1].persistentModelID.rowID!
        var builder = KeyBuilder()
        builder.append("Austen")
        let key = builder.finalized()
        var other = KeyBuilder()
        other.append("Brontë")
        let wrong = other.finalized()
        try write(container) { txn in
            _ = try txn.delete(key, value: EntryLayout.keyedValue(row: row, key: key), in: index)
            try txn.put(EntryLayout.keyedValue(row: row, key: wrong), for: wrong, in: index)
        }
        let report = try container.verify()
        let id = authors[1].persistentModelID
        #expect(report.problems.contains { $0.kind == .strayEntry && $0.identifiers == [id] }, "\(report)")
        #expect(report.problems.contains { $0.kind == .missingEntry && $0.identifiers == [id] })
    }

    /// The same wrong key, found without the app's models: `cairn verify` computes each row's
    /// keys from its record by the types the store's description records.
    @Test func anIndexEntryUnderAWrongKeyIsFoundWithoutTheModels() throws {
        let directory = TemporaryDirectory()
        let id: PersistentIdentifier
        do {
            let container = try libraryContainer(directory)
            let context = ModelContext(container)
            let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "j@example.org")
            context.insert(author)
            try context.save()
            id = author.persistentModelID
            let index = container.store.entities["LibraryAuthor"]!.keys.indexes.first { $0.names == ["lastName"] }!.table
            let (key, wrong) = (KeyBuilder.key("Austen"), KeyBuilder.key("Bront\u{EB}"))
            try write(container) { txn in
                _ = try txn.delete(key, value: EntryLayout.keyedValue(row: id.rowID!, key: key), in: index)
                try txn.put(EntryLayout.keyedValue(row: id.rowID!, key: wrong), for: wrong, in: index)
            }
        }
        let report = try StoreInspector(path: directory.child("Library.store")).verify()
        #expect(report.problems.contains { $0.kind == .strayEntry && $0.identifiers.map(\.rowID) == [id.rowID] }, "\(report)")
        #expect(report.problems.contains { $0.kind == .missingEntry && $0.identifiers.map(\.rowID) == [id.rowID] })
    }

    @Test func anIndexEntryOfAMissingRowIsFound() throws {
        let (container, _, _) = try library()
        let index = container.store.entities["LibraryAuthor"]!.keys.indexes.first { $0.names == ["lastName"] }!.table
        var builder = KeyBuilder()
        builder.append("Eliot")
        let key = builder.finalized()
        try write(container) { txn in try txn.put(EntryLayout.keyedValue(row: 99, key: key), for: key, in: index) }
        let report = try container.verify()
        #expect(report.problems.contains { $0.kind == .strayEntry && $0.identifiers.first?.rowID == 99 }, "\(report)")
    }

    /// Two rows with one unique value: what a missed unique lookup used to let an app store.
    @Test func aDuplicateUniqueValueIsFound() throws {
        let (container, books, _) = try library()
        let records = container.store.entities["LibraryBook"]!.layout.records
        let source = books[0].persistentModelID.rowID!
        try write(container) { txn in
            // The same values under row 50: the record sealed for its new key (its checksum covers it).
            var record = try #require(try txn.get(EntryLayout.rowKey(source), in: records))
            let move = CRC32C.checksum(EntryLayout.rowKey(source)) ^ CRC32C.checksum(EntryLayout.rowKey(50))
            for offset in 0..<4 { record[record.count - 4 + offset] ^= UInt8(truncatingIfNeeded: move >> (8 * offset)) }
            try txn.put(record, for: EntryLayout.rowKey(50), in: records)
        }
        let report = try container.verify()
        #expect(
            report.problems.contains {
                $0.kind == .duplicateUniqueValue && $0.identifiers.map(\.rowID) == [source, 50]
            }, "\(report)")
    }

    @Test func anAsymmetricEdgeIsFound() throws {
        let (container, books, authors) = try library()
        let table = container.store.entities["LibraryBook"]!.layout.edges["author"]!
        let book = books[1].persistentModelID.rowID!
        try write(container) { txn in try txn.delete(EntryLayout.rowKey(book), in: table) }
        let report = try container.verify()
        #expect(
            report.problems.contains {
                $0.kind == .asymmetricEdge
                    && $0.identifiers == [authors[0].persistentModelID, books[1].persistentModelID]
            }, "\(report)")
    }

    @Test func aDamagedEdgeIsFound() throws {
        let (container, books, _) = try library()
        let table = container.store.entities["LibraryBook"]!.layout.edges["chapters"]!
        let owner = books[0].persistentModelID.rowID!
        try write(container) { txn in
            let edge = try txn.edges(of: owner, in: table)[1]
            let value = EntryLayout.edgeValue(owner: owner, rank: edge.rank, target: edge.target)
            _ = try txn.delete(EntryLayout.rowKey(owner), value: value, in: table)
            var damaged = value
            damaged[19] ^= 0x01
            try txn.put(damaged, for: EntryLayout.rowKey(owner), in: table)
        }
        let report = try container.verify()
        #expect(
            report.problems.contains { $0.kind == .damagedEntry && $0.table == "r/LibraryBook/chapters" }, "\(report)")
    }

    @Test func anEdgeToAMissingRowIsFound() throws {
        let (container, books, _) = try library()
        let chapters = container.store.entities["LibraryChapter"]!.layout.records
        let table = container.store.entities["LibraryBook"]!.layout.edges["chapters"]!
        let owner = books[2].persistentModelID.rowID!
        let target = try container.store.environment.read { txn in try txn.edges(of: owner, in: table)[0].target }
        try write(container) { txn in _ = try txn.delete(EntryLayout.rowKey(target), in: chapters) }
        let report = try container.verify()
        #expect(
            report.problems.contains {
                $0.kind == .missingRow && $0.identifiers.map(\.rowID) == [owner, target]
            }, "\(report)")
    }

    /// A page damaged under an open store (the storage engine maps the file and would read the
    /// page as it is) is found by the walk of every page, and the rows are not read through the
    /// storage engine, which could stop the process on such a page.
    @Test(arguments: [(12, [0xFF, 0xFF, 0x00, 0x00] as [UInt8]), (10, [0x01, 0x00]), (0, [0x09, 0, 0, 0])])
    func aDamagedPageIsFoundWithoutReadingIt(offset: Int, garbage: [UInt8]) throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        for number in 0..<40 { context.insert(LibraryBook(isbn: "isbn-\(number)", title: "Title \(number)")) }
        try context.save()
        // The leaf page that holds the records: the one containing a record's title.
        let path = directory.child("Library.store/data.mdb")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let needle = Array("Title 17".utf8)
        let found = try #require(
            bytes.indices.dropLast(needle.count).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        let page = found / 4096 * 4096
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64(page + offset))
        try file.write(contentsOf: garbage)
        try file.close()

        let report = try container.verify()
        #expect(report.problems.contains { $0.kind == .damagedPage && $0.table == "e/LibraryBook" }, "\(report)")
        #expect(report.problems.allSatisfy { $0.kind == .damagedPage }, "\(report)")
    }
}

import Foundation
import Testing

@testable import Cairn

/// The one way relationship targets are read, for faults and for prefetching.
@Suite struct RelationshipReaderTests {
    /// Three authors with three books each; returns the container and the rows of authors and books.
    func library() throws -> (ModelContainer, authors: [UInt64], books: [[UInt64]]) {
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let authors = (0..<3).map { a in
            let author = LibraryAuthor(firstName: "F\(a)", lastName: "L\(a)", email: "\(a)@example.org")
            author.books = (0..<3).map { LibraryBook(isbn: "\(a)-\($0)", title: "Book \(a)-\($0)") }
            context.insert(author)
            return author
        }
        try context.save()
        return (
            container, authors.map { $0.persistentModelID.rowID! },
            authors.map { $0.books.map { $0.persistentModelID.rowID! } }
        )
    }

    func reader(_ container: ModelContainer, _ entity: String, _ relationship: String) -> RelationshipReader {
        let tables = container.store.entities[entity]!
        return RelationshipReader(
            store: container.store, relationship: tables.entity.relationshipsByName[relationship]!, tables: tables)
    }

    @Test func eachOwnersTargetsComeInStoredOrderWithTheRecordsAskedFor() throws {
        let (container, authors, books) = try library()
        let reader = reader(container, "LibraryAuthor", "books")
        let wanted = Set([books[0][1], books[2][0]])
        var batch = RecordBatch()
        let read = try container.store.environment.read { txn in
            try reader.read(owners: [authors[2], authors[0]], wantsRecord: wanted.contains, txn: txn, into: &batch)
        }
        #expect(read.owners.map { $0.map(\.row) } == [books[2], books[0]])
        let withRecords = read.owners.joined().filter { $0.record != nil }.map(\.row)
        #expect(Set(withRecords) == wanted)
        #expect(read.records.count == 2)
        let title = container.store.entities["LibraryBook"]!.codec.tags["title"]!
        #expect(try read.record(of: read.owners[0][0])?.read(String.self, tag: title) == "Book 2-0")
    }

    @Test func aSharedTargetsRecordIsReadOnce() throws {
        let (container, authors, books) = try library()
        let reader = reader(container, "LibraryBook", "author")
        let owners = books[1] + books[1]
        var batch = RecordBatch()
        let read = try container.store.environment.read { txn in
            try reader.read(owners: owners, wantsRecord: { _ in true }, txn: txn, into: &batch)
        }
        #expect(read.owners.map { $0.map(\.row) } == Array(repeating: [authors[1]], count: 6))
        #expect(read.owners.joined().filter { $0.record != nil }.count == 1 && read.records.count == 1)
    }
}

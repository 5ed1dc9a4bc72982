import Foundation
import Testing

@testable import Cairn

/// Damage to unique, index and edge entries is a typed error, never a wrong answer: each test
/// writes wrong bytes into a real store (through the storage API, or by flipping a bit in a copy of
/// the data file) and checks that the read which would have answered wrongly throws
/// `StorageError.damagedRecord` instead.
@Suite struct DamagedEntryTests {
    /// A store of books `b19-0` … `b19-9` (each with two chapters) and three authors.
    func library(_ directory: TemporaryDirectory) throws -> ModelContainer {
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        for number in 0..<10 {
            let book = LibraryBook(isbn: "b19-\(number)", title: "Book \(number)")
            book.chapters = [LibraryChapter(title: "One", number: 1), LibraryChapter(title: "Two", number: 2)]
            context.insert(book)
        }
        for (first, last) in [("Mary", "Shelley"), ("Jane", "Austen"), ("George", "Eliot")] {
            context.insert(LibraryAuthor(firstName: first, lastName: last, email: "\(first)@example.org"))
        }
        try context.save()
        return container
    }

    func isDamagedRecord(_ error: any Error) -> Bool {
        (error as? StorageError)?.code == .damagedRecord
    }

    func bookID(_ container: ModelContainer, isbn: String) throws -> PersistentIdentifier {
        let books = try ModelContext(container).fetch(FetchDescriptor<LibraryBook>())
        return try #require(books.first { $0.isbn == isbn }).persistentModelID
    }

    /// The finding that started this: one flipped bit in a unique key made an equality fetch
    /// return nothing while a full fetch found the model, and the app then inserted a duplicate.
    ///
    /// The bit is flipped while the store is open (the storage engine maps the file, so it reads
    /// the damaged page at once), which is what the checks at read time are for; opening the file
    /// afterwards is the open-time check's business (see the second half).
    @Test func aFlippedBitInAUniqueKeyOnDiskIsAnErrorNotAMiss() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try library(directory)
            // The unique key of "b19-1" is its UTF-8 bytes and the terminator 00 01; records hold the
            // string without the terminator, so this finds the key in the u/ table's leaf page.
            let path = directory.child("Library.store/data.mdb")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let needle = Array("b19-1".utf8) + [0x00, 0x01]
            let offsets = bytes.indices.dropLast(needle.count).filter {
                bytes[$0..<($0 + needle.count)].elementsEqual(needle)
            }
            #expect(offsets.count == 1, "the key is stored once")
            let offset = try #require(offsets.first)
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try file.seek(toOffset: UInt64(offset + 4))
            try file.write(contentsOf: [bytes[offset + 4] ^ 0x01])  // "b19-1" becomes "b19-0"
            try file.synchronize()
            try file.close()

            let context = ModelContext(container)
            #expect(throws: StorageError.self) {
                try context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "b19-1" }))
            }
            // An insert with the same unique value looks the key up too: it refuses instead of
            // storing a duplicate.
            context.insert(LibraryBook(isbn: "b19-1", title: "Duplicate"))
            #expect(throws: StorageError.self) { try context.save() }
        }  // the container closes the store here

        // Opened again, the walk of every page finds the keys out of order in the last commit's
        // snapshot: the store opens at the commit before, and says so, or is refused; never a
        // silent miss.
        let reopened: Result<ModelContainer, any Error> = Result { try libraryContainer(directory) }
        switch reopened {
        case .success(let again):
            let recovery = try #require(again.recovery, "a damaged last commit is reported")
            #expect(recovery.skippedTransaction != nil)
            let books = try ModelContext(again).fetch(FetchDescriptor<LibraryBook>())
            #expect(books.isEmpty, "the commit before the library's save holds no books")
        case .failure(let error):
            #expect(error is StorageError, "\(error)")
        }
    }

    @Test func aUniqueEntryNamingAnotherRowIsAnError() throws {
        let container = try library(TemporaryDirectory())
        let unique = try #require(container.store.entities["LibraryBook"]?.keys.uniques.first)
        let key = LibraryBook.uniqueKey("b19-3")
        try container.store.environment.write { txn in
            var value = try #require(try txn.get(key, in: unique.table))
            value[7] ^= 0x04  // another row id, same checksum
            try txn.put(value, for: key, in: unique.table)
        }
        let context = ModelContext(container)
        #expect {
            try context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "b19-3" }))
        } throws: { isDamagedRecord($0) }
        // An insert with the same value would take over the wrong row: it refuses instead.
        context.insert(LibraryBook(isbn: "b19-3", title: "Replacement"))
        #expect { try context.save() } throws: { isDamagedRecord($0) }
    }

    @Test func aShortUniqueValueIsAnErrorNotATrap() throws {
        let container = try library(TemporaryDirectory())
        let unique = try #require(container.store.entities["LibraryBook"]?.keys.uniques.first)
        try container.store.environment.write { txn in
            try txn.put([0x01, 0x02], for: LibraryBook.uniqueKey("b19-4"), in: unique.table)
        }
        #expect {
            try ModelContext(container).fetch(
                FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "b19-4" }))
        } throws: { isDamagedRecord($0) }
    }

    @Test func anIndexEntryUnderADamagedKeyIsAnErrorNotAMiss() throws {
        let container = try library(TemporaryDirectory())
        let tables = try #require(container.store.entities["LibraryAuthor"])
        let index = try #require(tables.keys.indexes.first { $0.names == ["lastName"] })
        let key = stringKey("Eliot")
        var damagedKey = key
        damagedKey[0] ^= 0x01  // "Eliot" becomes "Dliot": still between "Austen" and "Shelley"
        try container.store.environment.write { txn in
            let value = try #require(try txn.get(key, in: index.table))
            _ = try txn.delete(key, value: value, in: index.table)
            try txn.put(value, for: damagedKey, in: index.table)
        }
        let context = ModelContext(container)
        #expect {
            try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Eliot" }))
        } throws: { isDamagedRecord($0) }
        #expect {
            try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName > "C" }))
        } throws: { isDamagedRecord($0) }
    }

    @Test func anIndexValueWithAFlippedBitIsAnError() throws {
        let container = try library(TemporaryDirectory())
        let tables = try #require(container.store.entities["LibraryAuthor"])
        let index = try #require(tables.keys.indexes.first { $0.names == ["lastName"] })
        let key = stringKey("Austen")
        try container.store.environment.write { txn in
            let value = try #require(try txn.get(key, in: index.table))
            _ = try txn.delete(key, value: value, in: index.table)
            var damaged = value
            damaged[11] ^= 0x80  // the checksum
            try txn.put(damaged, for: key, in: index.table)
        }
        let context = ModelContext(container)
        #expect {
            try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == "Austen" }))
        } throws: { isDamagedRecord($0) }
        // A fetch sorted by the indexed attribute with a limit reads the index in order.
        var ordered = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)])
        ordered.fetchLimit = 2
        #expect { try context.fetch(ordered) } throws: { isDamagedRecord($0) }
    }

    @Test func anEdgeWithAnotherTargetIsAnErrorNotAWrongModel() throws {
        let container = try library(TemporaryDirectory())
        let id = try bookID(container, isbn: "b19-2")
        let owner = try #require(id.rowID)
        let table = try #require(container.store.entities["LibraryBook"]?.layout.edges["chapters"])
        try container.store.environment.write { txn in
            let edges = try txn.edges(of: owner, in: table)
            let stored = EntryLayout.edgeValue(owner: owner, rank: edges[0].rank, target: edges[0].target)
            _ = try txn.delete(EntryLayout.rowKey(owner), value: stored, in: table)
            var damaged = stored
            damaged[15] ^= 0x01  // the target's row id
            try txn.put(damaged, for: EntryLayout.rowKey(owner), in: table)
        }
        var descriptor = FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "b19-2" })
        descriptor.relationshipKeyPathsForPrefetching = [\.chapters]
        #expect { try ModelContext(container).fetch(descriptor) } throws: { isDamagedRecord($0) }
    }

    /// Damaged edge pages gave a to-many that was empty or held placeholders; edges moved to a
    /// wrong owner key are found at the owner's position.
    @Test func edgesUnderADamagedOwnerKeyAreAnErrorNotAnEmptyList() throws {
        let container = try library(TemporaryDirectory())
        let id = try bookID(container, isbn: "b19-0")
        let owner = try #require(id.rowID)
        #expect(owner == 1, "the first book saved")
        let table = try #require(container.store.entities["LibraryBook"]?.layout.edges["chapters"])
        try container.store.environment.write { txn in
            let edges = try txn.edges(of: owner, in: table)
            try txn.delete(EntryLayout.rowKey(owner), in: table)
            for edge in edges {
                // Row 1's edges under key 0: the key's lowest bit flipped.
                try txn.put(
                    EntryLayout.edgeValue(owner: owner, rank: edge.rank, target: edge.target),
                    for: EntryLayout.rowKey(0), in: table)
            }
        }
        var descriptor = FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "b19-0" })
        descriptor.relationshipKeyPathsForPrefetching = [\.chapters]
        #expect { try ModelContext(container).fetch(descriptor) } throws: { isDamagedRecord($0) }
    }

    @Test func aStoreOfFormatOneIsRefusedWithAVersionMismatch() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try library(directory)
            try container.store.environment.write { txn in
                try txn.put([1], for: StoreLayout.formatKey, in: container.store.meta)
            }
        }
        #expect {
            try libraryContainer(directory)
        } throws: { error in
            let error = error as? StorageError
            return error?.code == .versionMismatch && error?.message.contains("format 1") == true
        }
    }
}

/// The key a unique or index table holds for one string value.
func stringKey(_ value: String) -> [UInt8] {
    var builder = KeyBuilder()
    builder.append(value)
    return builder.finalized()
}

extension LibraryBook {
    /// The key of an ISBN in the `u/LibraryBook/isbn` table.
    static func uniqueKey(_ isbn: String) -> [UInt8] { stringKey(isbn) }
}

import Foundation
import Testing

@testable import Cairn

/// Every value Cairn writes to `meta` (the format, the store identifier, each entity's stored
/// description, the counters) carries a checksum over its key and payload. Damage that would
/// still decode — an attribute's name in a description, a counter's value — is a
/// `StorageError.damagedRecord` saying the store's description is damaged, never a
/// `SchemaError.incompatibleStore` telling the user to change their models, and never a wrong
/// identifier or row id.
@Suite struct DamagedDescriptionTests {
    func library(_ directory: TemporaryDirectory) throws -> ModelContainer {
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        context.insert(LibraryBook(isbn: "d-1", title: "One"))
        try context.save()
        return container
    }

    func isDamagedDescription(_ error: any Error) -> Bool {
        guard let error = error as? StorageError else { return false }
        return error.code == .damagedRecord && error.message.contains("description is damaged")
    }

    /// Flips one bit of the data file of an open store wherever `needle` occurs (the live page
    /// and any older copy LMDB has not reused yet).
    /// Flips `bit` of byte `position` of every copy of `needle` in the data file; with
    /// `outsideDescriptions`, not of the copies inside entity descriptions (binary-coded strings:
    /// the tag 0x07 and the length before them), which name edge tables too.
    func flip(
        _ needle: [UInt8], at position: Int, bit: UInt8, in directory: TemporaryDirectory,
        outsideDescriptions: Bool = false
    ) throws {
        let path = directory.child("Library.store/data.mdb")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let offsets = bytes.indices.dropLast(needle.count).filter {
            bytes[$0..<($0 + needle.count)].elementsEqual(needle)
                && !(outsideDescriptions && $0 >= 2 && bytes[$0 - 2] == 0x07 && bytes[$0 - 1] == UInt8(needle.count))
        }
        #expect(!offsets.isEmpty, "the bytes are stored")
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        for start in offsets {
            try file.seek(toOffset: UInt64(start + position))
            try file.write(contentsOf: [bytes[start + position] ^ bit])
        }
        try file.synchronize()
        try file.close()
    }

    /// The finding: "publishedAt" read as "publishedAu" in LibraryBook's stored description made
    /// the store look like one whose rows lack a required attribute, and the container refused it
    /// with a schema error that told the user to change their model code.
    @Test func aDamagedEntityDescriptionIsStorageDamageNotASchemaChange() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try library(directory)
            try flip(Array("publishedAt".utf8), at: 10, bit: 0x01, in: directory)
            // The store is open: a second container of the same file reads the description again.
            #expect { try libraryContainer(directory) } throws: { error in
                !(error is SchemaError) && isDamagedDescription(error)
            }
            _ = container
        }
        #expect { try libraryContainer(directory) } throws: { error in
            !(error is SchemaError) && isDamagedDescription(error)
        }
    }

    /// Each kind of `meta` value, damaged through the storage API, is a typed storage error.
    /// A bit flipped in the *key* of an entity's description (found by the damage fuzzer) hid the
    /// description: the entity looked new, its stored rows seemed to lack its attributes, and the
    /// container refused the store with `SchemaError.incompatibleStore`. A missing description of
    /// an entity with rows is damage.
    @Test func aDescriptionWhoseKeyIsDamagedIsStorageDamageNotASchemaChange() throws {
        let directory = TemporaryDirectory()
        do {
            _ = try library(directory)
        }
        // "entity:LibraryBook" becomes "entity:LibraryBooj": still in order, so LMDB finds nothing.
        try flip(Array("entity:LibraryBook".utf8), at: 17, bit: 0x01, in: directory)
        #expect { try libraryContainer(directory) } throws: { error in
            !(error is SchemaError) && isDamagedDescription(error)
        }
    }

    /// A table's name in LMDB's main table, damaged (found by the damage fuzzer: twelve bytes of
    /// "r/FaultShelf/volumes" overwritten): opening the store created the table anew, empty, and
    /// every shelf read as having no volumes, with no error. A table the store's description says
    /// exists (an entity's rows, a described relationship's edges) and that is missing is damage.
    @Test(arguments: ["e/LibraryBook", "r/LibraryAuthor/books"])
    func aTableWhoseNameIsDamagedIsDamageNotAnEmptyTable(table: String) throws {
        let directory = TemporaryDirectory()
        do {
            let container = try libraryContainer(directory)
            let context = ModelContext(container)
            let author = LibraryAuthor(firstName: "M", lastName: "Shelley", email: "m@example.org")
            author.books = [LibraryBook(isbn: "d-1", title: "One"), LibraryBook(isbn: "d-2", title: "Two")]
            context.insert(author)
            try context.save()
        }
        // The last character changes: the name sorts elsewhere, and looking it up finds nothing.
        try flip(Array(table.utf8), at: table.utf8.count - 1, bit: 0x02, in: directory, outsideDescriptions: true)
        do {
            let container = try libraryContainer(directory)
            // Opened only by reading an earlier commit (whose copy of the page is intact):
            // everything is there, never an empty table in its place.
            let context = ModelContext(container)
            let authors = try context.fetch(FetchDescriptor<LibraryAuthor>())
            #expect(authors.count == 1 && authors[0].books.map(\.isbn).sorted() == ["d-1", "d-2"])
            #expect(try context.fetchCount(FetchDescriptor<LibraryBook>()) == 2)
        } catch let error as StorageError {
            #expect(error.code == .damaged && error.message.contains("'\(table)' is missing"), "\(error)")
        }
    }

    @Test(arguments: ["format", "store", "entity:LibraryBook", "rowid:LibraryBook"])
    func aDamagedMetaValueIsATypedStorageError(key name: String) throws {
        let directory = TemporaryDirectory()
        let key = Array(name.utf8)
        do {
            let container = try library(directory)
            try container.store.environment.write { txn in
                var value = try #require(try txn.get(key, in: container.store.meta))
                value[0] ^= 0x04
                try txn.put(value, for: key, in: container.store.meta)
            }
            if name.hasPrefix("rowid:") {
                // The counter is read by the next save that adds a row.
                let context = ModelContext(container)
                context.insert(LibraryBook(isbn: "d-2", title: "Two"))
                #expect { try context.save() } throws: { isDamagedDescription($0) }
                return
            }
        }
        #expect { try libraryContainer(directory) } throws: { error in
            !(error is SchemaError) && isDamagedDescription(error)
        }
    }

    @Test func metaValuesRoundTripAndCarryTheirKey() throws {
        let key = Array("rowid:Book".utf8)
        let value = EntryLayout.counter(42, key: key)
        #expect(value.count == 12)
        let meta = try #require(try library(TemporaryDirectory()).store.meta as Table?)
        #expect(try EntryLayout.counter(value, key: key, table: meta) == 42)
        // The same bytes under another key are damage: the checksum covers the key.
        #expect(throws: StorageError.self) {
            try EntryLayout.counter(value, key: Array("rowid:Page".utf8), table: meta)
        }
        #expect(throws: StorageError.self) { try EntryLayout.metaPayload([1, 2], key: key) }
        // A store whose format entry is the bare byte of this format was written before the
        // checksum: damage, not a format it could read.
        #expect { try Store.checkFormat([Store.formatVersion]) } throws: { isDamagedDescription($0) }
        try Store.checkFormat(EntryLayout.metaValue([Store.formatVersion], key: StoreLayout.formatKey))
    }
    /// A description whose checksum matches but whose tags break the record format (a tag given
    /// twice, the next tag below a used one, a tag out of range) used to stop the program in the
    /// record writer at the first save; it is a typed storage error at open now.
    @Test(arguments: ["duplicate", "nextTagTooLow", "zero", "nextTagTooHigh"])
    func aDescriptionWithImpossibleTagsIsRefusedNotATrap(_ kind: String) throws {
        let directory = TemporaryDirectory()
        let key = StoreLayout.entityDescriptionKey("LibraryBook")
        do {
            let container = try library(directory)
            try container.store.environment.write { txn in
                let value = try #require(try txn.get(key, in: container.store.meta))
                var stored = try BinaryDecoder().decode(
                    StoredEntity.self, from: try EntryLayout.metaPayload(value, key: key))
                switch kind {
                case "duplicate": stored.attributes[1].tag = stored.attributes[0].tag
                case "nextTagTooLow": stored.nextTag = stored.attributes.map(\.tag).max()!
                case "zero": stored.attributes[0].tag = 0
                default: stored.nextTag = RecordWriter.maximumTag + 1
                }
                let bytes = EntryLayout.metaValue(try BinaryEncoder().encode(stored), key: key)
                try txn.put(bytes, for: key, in: container.store.meta)
            }
        }
        #expect { try libraryContainer(directory) } throws: { error in
            !(error is SchemaError) && isDamagedDescription(error)
        }
    }

    /// The last commit id comes from the data file's meta page as a size_t, an `Int` in Swift:
    /// with its top bit set by damage it is negative, and the conversion before each fetch used
    /// to trap. The fetch now reads on (from the snapshot LMDB's reader table gives it).
    @Test func aNegativeLastCommitIdDoesNotTrapAFetch() throws {
        let directory = TemporaryDirectory()
        let container = try library(directory)
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<LibraryBook>()).count == 1)
        let path = directory.child("Library.store/data.mdb")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func id(_ page: Int) -> UInt64 {
            let offset = page * StoreDamage.pageSize + StoreDamage.Meta.transactionID
            return bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let newest = id(0) > id(1) ? 0 : 1
        let top = newest * StoreDamage.pageSize + StoreDamage.Meta.transactionID + 7
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64(top))
        try file.write(contentsOf: [bytes[top] | 0x80])
        try file.synchronize()
        defer {
            // Put the byte back so closing the store writes nothing from a damaged meta page.
            try? file.seek(toOffset: UInt64(top))
            try? file.write(contentsOf: [bytes[top]])
            try? file.synchronize()
            try? file.close()
        }
        #expect(container.store.environment.info.lastTransactionID < 0, "the damage is visible")
        let books = try context.fetch(FetchDescriptor<LibraryBook>())
        #expect(books.map(\.isbn) == ["d-1"])
    }
}

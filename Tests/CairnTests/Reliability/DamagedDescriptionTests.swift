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
    func flip(_ needle: [UInt8], at position: Int, bit: UInt8, in directory: TemporaryDirectory) throws {
        let path = directory.child("Library.store/data.mdb")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let offsets = bytes.indices.dropLast(needle.count).filter {
            bytes[$0..<($0 + needle.count)].elementsEqual(needle)
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
        #expect(throws: StorageError.self) { try EntryLayout.counter(value, key: Array("rowid:Page".utf8), table: meta) }
        #expect(throws: StorageError.self) { try EntryLayout.metaPayload([1, 2], key: key) }
        // A store whose format entry is the bare byte of this format was written before the
        // checksum: damage, not a format it could read.
        #expect { try Store.checkFormat([Store.formatVersion]) } throws: { isDamagedDescription($0) }
        try Store.checkFormat(EntryLayout.metaValue([Store.formatVersion], key: Store.formatKey))
    }
}

import CairnStorage
import Foundation
import Testing

@testable import Cairn

/// An encrypted store end to end: what it writes holds none of the values saved through the API,
/// it reads them back with its secret, refuses a missing or wrong one without changing a byte,
/// and treats a changed or moved record as damage.
@Suite struct EncryptedStoreTests {
    static let key = Data((0..<32).map { UInt8($0 &* 7 &+ 3) })

    func container(
        _ directory: TemporaryDirectory, _ encryption: ModelConfiguration.Encryption?, named name: String = "Library.store"
    ) throws -> ModelContainer {
        try ModelContainer(
            for: Schema([LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self]),
            configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child(name)), encryption: encryption))
    }

    static let markers = ["MARKER-TITLE-7Q", "MARKER-COVER-4Z", "MARKER-KEYWORD-9X", "MARKER-RENAMED-2K", "MARKER-CHAPTER-5V"]

    /// Saves every marker through the API: titles, an external cover, keywords, a chapter, a
    /// change (history) and a delete (a tombstone), then a backup.
    func writeMarkers(_ container: ModelContainer, backup: URL) throws {
        let context = ModelContext(container)
        for number in 1...3 {
            let book = LibraryBook(isbn: "isbn-\(number)", title: "\(Self.markers[0]) \(number)")
            book.cover = Data((Self.markers[1] + String(repeating: " padding", count: 40)).utf8)
            book.keywords = [Self.markers[2]]
            let chapter = LibraryChapter(title: Self.markers[4], number: number)
            book.chapters.append(chapter)
            context.insert(book)
        }
        try context.save()
        let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
        books[0].title = Self.markers[3]
        try context.save()
        context.delete(books[1])
        try context.save()
        try container.backup(to: backup)
    }

    /// Every byte of every file under `path`.
    func filesBytes(under path: String) throws -> [(String, Data)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: path))
        var files: [(String, Data)] = []
        for case let name as String in enumerator {
            let file = path + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((name, try Data(contentsOf: URL(fileURLWithPath: file))))
            }
        }
        return files
    }

    func markersFound(under path: String) throws -> Set<String> {
        var found = Set<String>()
        for (_, bytes) in try filesBytes(under: path) {
            for marker in Self.markers where bytes.range(of: Data(marker.utf8)) != nil { found.insert(marker) }
        }
        return found
    }

    @Test(arguments: [ModelConfiguration.Encryption.key(EncryptedStoreTests.key), .passphrase("correct horse battery")])
    func noMarkerIsInTheStoreOrItsBackup(_ encryption: ModelConfiguration.Encryption) throws {
        let directory = TemporaryDirectory()
        let backup = URL(fileURLWithPath: directory.child("Backup.store"))
        try writeMarkers(try container(directory, encryption), backup: backup)
        #expect(try markersFound(under: directory.path) == [])

        // The same saves in a plaintext store leave every marker readable: the scan can see them.
        let plain = TemporaryDirectory()
        try writeMarkers(try container(plain, nil), backup: URL(fileURLWithPath: plain.child("Backup.store")))
        #expect(try markersFound(under: plain.path) == Set(Self.markers))
    }

    @Test(arguments: [ModelConfiguration.Encryption.key(EncryptedStoreTests.key), .passphrase("correct horse battery")])
    func aReopenedStoreAndItsBackupReadTheirValues(_ encryption: ModelConfiguration.Encryption) throws {
        let directory = TemporaryDirectory()
        let backup = URL(fileURLWithPath: directory.child("Backup.store"))
        try writeMarkers(try container(directory, encryption), backup: backup)
        for name in ["Library.store", "Backup.store"] {
            let context = ModelContext(try container(directory, encryption, named: name))
            let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
            #expect(books.map(\.title) == [Self.markers[3], "\(Self.markers[0]) 3"])
            #expect(books.allSatisfy { $0.cover.map { String(decoding: $0, as: UTF8.self).hasPrefix(Self.markers[1]) } == true })
            #expect(books.allSatisfy { $0.keywords == [Self.markers[2]] && $0.chapters.map(\.title) == [Self.markers[4]] })
            let found = try context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "isbn-3" }))
            #expect(found.count == 1)
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.count == 3)
        }
    }

    /// The data file and lock file, byte for byte.
    func storeBytes(_ directory: TemporaryDirectory) throws -> [Data] {
        try ["data.mdb"].map { try Data(contentsOf: URL(fileURLWithPath: directory.child("Library.store/\($0)"))) }
    }

    @Test func aMissingOrWrongSecretIsATypedErrorAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        try writeMarkers(try container(directory, .key(Self.key)), backup: URL(fileURLWithPath: directory.child("B.store")))
        let before = try storeBytes(directory)
        let attempts: [(ModelConfiguration.Encryption?, StorageError.Code)] = [
            (nil, .encryptionKeyRequired),
            (.key(Data(repeating: 1, count: 32)), .wrongEncryptionKey),
            (.passphrase("correct horse battery"), .wrongEncryptionKey),
            (.key(Data(repeating: 1, count: 16)), .invalidSize),
        ]
        for (encryption, code) in attempts {
            #expect { try container(directory, encryption) } throws: { ($0 as? StorageError)?.code == code }
        }
        #expect(try storeBytes(directory) == before)
        // The right key still opens it.
        #expect(try ModelContext(container(directory, .key(Self.key))).fetchCount(FetchDescriptor<LibraryBook>()) == 2)
    }

    @Test func aSecretWhileTheStoreIsOpenMustMatchToo() throws {
        let directory = TemporaryDirectory()
        let open = try container(directory, .key(Self.key))
        #expect { try container(directory, .key(Data(repeating: 2, count: 32))) } throws: {
            ($0 as? StorageError)?.code == .wrongEncryptionKey
        }
        #expect { try container(directory, nil) } throws: { ($0 as? StorageError)?.code == .encryptionKeyRequired }
        _ = try container(directory, .key(Self.key))
        withExtendedLifetime(open) {}
    }

    @Test func aSecretForAPlaintextStoreIsRefused() throws {
        let directory = TemporaryDirectory()
        try writeMarkers(try container(directory, nil), backup: URL(fileURLWithPath: directory.child("B.store")))
        let before = try storeBytes(directory)
        #expect { try container(directory, .key(Self.key)) } throws: { ($0 as? StorageError)?.code == .notEncrypted }
        #expect(try storeBytes(directory) == before)
    }

    /// Changes the stored (sealed) bytes of `table` through its unsealed view.
    func editStored(_ container: ModelContainer, _ table: Table, _ edit: (borrowing WriteTransaction) throws -> Void) throws {
        try container.store.environment.write { txn in try edit(txn) }
    }

    func isDamagedRecord(_ error: any Error) -> Bool { (error as? StorageError)?.code == .damagedRecord }

    @Test func aChangedBitInARecordIsDamage() throws {
        let directory = TemporaryDirectory()
        let container = try container(directory, .key(Self.key))
        try writeMarkers(container, backup: URL(fileURLWithPath: directory.child("B.store")))
        let records = try #require(container.store.entities["LibraryBook"]).layout.records.asStored
        for bit in [0, 8 * 13 + 3, 8 * 40, -1] {
            try editStored(container, records) { txn in
                var stored = try #require(try txn.get(EntryLayout.rowKey(3), in: records))
                let index = bit < 0 ? stored.count * 8 - 1 : bit
                stored[index / 8] ^= 1 << (index % 8)
                try txn.put(stored, for: EntryLayout.rowKey(3), in: records)
            }
            #expect { try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()) } throws: { isDamagedRecord($0) }
            try editStored(container, records) { txn in
                var stored = try #require(try txn.get(EntryLayout.rowKey(3), in: records))
                let index = bit < 0 ? stored.count * 8 - 1 : bit
                stored[index / 8] ^= 1 << (index % 8)
                try txn.put(stored, for: EntryLayout.rowKey(3), in: records)
            }
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<LibraryBook>()) == 2)
            _ = try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()).map(\.title)
        }
    }

    @Test func swappedRecordsAreDamageNotEachOther() throws {
        let directory = TemporaryDirectory()
        let container = try container(directory, .key(Self.key))
        try writeMarkers(container, backup: URL(fileURLWithPath: directory.child("B.store")))
        let records = try #require(container.store.entities["LibraryBook"]).layout.records.asStored
        try editStored(container, records) { txn in
            let first = try #require(try txn.get(EntryLayout.rowKey(1), in: records))
            let third = try #require(try txn.get(EntryLayout.rowKey(3), in: records))
            try txn.put(third, for: EntryLayout.rowKey(1), in: records)
            try txn.put(first, for: EntryLayout.rowKey(3), in: records)
        }
        #expect { try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()) } throws: { isDamagedRecord($0) }
        #expect {
            try ModelContext(container).fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == "isbn-3" }))
        } throws: { isDamagedRecord($0) }
    }
}

import CairnStorage
import Foundation
import Testing

@testable import Cairn

/// Changing how a store is encrypted: its secret (rewrapping), its data key (a rewrite), and
/// encrypting or decrypting an existing store; what each leaves readable, and with what.
@Suite struct KeyChangeTests {
    static let key = Data((0..<32).map { UInt8($0 ^ 0xA5) })
    static let otherKey = Data((0..<32).map { UInt8($0 &* 3) })

    func configuration(_ url: URL, _ encryption: ModelConfiguration.Encryption?) -> ModelConfiguration {
        ModelConfiguration(url: url, encryption: encryption)
    }

    func container(_ url: URL, _ encryption: ModelConfiguration.Encryption?) throws -> ModelContainer {
        try ModelContainer(for: LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self,
            LibraryCategory.self, configurations: configuration(url, encryption))
    }

    /// 120 books with titles, covers and chapters.
    func fill(_ url: URL, _ encryption: ModelConfiguration.Encryption?) throws {
        let context = ModelContext(try container(url, encryption))
        for number in 1...120 {
            let book = LibraryBook(isbn: "isbn-\(number)", title: "SECRET-TITLE-\(number)")
            book.cover = Data("SECRET-COVER-\(number)".utf8)
            book.chapters.append(LibraryChapter(title: "chapter of \(number)", number: 1))
            context.insert(book)
        }
        try context.save()
    }

    func titles(_ url: URL, _ encryption: ModelConfiguration.Encryption?) throws -> [String] {
        let context = ModelContext(try container(url, encryption))
        let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
        #expect(books.allSatisfy { $0.chapters.count == 1 && $0.cover != nil })
        return books.map(\.title)
    }

    func code(_ error: any Error) -> StorageError.Code? { (error as? StorageError)?.code }

    func dataFileHolds(_ url: URL, _ text: String) throws -> Bool {
        try Data(contentsOf: url.appendingPathComponent("data.mdb")).range(of: Data(text.utf8)) != nil
    }

    @Test func changingTheKeyRewrapsAndOnlyTheNewSecretOpens() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Library.store"))
        try fill(url, .key(Self.key))
        let expected = try titles(url, .key(Self.key))
        do {
            let open = try container(url, .key(Self.key))
            try open.changeEncryptionKey(to: .passphrase("a new passphrase"))
            // The open container keeps working, and its backups open with the new secret.
            #expect(try ModelContext(open).fetchCount(FetchDescriptor<LibraryBook>()) == 120)
            try open.backup(to: URL(fileURLWithPath: directory.child("Backup.store")))
        }
        #expect { try container(url, .key(Self.key)) } throws: { code($0) == .wrongEncryptionKey }
        #expect(try titles(url, .passphrase("a new passphrase")) == expected)
        #expect(try titles(URL(fileURLWithPath: directory.child("Backup.store")), .passphrase("a new passphrase")) == expected)
        try container(url, .passphrase("a new passphrase")).changeEncryptionKey(to: .key(Self.otherKey))
        #expect(try titles(url, .key(Self.otherKey)) == expected)
    }

    @Test func aPlaintextStoreHasNoKeyToChange() throws {
        let url = URL(fileURLWithPath: TemporaryDirectory().child("Library.store"))
        let container = try container(url, nil)
        #expect { try container.changeEncryptionKey(to: .key(Self.key)) } throws: { code($0) == .notEncrypted }
    }

    @Test func encryptingThenDecryptingAStoreKeepsEveryValue() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Library.store"))
        try fill(url, nil)
        let expected = try titles(url, nil)
        #expect(try dataFileHolds(url, "SECRET-TITLE-7"))

        try ModelContainer.encryptStore(at: url, with: .key(Self.key))
        #expect(try !dataFileHolds(url, "SECRET-TITLE-7") && !dataFileHolds(url, "SECRET-COVER-7"))
        #expect { try container(url, nil) } throws: { code($0) == .encryptionKeyRequired }
        #expect(try titles(url, .key(Self.key)) == expected)
        #expect(try container(url, .key(Self.key)).verify().isClean)
        // Saving to it afterwards works as to any encrypted store.
        do {
            let context = ModelContext(try container(url, .key(Self.key)))
            let late = LibraryBook(isbn: "isbn-999", title: "SECRET-TITLE-LATE")
            late.cover = Data("SECRET-COVER-LATE".utf8)
            late.chapters.append(LibraryChapter(title: "late chapter", number: 1))
            context.insert(late)
            try context.save()
        }

        try ModelContainer.decryptStore(at: url, with: .key(Self.key))
        #expect(try dataFileHolds(url, "SECRET-TITLE-7") && dataFileHolds(url, "SECRET-TITLE-LATE"))
        // isbn-999 sorts after every other isbn.
        #expect(try titles(url, nil) == expected + ["SECRET-TITLE-LATE"])
        #expect(try container(url, nil).verify().isClean)
    }

    @Test func rotatingTheDataKeyRewritesEveryValue() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Library.store"))
        try fill(url, .key(Self.key))
        let expected = try titles(url, .key(Self.key))
        let before = try Data(contentsOf: url.appendingPathComponent("data.mdb"))
        let generation = { () throws -> UInt32? in try self.container(url, .key(Self.key)).store.environment.dataKeyGeneration() }
        #expect(try generation() == 1)

        try ModelContainer.rotateDataKey(ofStoreAt: url, with: .key(Self.key))
        #expect(try generation() == 2)
        #expect(try titles(url, .key(Self.key)) == expected)
        // No sealed value of the old file is in the new one: each was sealed again, under a new key.
        let after = try Data(contentsOf: url.appendingPathComponent("data.mdb"))
        #expect(after != before)

        try ModelContainer.rotateDataKey(ofStoreAt: url, with: .key(Self.key), newEncryption: .passphrase("rotated"))
        #expect(try titles(url, .passphrase("rotated")) == expected)
        #expect { try container(url, .key(Self.key)) } throws: { code($0) == .wrongEncryptionKey }
    }

    @Test func rewritingRefusesAStoreThatIsOpenOrTheWrongSecret() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Library.store"))
        try fill(url, .key(Self.key))
        let before = try Data(contentsOf: url.appendingPathComponent("data.mdb"))
        do {
            let open = try container(url, .key(Self.key))
            #expect { try ModelContainer.rotateDataKey(ofStoreAt: url, with: .key(Self.key)) } throws: { code($0) == .inUse }
            withExtendedLifetime(open) {}
        }
        #expect { try ModelContainer.rotateDataKey(ofStoreAt: url, with: .key(Self.otherKey)) } throws: {
            code($0) == .wrongEncryptionKey
        }
        #expect { try ModelContainer.encryptStore(at: url, with: .key(Self.key)) } throws: { code($0) == .encryptionKeyRequired }
        #expect { try ModelContainer.decryptStore(at: url, with: .passphrase("nope")) } throws: { code($0) == .wrongEncryptionKey }
        #expect(try Data(contentsOf: url.appendingPathComponent("data.mdb")) == before)
    }
}

import CairnStorage
import Foundation
import Testing

@testable import Cairn

/// Sealed tables in the storage layer, whatever their values are: every way a value reaches LMDB
/// or comes back (put, cursor moves, lookups, kept cursors, a replaced value) passes through the
/// cipher, and a sealed value answers only for the table and key it was sealed for.
@Suite struct SealedTableTests {
    static let secret = StoreEncryption.key(Array(repeating: 0x5A, count: 32))

    func encryptedStore(_ label: String = #function) throws -> TemporaryStore {
        try TemporaryStore(label) { configuration in
            configuration.encryption = Self.secret
            configuration.sealedTables = SealedTables(prefixes: ["s"], names: ["plain-but-named"])
        }
    }

    @Test func valuesAreStoredSealedAndReadPlain() throws {
        let store = try encryptedStore()
        let sealed = try store.table("sealed"), plain = try store.table("open")
        #expect(sealed.isSealed && !plain.isSealed)
        try store.environment.write { txn throws in
            for n in 1...50 {
                try txn.put(Array("value \(n)".utf8), for: key(n), in: sealed)
                try txn.put(Array("value \(n)".utf8), for: key(n), in: plain)
            }
            #expect(try txn.rewrite(Array("value 7".utf8), for: key(7), in: sealed) == .unchanged)
            #expect(try txn.rewrite(Array("seven".utf8), for: key(7), in: sealed) == .written)
        }
        try store.environment.read { txn throws in
            #expect(try txn.get(key(7), in: sealed) == Array("seven".utf8))
            #expect(try txn.get(key(8), in: sealed) == Array("value 8".utf8))
            // Stored: format byte, nonce, ciphertext, tag.
            let stored = try #require(try txn.get(key(8), in: sealed.asStored))
            #expect(stored.count == "value 8".utf8.count + ValueCipher.overhead && stored[0] == 0x01)
            #expect(try txn.get(key(8), in: plain.asStored) == Array("value 8".utf8))
            var scanned: [String] = []
            try txn.scan(sealed) { _, value in
                scanned.append(String(decoding: value, as: UTF8.self))
                return true
            }
            #expect(scanned.count == 50 && scanned[6] == "seven" && scanned[49] == "value 50")
            // A kept cursor and nested lookups on the same table each get their own plaintext.
            try txn.withValue(for: key(1), in: sealed) { outer in
                let inner = try txn.withValue(for: key(2), in: sealed) { Array($0) }
                #expect(Array(outer) == Array("value 1".utf8) && inner == Array("value 2".utf8))
            }
        }
    }

    func isDamagedRecord(_ error: any Error) -> Bool { (error as? StorageError)?.code == .damagedRecord }

    @Test func aSealedValueAnswersOnlyForItsKeyAndTable() throws {
        let store = try encryptedStore()
        let first = try store.table("s1"), second = try store.table("s2")
        try store.environment.write { txn throws in
            try txn.put(Array("one".utf8), for: key(1), in: first)
            try txn.put(Array("two".utf8), for: key(2), in: first)
        }
        // Moved to another key of the same table, and to the same key of another table.
        try store.environment.write { txn throws in
            let one = try #require(try txn.get(key(1), in: first.asStored))
            try txn.put(one, for: key(3), in: first.asStored)
            try txn.put(one, for: key(1), in: second.asStored)
        }
        try store.environment.read { txn throws in
            #expect(try txn.get(key(1), in: first) == Array("one".utf8))
            #expect { try txn.get(key(3), in: first) } throws: { isDamagedRecord($0) }
            #expect { try txn.get(key(1), in: second) } throws: { isDamagedRecord($0) }
            #expect { try txn.scan(first) { _, _ in true } } throws: { isDamagedRecord($0) }
        }
    }

    @Test func aPlaintextStoreSealsNothing() throws {
        let store = try TemporaryStore { $0.sealedTables = SealedTables(prefixes: ["s"]) }
        let table = try store.table("sealed")
        #expect(!table.isSealed)
        try store.environment.write { txn throws in try txn.put([1, 2, 3], for: key(1), in: table) }
        try store.environment.read { txn throws in #expect(try txn.get(key(1), in: table.asStored) == [1, 2, 3]) }
    }

    @Test func aDuplicateTableIsNeverSealed() throws {
        let store = try encryptedStore()
        #expect(!(try store.table("s-dups", flags: [.duplicateSort])).isSealed)
    }

    /// Every entry of a plain, a sealed and a duplicate table, read back after encrypting,
    /// rotating and decrypting the store with a copy of seven entries per transaction (so that
    /// chunks end inside runs of duplicates).
    @Test func rewritingCopiesEveryEntryInChunks() throws {
        let directory = TemporaryDirectory()
        var configuration = StorageConfiguration(path: directory.child("store"))
        configuration.sealedTables = SealedTables(prefixes: ["s"])
        func contents(_ secret: StoreEncryption?) throws -> [String: [[UInt8]]] {
            var opened = configuration
            opened.encryption = secret
            let environment = try LMDBEnvironment.open(opened)
            var result: [String: [[UInt8]]] = [:]
            for (name, flags) in [("open", TableFlags()), ("sealed", []), ("dups", [.duplicateSort])] as [(String, TableFlags)] {
                let table = try #require(try environment.openTable(name, flags: flags))
                #expect(table.isSealed == (secret != nil && name == "sealed"))
                try environment.read { txn throws in
                    try txn.scan(table) { key, value in
                        result[name, default: []].append(Array(key) + [0xFF] + Array(value))
                        return true
                    }
                }
            }
            return result
        }
        do {
            let environment = try LMDBEnvironment.create(configuration)
            let open = try environment.openTable("open", create: true)!, sealed = try environment.openTable("sealed", create: true)!
            let dups = try environment.openTable("dups", flags: [.duplicateSort], create: true)!
            try environment.write { txn throws in
                for n in 1...40 {
                    try txn.put(Array("open \(n)".utf8), for: key(n), in: open)
                    try txn.put(Array("sealed \(n)".utf8), for: key(n), in: sealed)
                    for d in 0..<(n % 5) { try txn.put([UInt8(d), UInt8(n)], for: key(n / 3), in: dups) }
                }
            }
        }
        let original = try contents(nil)
        #expect(original["dups"]!.count > 40)
        let secret = StoreEncryption.key(Array(repeating: 3, count: 32))
        try StoreRekeying.rewrite(configuration, to: secret, entriesPerTransaction: 7)
        #expect(try contents(secret) == original)
        var encrypted = configuration
        encrypted.encryption = secret
        try StoreRekeying.rewrite(encrypted, to: .passphrase("p"), entriesPerTransaction: 7)
        #expect(try contents(.passphrase("p")) == original)
        encrypted.encryption = .passphrase("p")
        try StoreRekeying.rewrite(encrypted, to: nil, entriesPerTransaction: 7)
        #expect(try contents(nil) == original)
    }
}

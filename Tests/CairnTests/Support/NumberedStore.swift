import Foundation
import Testing

@testable import Cairn

/// Checks a store written by the helper's numbered transactions (see `CairnTestHelper`):
/// transaction `n` wrote `keysPerTransaction` entries `(n, i)` whose values start with `n`, and
/// set `last` to `n`, in one commit.
enum NumberedStore {
    struct Damage: Error, CustomStringConvertible {
        let description: String
    }

    /// Returns the last committed transaction number, after checking that every transaction up to
    /// it is whole and nothing after it exists.
    static func verify(_ path: String, keysPerTransaction: Int, encryption: StoreEncryption? = nil) throws -> UInt64 {
        // A writer killed while creating the store leaves no store at all (creation is one
        // rename), never a partial one.
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        var configuration = StorageConfiguration(path: path)
        // As the helper's `rekey-loop` seals it (`NumberedTransactions.configuration`).
        configuration.sealedTables = SealedTables(names: ["t"])
        configuration.encryption = encryption
        let environment = try LMDBEnvironment.open(configuration)
        guard let table = try environment.openTable("t") else { return 0 }
        return try environment.read { txn in
            let last = try txn.get(Array("last".utf8), in: table).map { UInt64(number($0)) } ?? 0
            var counts: [UInt64: Int] = [:]
            try txn.scan(table, KeyRange(to: .exclusive(Array("last".utf8)))) { key, value in
                guard key.count == 12 else { return true }
                let n = UInt64(number(key))
                counts[n, default: 0] += 1
                guard UInt64(number(value)) == n else {
                    throw Damage(description: "entry of transaction \(n) holds the value of \(number(value))")
                }
                return true
            }
            for n in counts.keys where n > last {
                throw Damage(description: "transaction \(n) has entries but the last committed one is \(last)")
            }
            for n in 1...max(last, 1) where last > 0 && counts[n] != keysPerTransaction {
                throw Damage(description: "transaction \(n) has \(counts[n] ?? 0) of its \(keysPerTransaction) entries")
            }
            return last
        }
    }

    /// The secret the helper's `rekey-loop` encrypts the store with.
    static let secret = StoreEncryption.key(Array(repeating: 0x42, count: 32))

    /// The transaction numbers a helper acknowledged in its output.
    static func acknowledged(_ output: String) -> [UInt64] {
        output.split(separator: "\n").compactMap { line in
            line.hasPrefix("ack ") ? UInt64(line.dropFirst(4)) : nil
        }
    }
}

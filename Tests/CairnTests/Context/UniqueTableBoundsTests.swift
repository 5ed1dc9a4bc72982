import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

/// A key above a unique table's last key needs no lookup; any other key still gets one.
@Suite struct UniqueTableBoundsTests {
    @Test func onlyKeysAboveTheLastOneAreKnownAbsent() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        let empty = try store.table("empty")
        try store.environment.write { txn in
            for (row, key) in [(1, key(10)), (2, key(20)), (3, key(30))] {
                try txn.put(EntryLayout.keyedValue(row: UInt64(row), key: key), for: key, in: table)
            }
        }
        let asked = [(key(31), table), (key(30), table), (key(15), table), (key(1), table), (key(1), empty)]
        let answers = try store.environment.read { txn in
            var bounds = UniqueTableBounds()
            var answers: [Bool] = []
            for (key, table) in asked {
                answers.append(try key.withUnsafeBytes { try bounds.mayHold($0, in: table, txn: txn) })
            }
            return answers
        }
        // Above the last key: absent. The last key itself, a key between stored ones and one
        // below them: looked up. An empty table holds nothing.
        #expect(answers == [false, true, true, true, false])
    }

    @Test func aDamagedLastEntryIsReportedNotTrustedAsABound() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn in
            try txn.put(EntryLayout.keyedValue(row: 1, key: key(10)), for: key(10), in: table)
            try txn.put([0xFF, 0xFF], for: key(20), in: table)  // not a keyed value
        }
        #expect(throws: StorageError.self) {
            try store.environment.read { txn in
                var bounds = UniqueTableBounds()
                return try key(30).withUnsafeBytes { try bounds.mayHold($0, in: table, txn: txn) }
            }
        }
    }
}

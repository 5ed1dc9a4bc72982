import Testing

@testable import Cairn

/// A transaction keeps the first cursor it opens on a table for its later uses, and a pooled
/// read transaction keeps it across renewals: each use must see its own transaction's snapshot,
/// and a cursor used inside another's closure on the same table must not move the outer one.
@Suite struct KeptCursorTests {
    @Test func aNestedUseOnTheSameTableGetsACursorOfItsOwn() throws {
        let store = try TemporaryStore()
        let table = try store.table("k")
        try store.environment.write { txn throws in
            for key in 0..<10 as Range<UInt8> { try txn.put([key &* 2], for: [key], in: table) }
        }
        var pairs: [(UInt8, UInt8)] = []
        try store.environment.read { txn in
            try txn.scan(table) { key, value in
                // A lookup on the same table while the scan's cursor is in use.
                let again = try txn.get(Array(key), in: table)
                let looked = try txn.withCursor(on: table) { cursor in
                    try cursor.seek(exactly: Array(key)) ? cursor.current.value.first : nil
                }
                #expect(again == Array(value) && looked == value.first)
                pairs.append((key[0], value[0]))
                return true
            }
        }
        #expect(pairs.map(\.0) == Array(0..<10) && pairs.map(\.1) == (0..<10).map { $0 &* 2 })
    }

    @Test func aRenewedReadSeesTheNewSnapshotThroughItsKeptCursor() throws {
        let store = try TemporaryStore()
        let table = try store.table("k")
        for round in 0..<20 as Range<UInt8> {
            try store.environment.write { txn throws in try txn.put([round], for: [round], in: table) }
            // Reads reuse pooled transactions and the cursors they keep.
            let seen = try store.environment.read { txn in
                var keys: [UInt8] = []
                try txn.scan(table) { key, _ in
                    keys.append(key[0])
                    return true
                }
                return keys
            }
            #expect(seen == Array(0...round))
        }
    }

    @Test func aWriteUsesItsCursorsAfterItsOwnPuts() throws {
        let store = try TemporaryStore()
        let table = try store.table("k")
        try store.environment.write { txn throws in
            for key in 0..<50 as Range<UInt8> {
                #expect(try txn.withCursor(on: table) { try $0.seek(exactly: [key]) } == false)
                try txn.put([key], for: [key], in: table)
                #expect(try txn.withCursor(on: table) { try $0.seek(exactly: [key]) } == true)
            }
        }
        #expect(try store.environment.read { txn in try txn.count(of: table) } == 50)
    }
}

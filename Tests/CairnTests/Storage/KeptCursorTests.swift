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

    /// A rewrite finds the entry through the kept cursor, leaves equal bytes alone and replaces
    /// others in place, of any size, with the neighbours and later lookups in the same
    /// transaction (through the same cursor) seeing the new values.
    @Test func aRewriteComparesAndReplacesInOneSearch() throws {
        let store = try TemporaryStore()
        let table = try store.table("k")
        try store.environment.write { txn throws in
            for key in 0..<100 as Range<UInt8> { try txn.put([key, key], for: [key], in: table) }
        }
        try store.environment.write { txn throws in
            #expect(try txn.rewrite([5, 5], for: [5], in: table) == .unchanged)
            #expect(try txn.rewrite([6], for: [6], in: table) == .written, "shorter")
            #expect(try txn.rewrite(Array(repeating: 7, count: 300), for: [7], in: table) == .written, "longer")
            #expect(try txn.rewrite([1], for: [200], in: table) == .missing)
            #expect(try txn.get([6], in: table) == [6])
            #expect(try txn.get([7], in: table)?.count == 300)
            #expect(try txn.get([8], in: table) == [8, 8])
            #expect(try txn.get([200], in: table) == nil)
        }
        let stored = try store.environment.read { txn in
            var values: [[UInt8]] = []
            try txn.scan(table) { _, value in
                values.append(Array(value))
                return true
            }
            return values
        }
        #expect(stored.count == 100 && stored[5] == [5, 5] && stored[6] == [6] && stored[7].count == 300)
        #expect(stored[99] == [99, 99])
    }
}

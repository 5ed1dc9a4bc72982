import Testing

@testable import Cairn
@testable import CairnStorage

/// Seeks land where a search from the root lands, whatever the order of the keys sought: in
/// ascending runs (a seek then steps forward from the cursor's entry), far apart, descending,
/// repeated and absent; in a read transaction across uses of a table's kept cursor, and in a write
/// transaction before and after it writes (which stops the stepping).
@Suite struct SeekTests {
    private static func key(_ number: Int) -> [UInt8] { [UInt8(number >> 8), UInt8(number & 0xFF)] }

    /// The first stored key at least `wanted`, and whether it equals it.
    private static func reference(_ stored: [[UInt8]], _ wanted: [UInt8]) -> (key: [UInt8]?, exact: Bool) {
        let found = stored.first { !$0.lexicographicallyPrecedes(wanted) }
        return (found, found == wanted)
    }

    /// Keys sought: runs that ascend by one or a few, jumps, steps back, repeats.
    private static func soughtKeys(_ random: inout SeededGenerator) -> [Int] {
        var keys: [Int] = []
        var current = Int.random(in: 0..<600, using: &random)
        for _ in 0..<3_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6: current += Int.random(in: 0...3, using: &random)
            case 6: current += Int.random(in: 4...200, using: &random)
            case 7: current -= Int.random(in: 0...50, using: &random)
            default: break
            }
            current = min(max(current, 0), 650)
            keys.append(current)
        }
        return keys
    }

    @Test(arguments: [TableFlags(), .duplicateSort])
    func seeksInAnyOrderLandWhereASearchDoes(flags: TableFlags) throws {
        var random = SeededGenerator()
        let store = try TemporaryStore()
        let table = try store.table("s", flags: flags)
        // Every other number up to 600, some with two values in the duplicate table.
        let numbers = stride(from: 0, to: 600, by: 2).filter { _ in Int.random(in: 0..<4, using: &random) > 0 }
        try store.environment.write { txn throws in
            for number in numbers {
                try txn.put([1], for: Self.key(number), in: table)
                if !flags.isEmpty && number % 3 == 0 { try txn.put([2], for: Self.key(number), in: table) }
            }
        }
        let stored = numbers.map(Self.key)
        let sought = Self.soughtKeys(&random)
        try store.environment.read { txn throws in
            // One cursor for every seek, then the kept cursor taken anew for each.
            try txn.withCursor(on: table) { cursor in
                for number in sought {
                    let wanted = Self.key(number)
                    let expected = Self.reference(stored, wanted)
                    let found = try cursor.seek(atLeast: wanted)
                    #expect(found == (expected.key != nil), "seed \(random.seed): \(number)")
                    if found {
                        #expect(Array(cursor.current.key) == expected.key, "seed \(random.seed): \(number)")
                        #expect(Array(cursor.current.value) == [1], "the first value of the key")
                    }
                }
            }
            for number in sought {
                let wanted = Self.key(number)
                let exact = try txn.withCursor(on: table) { try $0.seek(exactly: wanted) }
                #expect(exact == Self.reference(stored, wanted).exact, "seed \(random.seed): \(number)")
                let value = try txn.withValue(for: wanted, in: table) { Array($0) }
                #expect((value != nil) == Self.reference(stored, wanted).exact, "seed \(random.seed): \(number)")
            }
        }
        // In a write transaction: seeks before it writes, a write, seeks after.
        try store.environment.write { txn throws in
            for number in sought.prefix(500) {
                let wanted = Self.key(number)
                let found = try txn.withCursor(on: table) { try $0.seek(exactly: wanted) }
                #expect(found == Self.reference(stored, wanted).exact, "seed \(random.seed): \(number)")
            }
            try txn.put([9], for: Self.key(1), in: table)
            let after = (stored + [Self.key(1)]).sorted { $0.lexicographicallyPrecedes($1) }
            for number in sought.prefix(500) {
                let wanted = Self.key(number)
                let found = try txn.withCursor(on: table) { try $0.seek(exactly: wanted) }
                #expect(found == Self.reference(after, wanted).exact, "seed \(random.seed): \(number)")
            }
        }
    }
}

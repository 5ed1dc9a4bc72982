import Foundation
import Testing

@testable import Cairn

/// Keys stored end to end, and the hash table that finds equal ones among them.
@Suite struct KeyListTests {
    private func builder(_ text: String) -> KeyBuilder {
        var builder = KeyBuilder()
        builder.append(text)
        return builder
    }

    @Test func keysComeBackAsTheyWereBuiltAndLongOnesAreCutAsFinalized() {
        var keys = KeyList(reservingCapacity: 4)
        let texts = ["", "a", "Ada Lovelace", String(repeating: "x", count: 600)]
        for text in texts { keys.append(builder(text)) }
        keys.append([1, 2, 3])
        #expect(keys.count == 5)
        for (index, text) in texts.enumerated() {
            #expect(keys[index] == builder(text).finalized())
            #expect(keys.withKey(index) { Array($0) } == builder(text).finalized())
        }
        #expect(keys[3].count == KeyBuilder.maximumLength, "a key too long for LMDB is cut and hashed")
        #expect(keys[4] == [1, 2, 3])
        var copy = KeyList()
        copy.append(2, of: keys)
        #expect(copy.count == 1 && copy[0] == keys[2])
        #expect(keys.keysEqual(2, 2) && !keys.keysEqual(1, 2))
    }

    /// Against a dictionary of (table, bytes): random keys from a small alphabet, so that many
    /// repeat, in two tables.
    @Test(arguments: [1, 2, 3, 4, 5])
    func theLastEqualKeyMatchesADictionary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var keys = KeyList()
        var tables: [UInt32] = []
        var seen = LastEqualKey(capacity: 300)
        var reference: [[UInt8]: Int] = [:]
        for index in 0..<300 {
            let length = Int(random.next() % 3)
            let bytes = (0..<length).map { _ in UInt8(random.next() % 3) }
            let table = UInt32(random.next() % 2)
            keys.append(bytes)
            tables.append(table)
            let earlier = seen.note(index, table: table, in: keys)
            #expect(earlier == reference.updateValue(index, forKey: [UInt8(table)] + bytes), "key \(index)")
        }
    }

    /// Keys that ascend within each table are all different; a repeat or a step back in any table
    /// says they may not be.
    @Test func ascendingKeysAreRecognisedPerTable() {
        func keys(_ list: [[UInt8]]) -> KeyList {
            var keys = KeyList()
            for key in list { keys.append(key) }
            return keys
        }
        // Two tables interleaved (even positions table 1, odd table 2), each ascending; a key
        // before a longer key it starts.
        let interleaved = keys([[1], [8], [1, 0], [8, 1], [2], [9, 9]])
        #expect(interleaved.ascendStrictly(table: { UInt32($0 % 2 + 1) }))
        // The same bytes in one table: they do not ascend across the tables' boundary.
        #expect(!interleaved.ascendStrictly(table: { _ in 1 }))
        #expect(!keys([[1], [2], [2]]).ascendStrictly(table: { _ in 1 }), "a repeat")
        #expect(!keys([[1, 0], [1]]).ascendStrictly(table: { _ in 1 }), "a prefix after the longer key")
        #expect(keys([]).ascendStrictly(table: { _ in 1 }))
        #expect(keys([[], [0]]).ascendStrictly(table: { _ in 1 }), "the empty key first")
    }
}

import Foundation
import Testing

@testable import Cairn

/// Keys and values built on the stack are the bytes their array forms are.
@Suite struct EntryLayoutTests {
    @Test(arguments: [0, 1, 255, 256, 1 << 32, UInt64.max] as [UInt64])
    func aRowKeyOnTheStackIsTheArrayForm(_ row: UInt64) {
        EntryLayout.withRowKey(row) { key in #expect(Array(key) == EntryLayout.rowKey(row)) }
    }

    @Test(arguments: [0, 7, 1 << 40, UInt64.max] as [UInt64])
    func aKeyedValueOnTheStackIsTheArrayForm(_ row: UInt64) {
        for key in [[0x01], [0x41, 0x42, 0x00, 0x01], Array(repeating: 0xEE, count: 300)] as [[UInt8]] {
            let array = EntryLayout.keyedValue(row: row, key: key)
            EntryLayout.withKeyedValue(row: row, key: key) { value in #expect(Array(value) == array) }
        }
    }

    @Test(arguments: [(0, 0, 1), (7, 3, 1 << 33), (UInt64.max, UInt64.max, UInt64.max)] as [(UInt64, UInt64, UInt64)])
    func anEdgeValueOnTheStackIsTheArrayForm(_ edge: (UInt64, UInt64, UInt64)) {
        let array = EntryLayout.edgeValue(owner: edge.0, rank: edge.1, target: edge.2)
        EntryLayout.withEdgeValue(owner: edge.0, rank: edge.1, target: edge.2) { value in
            #expect(Array(value) == array)
        }
    }

    @Test func aRecordSealedForAKeyOnTheStackIsSealedAsForTheArray() {
        var writer = RecordWriter()
        writer.write("sealed", tag: 1)
        var onStack = writer.encoded()
        var inArray = onStack
        EntryLayout.withRowKey(42) { onStack.seal(forKey: $0) }
        inArray.seal(forKey: EntryLayout.rowKey(42))
        #expect(onStack.bytes == inArray.bytes)
    }
}

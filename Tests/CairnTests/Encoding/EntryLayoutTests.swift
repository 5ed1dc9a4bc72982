import Foundation
import Testing

@testable import Cairn

/// Row keys, unique and index values and edge values, built on the stack, hold the bytes the
/// on-disk layout gives (Design.md) and read back through the layout's own checks.
@Suite struct EntryLayoutTests {
    func table() throws -> (ModelContainer, Table) {
        let container = try makeContainer(inMemory: Gauge.self)
        return (container, container.store.entitiesByType[ObjectIdentifier(Gauge.self)]!.layout.records)
    }

    /// `value` as 8 bytes, most significant first.
    func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    /// `value` as 4 bytes, least significant first.
    func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    @Test(arguments: [0, 1, 255, 256, 1 << 32, UInt64.max] as [UInt64])
    func aRowKeyIsTheRowIdBigEndian(_ row: UInt64) throws {
        let (container, table) = try table()
        EntryLayout.withRowKey(row) { key in #expect(Array(key) == bigEndian(row)) }
        #expect(EntryLayout.rowKey(row) == bigEndian(row))
        let read = try EntryLayout.withRowKey(row) { key in try EntryLayout.row(key: key, table: table) }
        #expect(read == row)
        withExtendedLifetime(container) {}
    }

    @Test(arguments: [0, 7, 1 << 40, UInt64.max] as [UInt64])
    func aKeyedValueIsTheRowAndAChecksumOfKeyAndRow(_ row: UInt64) throws {
        let (container, table) = try table()
        for key in [[0x01], [0x41, 0x42, 0x00, 0x01], Array(repeating: 0xEE, count: 300)] as [[UInt8]] {
            let expected = bigEndian(row) + littleEndian(CRC32C.checksum(key + bigEndian(row)))
            let (bytes, read) = try EntryLayout.withKeyedValue(row: row, key: key) { value in
                (
                    Array(value),
                    try key.withUnsafeBytes { try EntryLayout.row(keyedValue: value, key: $0, table: table) }
                )
            }
            #expect(bytes == expected && read == row)
            #expect(EntryLayout.keyedValue(row: row, key: key) == expected)
        }
        withExtendedLifetime(container) {}
    }

    @Test(arguments: [(0, 0, 1), (7, 3, 1 << 33), (UInt64.max, UInt64.max, UInt64.max)] as [(UInt64, UInt64, UInt64)])
    func anEdgeValueIsRankTargetAndAChecksumOfOwnerRankAndTarget(_ edge: (UInt64, UInt64, UInt64)) throws {
        let (container, table) = try table()
        let (owner, rank, target) = edge
        let body = bigEndian(rank) + bigEndian(target)
        let expected = body + littleEndian(CRC32C.checksum(bigEndian(owner) + body))
        let (bytes, read) = try EntryLayout.withEdgeValue(owner: owner, rank: rank, target: target) { value in
            (
                Array(value),
                try EntryLayout.withRowKey(owner) { try EntryLayout.edge(value: value, ownerKey: $0, table: table) }
            )
        }
        #expect(bytes == expected && read.rank == rank && read.target == target)
        #expect(EntryLayout.edgeValue(owner: owner, rank: rank, target: target) == expected)
        withExtendedLifetime(container) {}
    }

    @Test func aRecordSealedForAKeyOnTheStackIsSealedAsForTheArray() {
        var writer = RecordWriter()
        writer.write("sealed", tag: 1)
        var onStack = writer.encoded()
        var inArray = onStack
        EntryLayout.withRowKey(42) { onStack.seal(forKey: $0) }
        inArray.seal(forKey: bigEndian(42))
        #expect(onStack.bytes == inArray.bytes)
    }
}

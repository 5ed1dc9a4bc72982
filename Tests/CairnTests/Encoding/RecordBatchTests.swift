import Foundation
import Testing

@testable import Cairn

/// Records read together share one buffer and one field list; each reader reads only its own
/// record, as a reader of its own copy would.
@Suite struct RecordBatchTests {
    func record(_ number: Int) -> EncodedRecord {
        var writer = RecordWriter()
        writer.write(Int64(number), tag: 1)
        writer.write(String(repeating: "x", count: number % 7) + "\(number)", tag: 2)
        if number % 2 == 0 { writer.write(Double(number) / 3, tag: 5) }
        return writer.encoded()
    }

    @Test func eachReaderReadsItsOwnRecordAsASeparateReaderWould() throws {
        var batch = RecordBatch()
        var expected: [RecordReader] = []
        for number in 0..<50 {
            var encoded = record(number)
            let key = EntryLayout.rowKey(UInt64(number + 1))
            let bytes = encoded.sealed(forKey: key)
            try bytes.withUnsafeBytes { buffer in
                try key.withUnsafeBytes { try batch.append(copying: buffer, key: $0, row: UInt64(number + 1)) }
            }
            expected.append(try RecordReader(bytes, key: key))
        }
        let readers = batch.readers()
        #expect(readers.count == 50 && batch.count == 50)
        // Each record comes back with the row it was appended for, in order.
        let rows = batch.rowsAndReaders()
        #expect(rows.map(\.0) == (1...50).map(UInt64.init))
        #expect(zip(rows, expected).allSatisfy { $0.0.1.bytes == $0.1.bytes })
        for (reader, alone) in zip(readers, expected) {
            #expect(reader.tags == alone.tags)
            #expect(reader.bytes == alone.bytes)
            #expect(reader.checksum == alone.checksum)
            #expect(try reader.read(Int64.self, tag: 1) == (try alone.read(Int64.self, tag: 1)))
            #expect(try reader.read(String.self, tag: 2) == (try alone.read(String.self, tag: 2)))
            #expect(try reader.read(Double?.self, tag: 5) == (try alone.read(Double?.self, tag: 5)))
            #expect(!reader.contains(tag: 3))
        }
    }

    @Test func aDamagedRecordLeavesTheBatchAsItWas() throws {
        var batch = RecordBatch()
        let key = EntryLayout.rowKey(1)
        var first = record(1)
        let good = first.sealed(forKey: key)
        try good.withUnsafeBytes { try batch.append(copying: $0, key: key) }
        var damaged = good
        damaged[3] ^= 0xFF
        #expect(throws: StorageError.self) {
            try damaged.withUnsafeBytes { try batch.append(copying: $0, key: key) }
        }
        // Read under another key, the record is damage too.
        #expect(throws: StorageError.self) {
            try good.withUnsafeBytes { try batch.append(copying: $0, key: EntryLayout.rowKey(2)) }
        }
        try good.withUnsafeBytes { try batch.append(copying: $0, key: key) }
        let readers = batch.readers()
        #expect(readers.count == 2)
        #expect(readers.allSatisfy { $0.bytes == good })
        #expect(try readers.map { try $0.read(Int64.self, tag: 1) } == [1, 1])
    }
}

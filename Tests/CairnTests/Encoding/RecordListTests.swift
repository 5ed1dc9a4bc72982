import Foundation
import Testing

@testable import Cairn

/// Records end to end: each the same bytes and checksums as an `EncodedRecord` of its own, sealed
/// in place, and a discarded record leaves the list as it was.
@Suite struct RecordListTests {
    private func write(_ values: [Int64], with writer: inout RecordWriter) {
        for (offset, value) in values.enumerated() { writer.write(value, tag: UInt32(offset + 1)) }
    }

    private func alone(_ values: [Int64]) -> EncodedRecord {
        var writer = RecordWriter()
        write(values, with: &writer)
        return writer.encoded()
    }

    @Test func recordsMatchTheirOwnEncodingAndSealInPlace() throws {
        let contents: [[Int64]] = [[1], [], [2, 3, 4], [Int64.max, -1]]
        var list = RecordList(reservingCapacity: 2, bytesPerRecord: 8)
        for values in contents {
            var writer = list.writer()
            write(values, with: &writer)
            list.finish(&writer)
        }
        // A record begun and given up leaves nothing behind.
        var abandoned = list.writer()
        write([9, 9, 9], with: &abandoned)
        list.discard(&abandoned)
        var last = list.writer()
        write([5], with: &last)
        list.finish(&last)
        #expect(list.count == 5)
        for (index, values) in (contents + [[5]]).enumerated() {
            let own = alone(values)
            #expect(list.withRecord(index) { Array($0) } == own.bytes)
            #expect(
                list.contentChecksum(index) == own.contentChecksum && list.withRecord(index) { $0.count } == own.count)
        }
        // Sealed for a row key: the bytes an EncodedRecord sealed for that key has, and readable
        // under that key only.
        let key = EntryLayout.rowKey(42)
        key.withUnsafeBytes { list.seal(2, forKey: $0) }
        var own = alone([2, 3, 4])
        own.seal(forKey: key)
        #expect(list.withRecord(2) { Array($0) } == own.bytes)
        let reader = try list.withRecord(2) { try RecordReader(copying: $0, key: key) }
        #expect(reader.checksum == own.contentChecksum, "the reader takes the key back out of the checksum")
        #expect(list.withRecord(1) { Array($0) } == alone([]).bytes, "a neighbour is untouched")
        var copy = RecordList()
        copy.append(2, of: list)
        #expect(copy.withRecord(0) { Array($0) } == own.bytes && copy.contentChecksum(0) == own.contentChecksum)
    }

    /// Writing a record moves the list's bytes into the writer and back: with room reserved, no
    /// record is copied (a copy at each record made a large save quadratic).
    @Test func writingRecordsNeverCopiesTheOnesBefore() {
        var list = RecordList(reservingCapacity: 1_000, bytesPerRecord: 64)
        var writer = list.writer()
        write([1, 2], with: &writer)
        list.finish(&writer)
        let first = list.withRecord(0) { $0.baseAddress }
        for value in 0..<999 as Range<Int64> {
            var writer = list.writer()
            write([value, value], with: &writer)
            list.finish(&writer)
        }
        #expect(list.count == 1_000)
        #expect(list.withRecord(0) { $0.baseAddress } == first, "the bytes stayed where they were")
    }

    /// Records longer than the guess: the list makes room for all of them at the first one's size
    /// once that record is written, so the bytes move once, with one record in them, not at each
    /// doubling with all the records so far.
    @Test func recordsLongerThanTheGuessMoveTheBytesOnceEarly() {
        var list = RecordList(reservingCapacity: 1_000, bytesPerRecord: 4)
        var writer = list.writer()
        write([1_000, 1_000, 1_000, 1_000, 1_000, 1_000], with: &writer)
        list.finish(&writer)
        let first = list.withRecord(0) { $0.baseAddress }
        for value in 1_000..<1_999 as Range<Int64> {
            var writer = list.writer()
            write([value, value, value, value, value, value], with: &writer)
            list.finish(&writer)
        }
        #expect(list.count == 1_000)
        #expect(list.withRecord(0) { $0.baseAddress } == first, "no move after the first record")
    }
}

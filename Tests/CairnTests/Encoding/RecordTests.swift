import Foundation
import Testing

@testable import Cairn

/// Builds raw records by hand, so tests can write what RecordWriter never would.
func handBuiltRecord(_ body: [UInt8], format: UInt8 = 0x01) -> [UInt8] {
    var bytes = [format] + body
    let crc = CRC32C.checksum(bytes)
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
    return bytes
}

func varintBytes(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    Varint.append(value, to: &bytes)
    return bytes
}

@Suite struct RecordTests {
    @Test func writesTheDocumentedLayout() {
        var writer = RecordWriter()
        writer.write(true, tag: 1)
        writer.write("hi", tag: 2)
        writer.write(Float(1), tag: 3)
        writer.write(-1 as Int, tag: 4)
        let record = writer.finished()
        let body: [UInt8] = [0x01, 0x08, 0x01, 0x12, 0x02, 0x68, 0x69, 0x1D, 0x00, 0x00, 0x80, 0x3F, 0x20, 0x01]
        #expect(Array(record.dropLast(4)) == body)
        #expect(record == handBuiltRecord(Array(body.dropFirst())))
    }

    @Test func emptyRecordIsFormatByteAndChecksum() throws {
        let record = RecordWriter().finished()
        #expect(record.count == 5)
        let reader = try RecordReader(record)
        #expect(reader.tags.isEmpty)
    }

    @Test func skipsUnknownTags() throws {
        // Fields 1 and 5 are known; 2 (varint), 3 (fixed64), 4 (bytes) and 6 (fixed32) are from a newer schema.
        var writer = RecordWriter()
        writer.write("Ada", tag: 1)
        writer.write(99 as UInt64, tag: 2)
        writer.write(2.5 as Double, tag: 3)
        writer.write(Data([1, 2, 3]), tag: 4)
        writer.write(1815 as Int, tag: 5)
        writer.write(Float(3), tag: 6)
        let reader = try RecordReader(writer.finished())
        #expect(try reader.read(String.self, tag: 1) == "Ada")
        #expect(try reader.read(Int.self, tag: 5) == 1815)
        #expect(try reader.read(Int.self, tag: 7) == nil)
        #expect(reader.tags == [1, 2, 3, 4, 5, 6])
    }

    @Test func copiesUnknownFieldsVerbatim() throws {
        var old = RecordWriter()
        old.write("keep", tag: 3)
        old.write(7 as Int8, tag: 9)
        let reader = try RecordReader(old.finished())
        var rewritten = RecordWriter()
        for tag in reader.tags { rewritten.write(payload: reader.payload(tag: tag)!, tag: tag) }
        #expect(rewritten.finished() == reader.bytes)
    }

    @Test func rejectsDuplicateAndDescendingTags() {
        let duplicate = handBuiltRecord([0x08, 0x01, 0x08, 0x02])
        let descending = handBuiltRecord([0x10, 0x01, 0x08, 0x02])
        for record in [duplicate, descending] {
            #expect(throws: StorageError.self) { try RecordReader(record) }
            do { _ = try RecordReader(record) } catch { #expect(error.code == .damagedRecord) }
        }
    }

    @Test func rejectsHugeClaimedLengthsBeforeAllocating() {
        for claimed in [UInt64(1) << 62, UInt64.max, UInt64(Int.max), 1_000_000] {
            let record = handBuiltRecord([0x0A] + varintBytes(claimed) + [0x61])
            #expect(throws: StorageError.self) { try RecordReader(record) }
        }
        // The binary coder checks claimed counts the same way: reserving 2^40 slots would trap.
        var container: [UInt8] = [0x01, 0x0A, 0x06] + varintBytes(1 << 40)
        container += [UInt8](repeating: 0, count: 6 - (container.count - 3))
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([Int].self, from: container) }
        let keyed: [UInt8] = [0x01, 0x09, 0x06] + varintBytes(1 << 40)
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([String: Int].self, from: keyed) }
    }

    @Test func rejectsMalformedStructure() {
        let cases: [[UInt8]] = [
            [0x00, 0x01],  // tag 0
            [0x0B, 0x01],  // wire type 3 (unknown)
            [0x08],  // varintBytes missing
            [0x08, 0x80],  // varintBytes cut off
            [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01],  // overlong varintBytes
            [0x09, 0x01, 0x02],  // fixed64 cut off
            [0x0D, 0x01],  // fixed32 cut off
            [0x0A, 0x03, 0x61],  // length beyond the end
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00],  // tag beyond 2^29 - 1
        ]
        for body in cases {
            #expect(throws: StorageError.self, "\(body)") { try RecordReader(handBuiltRecord(body)) }
        }
        #expect(throws: StorageError.self) { try RecordReader([0x01, 0x00, 0x00]) }
    }

    @Test func reportsAnUnknownFormatAsVersionMismatch() {
        do {
            _ = try RecordReader(handBuiltRecord([], format: 0x02))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .versionMismatch)
            #expect(error.message.contains("release"))
        }
    }

    @Test func detectsADamagedChecksum() {
        var record = RecordWriter().finished()
        record[record.count - 1] ^= 0x01
        do {
            _ = try RecordReader(record)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .damagedRecord)
        }
    }

    @Test func readsFromABorrowedBuffer() throws {
        var writer = RecordWriter()
        writer.write(42 as Int64, tag: 1)
        let record = writer.finished()
        let reader = try record.withUnsafeBytes { buffer throws(StorageError) in
            try RecordReader(copying: buffer, key: [])
        }
        #expect(try reader.read(Int64.self, tag: 1) == 42)
    }

    @Test func widensAndRangeChecksIntegers() throws {
        var writer = RecordWriter()
        writer.write(300 as Int16, tag: 1)
        writer.write(Float(1.5), tag: 2)
        let reader = try RecordReader(writer.finished())
        #expect(try reader.read(Int64.self, tag: 1) == 300)
        #expect(try reader.read(Double.self, tag: 2) == 1.5)
        do {
            _ = try reader.read(Int8.self, tag: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedValue)
        }
        #expect(throws: StorageError.self) { try reader.read(String.self, tag: 1) }
    }

    @Test func lengthsOfManyBytesUseMultiByteVarints() throws {
        let long = String(repeating: "x", count: 300)
        var writer = RecordWriter()
        writer.write(long, tag: 1)
        writer.write(1 as UInt8, tag: 2)
        let record = writer.finished()
        #expect(Array(record[1...3]) == [0x0A, 0xAC, 0x02])
        let reader = try RecordReader(record)
        #expect(try reader.read(String.self, tag: 1) == long)
        #expect(try reader.read(UInt8.self, tag: 2) == 1)
    }
}

@Suite struct RecordMergeTests {
    @Test func keptFieldsOfTheOlderRecordJoinInTagOrderAndTheNewerValuesWin() throws {
        var older = RecordWriter()
        older.write("old title", tag: 1)
        older.write(5 as Int, tag: 2)
        older.write("old note", tag: 4)
        try older.write(["a", "b"], tag: 6)
        let stored = try RecordReader(older.finished())
        var newer = RecordWriter()
        newer.write("new title", tag: 1)
        newer.write("new subtitle", tag: 3)
        let current = try RecordReader(newer.finished())

        var merged = try #require(current.merging(kept: [2, 4, 6, 9], from: stored))
        let reader = try RecordReader(merged.sealed(forKey: []))
        #expect(reader.tags == [1, 2, 3, 4, 6])
        #expect(try reader.read(String.self, tag: 1) == "new title")
        #expect(try reader.read(Int.self, tag: 2) == 5)
        #expect(try reader.read(String.self, tag: 3) == "new subtitle")
        #expect(try reader.read(String.self, tag: 4) == "old note")
        #expect(try reader.read([String].self, tag: 6) == ["a", "b"])
        #expect(current.merging(kept: [1, 3, 9], from: stored) == nil, "nothing to keep")
    }
}

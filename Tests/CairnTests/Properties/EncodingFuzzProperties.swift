import Foundation
import PropertyBased
import Testing

@testable import Cairn

/// Reads every field of a record through several types; each read gives a value or a StorageError.
private func exercise(_ reader: RecordReader) {
    for tag in reader.tags {
        _ = try? reader.read(String.self, tag: tag)
        _ = try? reader.read(Int8.self, tag: tag)
        _ = try? reader.read(Bool.self, tag: tag)
        _ = try? reader.read(Decimal.self, tag: tag)
        _ = try? reader.read(UUID.self, tag: tag)
        _ = try? reader.read(URL.self, tag: tag)
        _ = try? reader.read(Double.self, tag: tag)
        _ = try? reader.read([String: [Int?]].self, tag: tag)
    }
}

private func sampleRecord(_ seed: [UInt8]) throws -> [UInt8] {
    var writer = RecordWriter()
    writer.write(String(decoding: seed, as: UTF8.self), tag: 1)
    writer.write(Int64(seed.count) - 3, tag: 2)
    writer.write(Double(seed.first ?? 0), tag: 3)
    writer.write(Decimal(seed.count) / 7, tag: 4)
    try writer.write(["k": seed.map { Int($0) }, "z": []], tag: 9)
    writer.write(Float(seed.last ?? 1), tag: 300)
    return writer.finished()
}

private let randomBytes = Gen<UInt8>.value(in: 0...255).array(of: 0...48)

@Suite struct EncodingFuzzProperties {
    @Test func randomBytesNeverCrashTheRecordReader() async {
        await propertyCheck(count: PropertyScale.count(3000), input: randomBytes) { bytes throws in
            // Raw bytes almost never pass the checksum, so also try them with a valid one appended,
            // which drives the field parser itself.
            for candidate in [bytes, handBuiltRecord(bytes)] {
                do {
                    exercise(try RecordReader(candidate))
                } catch {
                    let code = (error as? StorageError)?.code
                    #expect(code == .damagedRecord || code == .versionMismatch)
                }
            }
        }
    }

    @Test func randomBytesNeverCrashTheBinaryDecoder() async {
        await propertyCheck(count: PropertyScale.count(3000), input: randomBytes) { bytes throws in
            let input = [0x01] + bytes
            for attempt in 0..<4 {
                do {
                    switch attempt {
                    case 0: _ = try BinaryDecoder().decode([String: [Int?]].self, from: input)
                    case 1: _ = try BinaryDecoder().decode(StoredProfile.self, from: input)
                    case 2: _ = try BinaryDecoder().decode([StoredShape].self, from: input)
                    default: _ = try BinaryDecoder().decode(Data.self, from: input)
                    }
                } catch {
                    #expect(error is DecodingError, "\(error)")
                }
            }
        }
    }

    @Test func mutatedBinaryValuesGiveValuesOrDecodingErrors() async {
        let profile = try! BinaryEncoder().encode(
            StoredProfile(
                name: "n", scores: [1, -2], ratings: ["a": [1.5]], byNumber: [3: "c"], nickname: nil,
                shapes: [.labeled("l", nil), .rectangle(width: 2, height: 3)], maybe: [nil, 4], tags: [5],
                blob: Data([6]),
                id: UUID(), when: Date(timeIntervalSinceReferenceDate: 7), link: URL(string: "https://e.com"),
                price: 8, status: .active, nested: [[9]]
            )
        )
        let mutation = zip(Gen.int(in: 0...(profile.count - 1)), Gen.uint8(), Gen.int(in: 0...2))
        await propertyCheck(count: PropertyScale.count(2000), input: mutation) { index, byte, kind throws in
            var bytes = profile
            switch kind {
            case 0: bytes[index] = byte
            case 1: bytes[index] ^= 1 << (byte % 8)
            default: bytes.removeSubrange(index...)
            }
            do {
                _ = try BinaryDecoder().decode(StoredProfile.self, from: bytes)
            } catch {
                #expect(error is DecodingError, "\(error)")
            }
        }
    }

    @Test func bitFlipsInRecordsAreDetected() async {
        let input = zip(randomBytes, Gen.int(in: 0...Int.max), Gen.uint8(in: 0...7))
        await propertyCheck(count: PropertyScale.count(2000), input: input) { seed, position, bit throws in
            var record = try sampleRecord(seed)
            record[position % record.count] ^= 1 << bit
            do {
                _ = try RecordReader(record)
                Issue.record("a flipped bit at \(position % record.count) went undetected")
            } catch {
                #expect((error as? StorageError)?.code == .damagedRecord)
            }
        }
    }

    @Test func truncatedAndExtendedRecordsAreDetected() async {
        let input = zip(randomBytes, Gen.int(in: 1...Int.max), randomBytes)
        await propertyCheck(count: PropertyScale.count(1000), input: input) { seed, cut, extra throws in
            let record = try sampleRecord(seed)
            let truncated = Array(record.prefix(record.count - 1 - cut % (record.count - 1)))
            #expect(throws: StorageError.self) { try RecordReader(truncated) }
            if !extra.isEmpty {
                #expect(throws: StorageError.self) { try RecordReader(record + extra) }
            }
            let reader = try RecordReader(record)
            #expect(try reader.read(String.self, tag: 1) == String(decoding: seed, as: UTF8.self))
            #expect(try reader.read([String: [Int]].self, tag: 9) == ["k": seed.map { Int($0) }, "z": []])
        }
    }
}

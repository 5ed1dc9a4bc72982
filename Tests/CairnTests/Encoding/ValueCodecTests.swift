import Foundation
import Testing

@testable import Cairn

enum StoredStatus: String, Codable, Equatable {
    case active
    case archived
}

enum StoredLevel: Int {
    case low = 1
    case high = 2
}

struct StoredAddress: Codable, Equatable {
    var street: String
    var zip: String?
}

class StoredAnimal: Codable {
    var name: String
    init(name: String) { self.name = name }
}

final class StoredDog: StoredAnimal {
    var goodBoy: Bool
    init(name: String, goodBoy: Bool) {
        self.goodBoy = goodBoy
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case goodBoy }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        goodBoy = try container.decode(Bool.self, forKey: .goodBoy)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(goodBoy, forKey: .goodBoy)
        try super.encode(to: container.superEncoder())
    }
}

@Suite struct ValueCodecTests {
    @Test func picksTheRightPathForEachKindOfValue() throws {
        var writer = RecordWriter()
        writer.write(StoredStatus.archived, tag: 1)  // RawRepresentable & Codable → raw value
        writer.write(StoredLevel.high, tag: 2)  // RawRepresentable → raw value
        try writer.write(StoredAddress(street: "Main", zip: nil), tag: 3)  // Codable → binary
        writer.write(Optional<String>.none, tag: 4)  // nil → absent
        writer.write(Optional(StoredStatus.active), tag: 5)
        try writer.write(Optional([1, 2, 3]), tag: 6)
        writer.write(Optional(StoredLevel.low), tag: 7)
        writer.write(Optional(UUID()), tag: 8)
        let reader = try RecordReader(writer.finished())

        #expect(reader.payload(tag: 1) == .bytes(ArraySlice("archived".utf8)))
        #expect(reader.payload(tag: 2) == .varint(4))
        #expect(try reader.read(StoredStatus.self, tag: 1) == .archived)
        #expect(try reader.read(StoredLevel.self, tag: 2) == .high)
        #expect(try reader.read(StoredAddress.self, tag: 3) == StoredAddress(street: "Main", zip: nil))
        #expect(try reader.read(String?.self, tag: 4) == nil)
        #expect(!reader.contains(tag: 4))
        #expect(try reader.read(StoredStatus?.self, tag: 5) == .active)
        #expect(try reader.read([Int]?.self, tag: 6) == [1, 2, 3])
        #expect(try reader.read(StoredLevel?.self, tag: 7) == .low)
        #expect(try reader.read(UUID?.self, tag: 8) != nil)
    }

    @Test func unknownRawValuesAreUnsupported() throws {
        var writer = RecordWriter()
        writer.write("deleted", tag: 1)
        let reader = try RecordReader(writer.finished())
        do {
            _ = try reader.read(StoredStatus.self, tag: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedValue)
        }
    }

    @Test func decimalRoundTripsExactly() throws {
        let values: [Decimal] = [
            0, 1, -1, Decimal(string: "-123.456")!, Decimal(string: "0.1")!, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .leastNonzeroMagnitude, Decimal(string: "1e-20")!, Decimal(string: "1e100")!,
        ]
        for value in values {
            var writer = RecordWriter()
            writer.write(value, tag: 1)
            let back = try RecordReader(writer.finished()).read(Decimal.self, tag: 1)
            #expect(back == value, "\(value)")
        }
        var writer = RecordWriter()
        writer.write(Decimal.nan, tag: 1)
        #expect(try RecordReader(writer.finished()).read(Decimal.self, tag: 1)?.isNaN == true)

        var payload = RecordWriter()
        payload.write(Decimal(string: "-123.456")!, tag: 1)
        #expect(try RecordReader(payload.finished()).payload(tag: 1) == .bytes([0x01, 0x05, 0x40, 0xE2, 0x01]))
    }

    @Test func urlsRoundTripThroughTheirAbsoluteString() throws {
        let urls = [
            URL(string: "https://example.com/a?b=c#d")!, URL(fileURLWithPath: "/tmp/x y"),
            URL(string: "mailto:ada@example.com")!,
        ]
        for url in urls {
            var writer = RecordWriter()
            writer.write(url, tag: 1)
            #expect(try RecordReader(writer.finished()).read(URL.self, tag: 1) == url)
        }
        let relative = URL(string: "b/c", relativeTo: URL(string: "https://example.com/a/")!)!
        var writer = RecordWriter()
        writer.write(relative, tag: 1)
        #expect(try RecordReader(writer.finished()).read(URL.self, tag: 1)?.absoluteURL == relative.absoluteURL)
    }

    @Test func superEncoderRoundTripsClassHierarchies() throws {
        let bytes = try BinaryEncoder().encode(StoredDog(name: "Rex", goodBoy: true))
        let dog = try BinaryDecoder().decode(StoredDog.self, from: bytes)
        #expect(dog.name == "Rex" && dog.goodBoy)
    }

    @Test func equalDictionariesEncodeToEqualBytes() throws {
        var first: [String: Int] = [:]
        var second: [String: Int] = [:]
        for index in 0..<50 { first["k\(index)"] = index }
        for index in (0..<50).reversed() { second["k\(index)"] = index }
        #expect(try BinaryEncoder().encode(first) == BinaryEncoder().encode(second))
    }

    @Test func encodesTheDocumentedBytes() throws {
        #expect(try BinaryEncoder().encode([1, -1]) == [0x01, 0x0A, 0x05, 0x02, 0x03, 0x02, 0x03, 0x01])
        #expect(
            try BinaryEncoder().encode(StoredAddress(street: "s", zip: nil)) == [
                0x01, 0x09, 0x0B, 0x01, 0x06, 0x73, 0x74, 0x72, 0x65, 0x65, 0x74, 0x07, 0x01, 0x73,
            ])
    }

    @Test func dataAndUUIDAreStoredAsRawBytes() throws {
        let data = Data([1, 2, 3])
        #expect(try BinaryEncoder().encode(data) == [0x01, 0x08, 0x03, 1, 2, 3])
        let id = UUID()
        #expect(try BinaryEncoder().encode([id]).count == 1 + 3 + 18)
        #expect(try BinaryDecoder().decode([UUID].self, from: BinaryEncoder().encode([id])) == [id])
    }

    @Test func rejectsTypeMismatchesAndDuplicateKeys() throws {
        let ints = try BinaryEncoder().encode([1, 2])
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([String].self, from: ints) }
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode(StoredAddress.self, from: ints) }
        // {"a": 1, "a": 2}
        let duplicate: [UInt8] = [0x01, 0x09, 0x09, 0x02, 0x01, 0x61, 0x03, 0x02, 0x01, 0x61, 0x03, 0x04]
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([String: Int].self, from: duplicate) }
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode(Int.self, from: [0x01, 0x03, 0x02, 0x00]) }
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode(Int8.self, from: [0x01, 0x04, 0xFF, 0x01]) }
    }

    @Test func codableFailuresBecomeStorageErrors() throws {
        var writer = RecordWriter()
        try writer.write([1, 2], tag: 1)
        let reader = try RecordReader(writer.finished())
        do {
            _ = try reader.read([String].self, tag: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.cause is DecodingError)
        }
    }

    @Test func refusesValuesNestedTooDeeply() throws {
        var deep = StoredNest(child: nil)
        for _ in 0..<300 { deep = StoredNest(child: deep) }
        var writer = RecordWriter()
        do {
            try writer.write(deep, tag: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedValue)
        }
        var shallow = StoredNest(child: nil)
        for _ in 0..<50 { shallow = StoredNest(child: shallow) }
        let bytes = try BinaryEncoder().encode(shallow)
        #expect(try BinaryDecoder().decode(StoredNest.self, from: bytes) == shallow)
    }
}

final class StoredNest: Codable, Equatable {
    let child: StoredNest?
    init(child: StoredNest?) { self.child = child }
    static func == (lhs: StoredNest, rhs: StoredNest) -> Bool { lhs.child == rhs.child }
}

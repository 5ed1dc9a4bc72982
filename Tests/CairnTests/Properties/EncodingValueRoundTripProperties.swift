import Foundation
import PropertyBased
import Testing

@testable import Cairn

enum StoredShape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case labeled(String, Int?)
    case none
}

struct StoredProfile: Codable, Equatable {
    var name: String
    var scores: [Int]
    var ratings: [String: [Double]]
    var byNumber: [Int: String]
    var nickname: String?
    var shapes: [StoredShape]
    var maybe: [Int8?]
    var tags: Set<Int16>
    var blob: Data
    var id: UUID
    var when: Date
    var link: URL?
    var price: Decimal
    var status: StoredStatus
    var nested: [[UInt64]]
}

private enum ProfileGenerators {
    static let shape = Gen<UInt8>.value(in: 0...3).map { kind -> StoredShape in
        var rng = SystemRandomNumberGenerator()
        switch kind {
        case 0: return .circle(radius: Double(Int.random(in: -99...99, using: &rng)) / 4)
        case 1:
            return .rectangle(width: .random(in: .min ... .max, using: &rng), height: .random(in: -5...5, using: &rng))
        case 2: return .labeled(String(repeating: "x", count: .random(in: 0...3, using: &rng)), Bool.random() ? nil : 7)
        default: return .none
        }
    }

    static let decimal = zip(Gen.int64(), Gen.int8(in: -30...30)).map { significand, exponent in
        Decimal(
            sign: significand < 0 ? .minus : .plus, exponent: Int(exponent), significand: Decimal(significand.magnitude)
        )
    }

    static let profile = zip(
        zip(
            EncodingGenerators.string,
            Gen.int().array(of: 0...5),
            zip(EncodingGenerators.string, EncodingGenerators.finiteDouble.array(of: 0...3)).dictionary(
                ofAtMost: 0...3),
            zip(Gen.int(in: -9...9), EncodingGenerators.string).dictionary(ofAtMost: 0...3),
            EncodingGenerators.string.optional(),
            shape.array(of: 0...4),
            Gen.int8().optional().array(of: 0...4)
        ),
        zip(
            Gen.int16(in: -50...50).set(ofAtMost: 0...5),
            EncodingGenerators.data,
            EncodingGenerators.uuid,
            EncodingGenerators.finiteDouble,
            decimal,
            Gen.bool,
            Gen.uint64().array(of: 0...2).array(of: 0...2)
        )
    ).map { first, second -> StoredProfile in
        let link: URL? = first.4 == nil ? nil : URL(string: "https://example.com/" + String(first.1.count))
        let status: StoredStatus = second.5 ? .active : .archived
        return StoredProfile(
            name: first.0, scores: first.1, ratings: first.2, byNumber: first.3, nickname: first.4,
            shapes: first.5, maybe: first.6, tags: second.0, blob: second.1, id: second.2,
            when: Date(timeIntervalSinceReferenceDate: second.3),
            link: link, price: second.4, status: status, nested: second.6
        )
    }
}

/// Writes one value as field 1 of a record and reads it back through the public entry points.
private func roundTrip<Value: FieldCodable>(_ value: Value) throws -> Value? {
    var writer = RecordWriter()
    writer.write(value, tag: 1)
    return try RecordReader(writer.finished()).read(Value.self, tag: 1)
}

private func roundTripCodable<Value: Codable>(_ value: Value) throws -> Value? {
    var writer = RecordWriter()
    try writer.write(value, tag: 1)
    return try RecordReader(writer.finished()).read(Value.self, tag: 1)
}

@Suite struct EncodingValueRoundTripProperties {
    @Test func integersRoundTrip() async {
        await propertyCheck(count: PropertyScale.count(200), input: Gen.int(), Gen.int8(), Gen.int16()) {
            a, b, c throws in
            #expect(try roundTrip(a) == a)
            #expect(try roundTrip(b) == b)
            #expect(try roundTrip(c) == c)
        }
        await propertyCheck(count: PropertyScale.count(200), input: Gen.int32(), Gen.int64(), Gen.uint()) {
            a, b, c throws in
            #expect(try roundTrip(a) == a)
            #expect(try roundTrip(b) == b)
            #expect(try roundTrip(c) == c)
        }
        await propertyCheck(
            count: PropertyScale.count(200), input: Gen.uint8(), Gen.uint16(), Gen.uint32(), Gen.uint64()
        ) { a, b, c, d throws in
            #expect(try roundTrip(a) == a)
            #expect(try roundTrip(b) == b)
            #expect(try roundTrip(c) == c)
            #expect(try roundTrip(d) == d)
        }
    }

    @Test func scalarsRoundTripBitForBit() async {
        await propertyCheck(
            count: PropertyScale.count(300), input: EncodingGenerators.double, EncodingGenerators.float, Gen.bool
        ) {
            double, float, bool throws in
            #expect(try roundTrip(double)?.bitPattern == double.bitPattern)
            #expect(try roundTrip(float)?.bitPattern == float.bitPattern)
            #expect(try roundTrip(bool) == bool)
        }
        await propertyCheck(count: PropertyScale.count(300), input: EncodingGenerators.date) { date throws in
            #expect(
                try roundTrip(date)?.timeIntervalSinceReferenceDate.bitPattern
                    == date.timeIntervalSinceReferenceDate.bitPattern
            )
        }
    }

    @Test func foundationValuesRoundTrip() async {
        await propertyCheck(
            count: PropertyScale.count(300), input: EncodingGenerators.string, EncodingGenerators.data,
            EncodingGenerators.uuid
        ) {
            string, data, uuid throws in
            #expect(try roundTrip(string) == string)
            #expect(try roundTrip(data) == data)
            #expect(try roundTrip(uuid) == uuid)
        }
        let path = Gen.letterOrNumber.string(of: 1...10)
        await propertyCheck(count: PropertyScale.count(200), input: path, ProfileGenerators.decimal) {
            path, decimal throws in
            let url = URL(string: "https://example.com/\(path)?q=\(path)")!
            #expect(try roundTrip(url) == url)
            #expect(try roundTrip(decimal) == decimal)
        }
    }

    @Test func optionalsAndRawValuesRoundTrip() async {
        await propertyCheck(
            count: PropertyScale.count(200), input: EncodingGenerators.string.optional(), Gen.bool.optional()
        ) {
            string, flag throws in
            var writer = RecordWriter()
            writer.write(string, tag: 1)
            let status: StoredStatus? = flag.map { $0 ? .active : .archived }
            let level: StoredLevel? = flag.map { $0 ? .high : .low }
            writer.write(status, tag: 2)
            writer.write(level, tag: 3)
            let reader = try RecordReader(writer.finished())
            #expect(try reader.read(String?.self, tag: 1) == string)
            #expect(try reader.read(StoredStatus?.self, tag: 2) == status)
            #expect(try reader.read(StoredLevel?.self, tag: 3) == level)
        }
    }

    @Test func codableStructsRoundTrip() async {
        await propertyCheck(count: PropertyScale.count(300), input: ProfileGenerators.profile) { profile throws in
            #expect(try roundTripCodable(profile) == profile)
            let bytes = try BinaryEncoder().encode(profile)
            #expect(try BinaryDecoder().decode(StoredProfile.self, from: bytes) == profile)
        }
    }

    @Test func codableCollectionsRoundTrip() async {
        let shapes = ProfileGenerators.shape.array(of: 0...6)
        await propertyCheck(count: PropertyScale.count(200), input: shapes, Gen.int().optional().array(of: 0...5)) {
            shapes, ints throws in
            #expect(try roundTripCodable(shapes) == shapes)
            #expect(try roundTripCodable(ints) == ints)
            #expect(try roundTripCodable(Set(ints.compactMap { $0 })) == Set(ints.compactMap { $0 }))
            let dictionary = Dictionary(uniqueKeysWithValues: ints.enumerated().map { (UUID(), $0.element) })
            #expect(try roundTripCodable(dictionary) == dictionary)
        }
    }
}

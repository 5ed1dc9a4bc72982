import Foundation
import Testing

@testable import Cairn

private enum CodecMood: String, Codable {
    case calm
    case stormy
}

private enum CodecPriority: Int, Codable {
    case low = 1
    case high = 9
}

/// Raw-valued but not `Codable`: stored by its raw value all the same.
private enum CodecLevel: Int {
    case one = 1
    case two = 2
}

private struct CodecAddress: Codable, Equatable {
    var street: String
    var zip: String?
}

/// Neither `Codable` nor `RawRepresentable`.
private struct CodecUnstorable: Equatable {
    var name: String
}

/// `RawRepresentable`, but its raw value is not `FieldCodable` and the type is not `Codable`.
private struct CodecListWrapper: RawRepresentable {
    var rawValue: [Int]
}

private struct CodecRefusesEncoding: Codable {
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
}

/// Writes `value` through its resolved codec at tag 7 and returns the whole record.
private func codecRecord<Value>(_ value: Value) throws -> [UInt8] {
    let codec = try #require(AttributeCodec.resolve(Value.self))
    var writer = RecordWriter()
    try codec.encode(value, tag: 7, into: &writer)
    return writer.finished()
}

/// The record that a statically typed call of `RecordWriter.write(_:tag:)` builds.
private func staticRecord(_ write: (inout RecordWriter) throws -> Void) throws -> [UInt8] {
    var writer = RecordWriter()
    try write(&writer)
    return writer.finished()
}

/// Encodes and decodes `value` through its resolved codec.
private func roundTrip<Value>(_ value: Value) throws -> Value? {
    let codec = try #require(AttributeCodec.resolve(Value.self))
    return try codec.decode(tag: 7, from: RecordReader(codecRecord(value)))
}

private let emptyRecord = RecordWriter().finished()

@Suite struct AttributeCodecTests {
    @Test func nativeValuesRoundTrip() throws {
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
        #expect(try roundTrip(-42 as Int) == -42)
        #expect(try roundTrip(Int8.min) == Int8.min)
        #expect(try roundTrip(Int16.max) == Int16.max)
        #expect(try roundTrip(-70_000 as Int32) == -70_000)
        #expect(try roundTrip(Int64.min) == Int64.min)
        #expect(try roundTrip(UInt.max) == UInt.max)
        #expect(try roundTrip(UInt8.max) == UInt8.max)
        #expect(try roundTrip(300 as UInt16) == 300)
        #expect(try roundTrip(UInt32.max) == UInt32.max)
        #expect(try roundTrip(UInt64.max) == UInt64.max)
        #expect(try roundTrip(Float(-1.5)) == -1.5)
        #expect(try roundTrip(Double.pi) == Double.pi)
        #expect(try roundTrip(Decimal(string: "-123.456")!) == Decimal(string: "-123.456")!)
        #expect(try roundTrip("Ada Lovelace 🧮") == "Ada Lovelace 🧮")
        #expect(try roundTrip("") == "")
        let date = Date(timeIntervalSinceReferenceDate: 12_345.678)
        #expect(try roundTrip(date) == date)
        #expect(try roundTrip(Data([0, 1, 0xFF])) == Data([0, 1, 0xFF]))
        let id = UUID()
        #expect(try roundTrip(id) == id)
        let url = URL(string: "https://example.com/a?b=c")!
        #expect(try roundTrip(url) == url)
    }

    @Test func rawValuesAndCodableValuesRoundTrip() throws {
        #expect(try roundTrip(CodecMood.stormy) == .stormy)
        #expect(try roundTrip(CodecPriority.high) == .high)
        #expect(try roundTrip(CodecLevel.two) == .two)
        let address = CodecAddress(street: "Main St", zip: nil)
        #expect(try roundTrip(address) == address)
        #expect(try roundTrip(["a", "", "ç"]) == ["a", "", "ç"])
        #expect(try roundTrip(["one": 1, "two": 2]) == ["one": 1, "two": 2])
        #expect(try roundTrip(Set([3, 1, 2])) == Set([3, 1, 2]))
        #expect(try roundTrip([String]()) == [])
    }

    @Test func optionalsRoundTripWithAndWithoutAValue() throws {
        // The codec of an optional returns `.some(value)`; a stored nil comes back as `.some(nil)`.
        #expect(try roundTrip(Optional(5 as Int)) == .some(5))
        #expect(try roundTrip(Int?.none) == .some(nil))
        #expect(try roundTrip(Optional("x")) == .some("x"))
        #expect(try roundTrip(String?.none) == .some(nil))
        #expect(try roundTrip(Optional(Date.distantPast)) == .some(.distantPast))
        #expect(try roundTrip(Optional(CodecMood.calm)) == .some(.calm))
        #expect(try roundTrip(CodecMood?.none) == .some(nil))
        #expect(try roundTrip(Optional(CodecLevel.one)) == .some(.one))
        #expect(try roundTrip(CodecLevel?.none) == .some(nil))
        let address = CodecAddress(street: "Elm", zip: "12345")
        #expect(try roundTrip(Optional(address)) == .some(address))
        #expect(try roundTrip(CodecAddress?.none) == .some(nil))
        #expect(try roundTrip(Optional([1, 2])) == .some([1, 2]))
        #expect(try roundTrip([Int]?.none) == .some(nil))
    }

    @Test func nestedOptionalsKeepEveryLevelOfNil() throws {
        #expect(try roundTrip(String??.some("x")) == .some(.some("x")))
        #expect(try roundTrip(String??.some(nil)) == .some(.some(nil)))
        #expect(try roundTrip(String??.none) == .some(nil))
        // Deeper levels follow Codable, whose Optional encodes every inner nil alike (as the static
        // overloads do): `Int???.some(.some(nil))` reads back as `.some(nil)`.
        #expect(try roundTrip(Int???.some(.some(nil))) == .some(.some(nil)))
        #expect(
            try codecRecord(Int???.some(.some(nil))) == staticRecord { try $0.write(Int???.some(.some(nil)), tag: 7) })
        // The outer nil is an absent field; the inner one is a binary-coded nil.
        #expect(try codecRecord(String??.none) == emptyRecord)
        #expect(try codecRecord(String??.some(nil)) != emptyRecord)
    }

    @Test func fieldsAreByteIdenticalToTheStaticOverloads() throws {
        let id = UUID()
        let date = Date(timeIntervalSinceReferenceDate: -1.25)
        let url = URL(string: "https://example.com")!
        let decimal = Decimal(string: "0.001")!
        let address = CodecAddress(street: "Main", zip: "1")
        let set = Set(0..<20)

        #expect(try codecRecord(true) == staticRecord { $0.write(true, tag: 7) })
        #expect(try codecRecord(-3 as Int) == staticRecord { $0.write(-3 as Int, tag: 7) })
        #expect(try codecRecord(-3 as Int8) == staticRecord { $0.write(-3 as Int8, tag: 7) })
        #expect(try codecRecord(-3 as Int16) == staticRecord { $0.write(-3 as Int16, tag: 7) })
        #expect(try codecRecord(-3 as Int32) == staticRecord { $0.write(-3 as Int32, tag: 7) })
        #expect(try codecRecord(-3 as Int64) == staticRecord { $0.write(-3 as Int64, tag: 7) })
        #expect(try codecRecord(300 as UInt) == staticRecord { $0.write(300 as UInt, tag: 7) })
        #expect(try codecRecord(3 as UInt8) == staticRecord { $0.write(3 as UInt8, tag: 7) })
        #expect(try codecRecord(300 as UInt16) == staticRecord { $0.write(300 as UInt16, tag: 7) })
        #expect(try codecRecord(300 as UInt32) == staticRecord { $0.write(300 as UInt32, tag: 7) })
        #expect(try codecRecord(300 as UInt64) == staticRecord { $0.write(300 as UInt64, tag: 7) })
        #expect(try codecRecord(Float(2.5)) == staticRecord { $0.write(Float(2.5), tag: 7) })
        #expect(try codecRecord(2.5 as Double) == staticRecord { $0.write(2.5 as Double, tag: 7) })
        #expect(try codecRecord(decimal) == staticRecord { $0.write(decimal, tag: 7) })
        #expect(try codecRecord("hi") == staticRecord { $0.write("hi", tag: 7) })
        #expect(try codecRecord(date) == staticRecord { $0.write(date, tag: 7) })
        #expect(try codecRecord(Data([9, 8])) == staticRecord { $0.write(Data([9, 8]), tag: 7) })
        #expect(try codecRecord(id) == staticRecord { $0.write(id, tag: 7) })
        #expect(try codecRecord(url) == staticRecord { $0.write(url, tag: 7) })
        #expect(try codecRecord(CodecMood.calm) == staticRecord { $0.write(CodecMood.calm, tag: 7) })
        #expect(try codecRecord(CodecPriority.low) == staticRecord { $0.write(CodecPriority.low, tag: 7) })
        #expect(try codecRecord(CodecLevel.two) == staticRecord { $0.write(CodecLevel.two, tag: 7) })
        #expect(try codecRecord(address) == staticRecord { try $0.write(address, tag: 7) })
        #expect(try codecRecord(["a", "b"]) == staticRecord { try $0.write(["a", "b"], tag: 7) })
        #expect(try codecRecord(["a": 1, "b": 2]) == staticRecord { try $0.write(["a": 1, "b": 2], tag: 7) })
        #expect(try codecRecord(set) == staticRecord { try $0.write(set, tag: 7) })
    }

    @Test func optionalFieldsAreByteIdenticalToTheStaticOverloads() throws {
        let address = CodecAddress(street: "Main", zip: nil)
        #expect(try codecRecord(Int?.some(-1)) == staticRecord { $0.write(Int?.some(-1), tag: 7) })
        #expect(try codecRecord(Int?.none) == staticRecord { $0.write(Int?.none, tag: 7) })
        #expect(try codecRecord(String?.some("a")) == staticRecord { $0.write(String?.some("a"), tag: 7) })
        #expect(
            try codecRecord(CodecMood?.some(.stormy)) == staticRecord { $0.write(CodecMood?.some(.stormy), tag: 7) })
        #expect(try codecRecord(CodecLevel?.some(.one)) == staticRecord { $0.write(CodecLevel?.some(.one), tag: 7) })
        #expect(try codecRecord(CodecLevel?.none) == staticRecord { $0.write(CodecLevel?.none, tag: 7) })
        #expect(
            try codecRecord(CodecAddress?.some(address))
                == staticRecord { try $0.write(CodecAddress?.some(address), tag: 7) })
        #expect(try codecRecord([Int]?.none) == staticRecord { try $0.write([Int]?.none, tag: 7) })
        #expect(try codecRecord(String??.some("x")) == staticRecord { try $0.write(String??.some("x"), tag: 7) })
        #expect(try codecRecord(String??.some(nil)) == staticRecord { try $0.write(String??.some(nil), tag: 7) })
        #expect(try codecRecord(String??.none) == staticRecord { try $0.write(String??.none, tag: 7) })
    }

    @Test func staticallyWrittenFieldsDecodeThroughTheCodec() throws {
        let record = try staticRecord {
            $0.write(CodecMood.stormy, tag: 1)
            try $0.write(["k": 3], tag: 2)
            $0.write(Int16(-5), tag: 3)
        }
        let reader = try RecordReader(record)
        #expect(try AttributeCodec.resolve(CodecMood.self)?.decode(tag: 1, from: reader) == .stormy)
        #expect(try AttributeCodec.resolve([String: Int].self)?.decode(tag: 2, from: reader) == ["k": 3])
        // Widening an integer property needs no migration, as with the static overloads.
        #expect(try AttributeCodec.resolve(Int64?.self)?.decode(tag: 3, from: reader) == .some(-5))
    }

    @Test func absentFieldIsNoValueForNonOptionalsAndNilForOptionals() throws {
        let reader = try RecordReader(emptyRecord)
        #expect(try AttributeCodec.resolve(String.self)?.decode(tag: 1, from: reader) == nil)
        #expect(try AttributeCodec.resolve(CodecMood.self)?.decode(tag: 1, from: reader) == nil)
        #expect(try AttributeCodec.resolve(CodecAddress.self)?.decode(tag: 1, from: reader) == nil)

        let string = try #require(AttributeCodec.resolve(String?.self))
        let decoded: String?? = try string.decode(tag: 1, from: reader)
        #expect(decoded == .some(nil))
        let mood = try #require(AttributeCodec.resolve(CodecMood?.self))
        #expect(try mood.decode(tag: 1, from: reader) == .some(nil))
        let level = try #require(AttributeCodec.resolve(CodecLevel?.self))
        #expect(try level.decode(tag: 1, from: reader) == .some(nil))
        let list = try #require(AttributeCodec.resolve([Int]?.self))
        #expect(try list.decode(tag: 1, from: reader) == .some(nil))
    }

    @Test func encodingNilWritesNoField() throws {
        #expect(try codecRecord(String?.none) == emptyRecord)
        #expect(try codecRecord(CodecLevel?.none) == emptyRecord)
        #expect(try codecRecord(CodecAddress?.none) == emptyRecord)
    }

    @Test func unknownRawValueIsUnsupported() throws {
        let record = try staticRecord {
            $0.write("deleted", tag: 1)
            $0.write(5 as Int, tag: 2)
        }
        let reader = try RecordReader(record)
        let mood = try #require(AttributeCodec.resolve(CodecMood.self))
        let moodError = #expect(throws: StorageError.self) { try mood.decode(tag: 1, from: reader) }
        #expect(moodError?.code == .unsupportedValue)
        #expect(moodError?.message.contains("deleted") == true)

        let level = try #require(AttributeCodec.resolve(CodecLevel?.self))
        let levelError = #expect(throws: StorageError.self) { try level.decode(tag: 2, from: reader) }
        #expect(levelError?.code == .unsupportedValue)
    }

    @Test func changedTypeIsUnsupported() throws {
        let reader = try RecordReader(staticRecord { $0.write("text", tag: 1) })
        let number = try #require(AttributeCodec.resolve(Int.self))
        let error = #expect(throws: StorageError.self) { try number.decode(tag: 1, from: reader) }
        #expect(error?.code == .unsupportedValue)
    }

    @Test func binaryEncodingFailureIsUnsupportedAndWritesNothing() throws {
        let codec = try #require(AttributeCodec.resolve(CodecRefusesEncoding.self))
        var writer = RecordWriter()
        let error = #expect(throws: StorageError.self) {
            try codec.encode(CodecRefusesEncoding(), tag: 1, into: &writer)
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.message.contains("CodecRefusesEncoding") == true)
        #expect(writer.finished() == emptyRecord)
    }

    @Test func unstorableTypesDoNotResolve() {
        #expect(AttributeCodec.resolve(CodecUnstorable.self) == nil)
        #expect(AttributeCodec.resolve(CodecUnstorable?.self) == nil)
        #expect(AttributeCodec.resolve(CodecListWrapper.self) == nil)
        #expect(AttributeCodec.resolve((Int, Int).self) == nil)
        // A nested optional is stored with the binary coder, which needs Codable.
        #expect(AttributeCodec.resolve(CodecLevel??.self) == nil)
        #expect(AttributeCodec.resolve(CodecLevel?.self) != nil)
    }

    @Test func oneCodecIsSharedAcrossTasks() async throws {
        let codec = try #require(AttributeCodec.resolve(CodecAddress?.self))
        let sizes = await withTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    var writer = RecordWriter()
                    try? codec.encode(CodecAddress(street: "\(index)", zip: nil), tag: 1, into: &writer)
                    return writer.finished().count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(sizes > 8 * emptyRecord.count)
    }
}

import Foundation
import PropertyBased
import Testing

@testable import Cairn

/// Value order as an Int: -1, 0 or 1.
private func order<Value: Comparable>(_ lhs: Value, _ rhs: Value) -> Int {
    lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
}

/// Float order after the key encoding's canonicalisation: -0 == +0, every NaN equal and greatest.
private func floatOrder<Value: BinaryFloatingPoint>(_ lhs: Value, _ rhs: Value) -> Int {
    switch (lhs.isNaN, rhs.isNaN) {
    case (true, true): 0
    case (true, false): 1
    case (false, true): -1
    case (false, false): order(lhs, rhs)
    }
}

private func bytesOrder(_ lhs: some Sequence<UInt8>, _ rhs: some Sequence<UInt8>) -> Int {
    let left = Array(lhs)
    let right = Array(rhs)
    if left == right { return 0 }
    return left.lexicographicallyPrecedes(right) ? -1 : 1
}

private func optionalOrder<Value>(_ lhs: Value?, _ rhs: Value?, _ wrapped: (Value, Value) -> Int) -> Int {
    switch (lhs, rhs) {
    case (nil, nil): 0
    case (nil, _): -1
    case (_, nil): 1
    case let (left?, right?): wrapped(left, right)
    }
}

private func encoded<Value: KeyComponent>(_ value: Value) -> [UInt8] {
    var key = KeyBuilder()
    key.append(value)
    return key.bytes
}

/// Swift's string order on the strings' NFC forms, and Swift's `==`. Swift's `<` on strings that
/// are not in NFC contradicts its own `==`: `"a\u{308}" == "\u{E4}"` and `"\u{E4}" < "\u{E4}a"`,
/// yet `"a\u{308}" > "\u{E4}a"`; `"\u{3A9}" < "\u{3A9}\u{301}"` although the latter is `"\u{38F}"`,
/// which is `<` `"\u{3A9}"`. Keys order every string as its NFC form.
private func stringOrder(_ lhs: String, _ rhs: String) -> Int {
    if lhs == rhs { return 0 }
    let left = String(decoding: lhs._nfcCodeUnits, as: UTF8.self)
    let right = String(decoding: rhs._nfcCodeUnits, as: UTF8.self)
    return left < right ? -1 : 1
}

/// Checks byte order == value order for one pair, and that each encoding decodes to an equal value.
private func checkPair<Value: KeyComponent>(
    _ lhs: Value,
    _ rhs: Value,
    by compare: (Value, Value) -> Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let left = encoded(lhs)
    let right = encoded(rhs)
    #expect(bytesOrder(left, right) == compare(lhs, rhs), "\(lhs) vs \(rhs)", sourceLocation: sourceLocation)
    for (value, bytes) in [(lhs, left), (rhs, right)] {
        var reader = KeyReader(bytes)
        let back = try reader.decode(Value.self)
        try reader.finish()
        #expect(compare(back, value) == 0, "\(value) decoded as \(back)", sourceLocation: sourceLocation)
        #expect(encoded(back) == bytes, sourceLocation: sourceLocation)
    }
}

@Suite struct EncodingKeyOrderProperties {
    @Test func integersOrderLikeTheirValues() async {
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int64(), Gen.int64()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int32(), Gen.int32()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int16(), Gen.int16()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int8(), Gen.int8()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int(), Gen.int()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.uint64(), Gen.uint64()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.uint32(), Gen.uint32()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.uint16(), Gen.uint16()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.uint8(), Gen.uint8()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(300), input: Gen.uint(), Gen.uint()) {
            try checkPair($0, $1, by: order)
        }
        await propertyCheck(count: PropertyScale.count(50), input: Gen.bool, Gen.bool) { a, b throws in
            try checkPair(a, b) { order($0 ? 1 : 0, $1 ? 1 : 0) }
        }
    }

    @Test func smallIntegersNearZeroOrderLikeTheirValues() async {
        await propertyCheck(count: PropertyScale.count(300), input: Gen.int64(in: -3...3), Gen.int64(in: -3...3)) {
            try checkPair($0, $1, by: order)
        }
    }

    @Test func floatingPointOrdersLikeItsCanonicalValue() async {
        await propertyCheck(
            count: PropertyScale.count(500), input: EncodingGenerators.double, EncodingGenerators.double
        ) {
            try checkPair($0, $1, by: floatOrder)
        }
        await propertyCheck(count: PropertyScale.count(500), input: EncodingGenerators.float, EncodingGenerators.float)
        {
            try checkPair($0, $1, by: floatOrder)
        }
        await propertyCheck(count: PropertyScale.count(300), input: EncodingGenerators.date, EncodingGenerators.date) {
            try checkPair($0, $1) { floatOrder($0.timeIntervalSinceReferenceDate, $1.timeIntervalSinceReferenceDate) }
        }
    }

    /// String keys are NFC bytes, so they order and compare exactly like Swift strings.
    @Test func stringsOrderLikeSwiftStrings() async {
        await propertyCheck(
            count: PropertyScale.count(500), input: EncodingGenerators.string, EncodingGenerators.string
        ) {
            try checkPair($0, $1) { stringOrder($0, $1) }
        }
        await propertyCheck(
            count: PropertyScale.count(500), input: EncodingGenerators.unicodeString, EncodingGenerators.unicodeString
        ) {
            try checkPair($0, $1) { stringOrder($0, $1) }
        }
    }

    @Test func canonicallyEquivalentStringsHaveOneKey() {
        #expect(encoded("Bronte\u{301}") == encoded("Bront\u{E9}"))
        #expect(encoded("\u{212A}") == encoded("K") && encoded("\u{2126}") == encoded("\u{3A9}"))
        #expect(encoded("\u{2F800}") == encoded("\u{4E3D}"))
        #expect(encoded("\u{AC00}\u{11A8}") == encoded("\u{AC01}") && "\u{AC00}\u{11A8}" == "\u{AC01}")
        #expect(encoded("\u{1100}\u{1161}") == encoded("\u{AC00}"))
        #expect(encoded("e\u{301}") != encoded("e"))
    }

    @Test func dataAndUUIDsOrderByBytes() async {
        await propertyCheck(count: PropertyScale.count(500), input: EncodingGenerators.data, EncodingGenerators.data) {
            try checkPair($0, $1) { bytesOrder($0, $1) }
        }
        await propertyCheck(count: PropertyScale.count(300), input: EncodingGenerators.uuid, EncodingGenerators.uuid) {
            try checkPair($0, $1) { bytesOrder($0.byteArray, $1.byteArray) }
        }
    }

    /// Decimal keys order like `<`, with NaN first; equal values written differently (1.5, 1.50)
    /// have one key.
    @Test func decimalsOrderLikeTheirValues() async {
        func decimalOrder(_ lhs: Decimal, _ rhs: Decimal) -> Int {
            switch (lhs.isNaN, rhs.isNaN) {
            case (true, true): 0
            case (true, false): -1
            case (false, true): 1
            case (false, false): order(lhs, rhs)
            }
        }
        await propertyCheck(
            count: PropertyScale.count(800), input: EncodingGenerators.decimal, EncodingGenerators.decimal
        ) {
            try checkPair($0, $1, by: decimalOrder)
        }
        #expect(encoded(Decimal(string: "1.5")!) == encoded(Decimal(string: "1.50")!))
        #expect(encoded(Decimal(string: "-0.0")!) == encoded(Decimal(0)))
        #expect(encoded(Decimal(string: "1.5")!) == [0x03, 0x80, 0x01, 0x31, 0x35, 0x00])
    }

    @Test func urlsOrderByTheirStoredString() async {
        await propertyCheck(count: PropertyScale.count(300), input: EncodingGenerators.url, EncodingGenerators.url) {
            try checkPair($0, $1) { bytesOrder($0.absoluteString.utf8, $1.absoluteString.utf8) }
        }
    }

    @Test func optionalsSortNilFirst() async {
        let string = EncodingGenerators.string.optional()
        await propertyCheck(count: PropertyScale.count(300), input: string, string) { a, b throws in
            try checkPair(a, b) { optionalOrder($0, $1) { bytesOrder($0.utf8, $1.utf8) } }
        }
        let int = Gen.int32(in: -5...5).optional()
        await propertyCheck(count: PropertyScale.count(300), input: int, int) { a, b throws in
            try checkPair(a, b) { optionalOrder($0, $1, order) }
        }
    }

    @Test func pairsOrderLexicographically() async {
        let pair = zip(EncodingGenerators.string, Gen.int32(in: -3...3))
        await propertyCheck(count: PropertyScale.count(500), input: pair, pair) { lhs, rhs throws in
            let left = KeyBuilder.key(lhs.0, lhs.1)
            let right = KeyBuilder.key(rhs.0, rhs.1)
            let first = bytesOrder(lhs.0.utf8, rhs.0.utf8)
            #expect(bytesOrder(left, right) == (first != 0 ? first : order(lhs.1, rhs.1)))
            var reader = KeyReader(left)
            let (string, int) = try reader.decode(String.self, Int32.self)
            #expect(string == lhs.0 && int == lhs.1)
        }
    }

    @Test func triplesOrderLexicographically() async {
        let triple = zip(EncodingGenerators.data.optional(), EncodingGenerators.double, Gen.uint8(in: 0...2))
        await propertyCheck(count: PropertyScale.count(500), input: triple, triple) { lhs, rhs throws in
            let left = KeyBuilder.key(lhs.0, lhs.1, lhs.2)
            let right = KeyBuilder.key(rhs.0, rhs.1, rhs.2)
            var expected = optionalOrder(lhs.0, rhs.0) { bytesOrder($0, $1) }
            if expected == 0 { expected = floatOrder(lhs.1, rhs.1) }
            if expected == 0 { expected = order(lhs.2, rhs.2) }
            #expect(bytesOrder(left, right) == expected)
            var reader = KeyReader(left)
            let (data, double, byte) = try reader.decode(Data?.self, Double.self, UInt8.self)
            #expect(data == lhs.0 && floatOrder(double, lhs.1) == 0 && byte == lhs.2)
        }
    }

    @Test func longKeysKeepOrderUpToTheCut() async {
        let long = Gen<UInt8>.value(in: 0x61...0x62).array(of: 470...560).map { String(decoding: $0, as: UTF8.self) }
        await propertyCheck(count: PropertyScale.count(200), input: long, long) { lhs, rhs throws in
            let left = KeyBuilder.key(lhs)
            let right = KeyBuilder.key(rhs)
            #expect(left.count <= 511 && right.count <= 511)
            let full = bytesOrder(encoded(lhs), encoded(rhs))
            if bytesOrder(left.prefix(479), right.prefix(479)) != 0 {
                #expect(bytesOrder(left, right) == full)
            }
            #expect((left == right) == (lhs == rhs))
        }
    }
}

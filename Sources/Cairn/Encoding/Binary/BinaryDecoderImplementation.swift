import Foundation

/// The `Decoder` that ``BinaryDecoder`` hands to `init(from:)`, reading one tagged value.
///
/// It shares the input array (no copies) and knows the exact byte range of its value, which
/// the parent container established by skipping, so every read is bounded by that range.
struct BinaryDecoderImplementation: Decoder {
    let bytes: [UInt8]
    let range: Range<Int>
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<Value: Decodable>(
        _ type: Value.Type,
        bytes: [UInt8],
        range: Range<Int>,
        codingPath: [any CodingKey]
    ) throws -> Value {
        guard codingPath.count <= BinaryFormat.maximumDepth else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "Values nest more than \(BinaryFormat.maximumDepth) levels deep.")
            )
        }
        let decoder = BinaryDecoderImplementation(bytes: bytes, range: range, codingPath: codingPath)
        if Value.self == Data.self {
            return Data(try decoder.rawBytes()) as! Value
        }
        if Value.self == UUID.self {
            let raw = try decoder.rawBytes()
            guard raw.count == 16 else { throw decoder.scanner.corrupted("A UUID holds \(raw.count) bytes, not 16.") }
            return UUID(uuidBytes: raw) as! Value
        }
        return try Value(from: decoder)
    }

    var scanner: BinaryFormat.Scanner {
        BinaryFormat.Scanner(bytes: bytes, position: range.lowerBound, end: range.upperBound, codingPath: codingPath)
    }

    var tag: BinaryFormat.Tag? { BinaryFormat.Tag(rawValue: bytes[range.lowerBound]) }

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(
                codingPath: codingPath,
                debugDescription: "Expected \(type) but found a value tagged \(String(describing: tag)).")
        )
    }

    /// Opens a length-prefixed value with the expected tag and returns a scanner over its contents.
    func contents(expecting expected: BinaryFormat.Tag, as type: Any.Type) throws -> BinaryFormat.Scanner {
        var scanner = scanner
        let found = try scanner.readTag()
        guard found == expected else {
            throw found == .null
                ? DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Found nil."))
                : mismatch(type)
        }
        let length = try scanner.readLength()
        return BinaryFormat.Scanner(
            bytes: bytes, position: scanner.position, end: scanner.position + length, codingPath: codingPath)
    }

    func rawBytes() throws -> ArraySlice<UInt8> {
        let scanner = try contents(expecting: .bytes, as: Data.self)
        return bytes[scanner.position..<scanner.end]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try KeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try UnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: Primitive values

    func decodeNil() -> Bool { tag == .null }

    func decodeBool() throws -> Bool {
        switch tag {
        case .false: return false
        case .true: return true
        default: throw nilOrMismatch(Bool.self)
        }
    }

    func decodeInteger<Value: FixedWidthInteger>(_ type: Value.Type) throws -> Value {
        var scanner = scanner
        let found = try scanner.readTag()
        let value: Value?
        switch found {
        case .signed: value = Value(exactly: Varint.unzigzag(try scanner.readVarint()))
        case .unsigned: value = Value(exactly: try scanner.readVarint())
        default: throw nilOrMismatch(type)
        }
        guard let value else { throw scanner.corrupted("The stored number does not fit in \(Value.self).") }
        return value
    }

    func decodeDouble() throws -> Double {
        var scanner = scanner
        switch try scanner.readTag() {
        case .float64: return Double(bitPattern: try scanner.readFixed(width: 8))
        case .float32: return Double(Float(bitPattern: UInt32(try scanner.readFixed(width: 4))))
        default: throw nilOrMismatch(Double.self)
        }
    }

    func decodeFloat() throws -> Float {
        var scanner = scanner
        guard try scanner.readTag() == .float32 else { throw nilOrMismatch(Float.self) }
        return Float(bitPattern: UInt32(try scanner.readFixed(width: 4)))
    }

    func decodeString() throws -> String {
        let scanner = try contents(expecting: .string, as: String.self)
        guard let string = String(validating: bytes[scanner.position..<scanner.end], as: UTF8.self) else {
            throw scanner.corrupted("A string is not valid UTF-8.")
        }
        return string
    }

    private func nilOrMismatch(_ type: Any.Type) -> DecodingError {
        tag == .null
            ? DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Found nil."))
            : mismatch(type)
    }
}

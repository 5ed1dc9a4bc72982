/// The value tags and the bounds-checked scanner shared by ``BinaryEncoder`` and ``BinaryDecoder``.
///
/// Every value starts with a one-byte tag, so a decoder can tell `nil` from a value in an
/// unkeyed container and skip values it does not need without knowing their types. Containers
/// carry their byte length, so skipping one is O(1). Layout: `Docs/Design.md`, "Binary Codable".
enum BinaryFormat {
    static let version: UInt8 = 0x01
    // Deep enough for any reasonable model, shallow enough that decoding a hostile, deeply
    // nested input (3 bytes a level) cannot exhaust the stack.
    static let maximumDepth = 256

    enum Tag: UInt8 {
        case null = 0x00
        case `false` = 0x01
        case `true` = 0x02
        case signed = 0x03
        case unsigned = 0x04
        case float32 = 0x05
        case float64 = 0x06
        case string = 0x07
        case bytes = 0x08
        case keyed = 0x09
        case unkeyed = 0x0A
    }

    /// A read cursor over one region of the input; every read checks the region's end.
    struct Scanner {
        let bytes: [UInt8]
        var position: Int
        let end: Int
        let codingPath: [any CodingKey]

        func corrupted(_ message: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: message))
        }

        mutating func readByte() throws(DecodingError) -> UInt8 {
            guard position < end else { throw corrupted("The binary value ends early at byte \(position).") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func readTag() throws(DecodingError) -> Tag {
            let raw = try readByte()
            guard let tag = Tag(rawValue: raw) else {
                throw corrupted("Byte \(position - 1) holds the unknown value tag 0x\(String(raw, radix: 16)).")
            }
            return tag
        }

        mutating func readVarint() throws(DecodingError) -> UInt64 {
            guard let value = Varint.read(bytes, at: &position, end: end) else {
                throw corrupted("The varint at byte \(position) is cut off or overlong.")
            }
            return value
        }

        /// Reads a varint length and checks it against the bytes that remain, before any use.
        mutating func readLength() throws(DecodingError) -> Int {
            let length = try readVarint()
            guard length <= UInt64(end - position) else {
                throw corrupted("A length of \(length) at byte \(position) exceeds the \(end - position) bytes left.")
            }
            return Int(length)
        }

        mutating func readFixed(width: Int) throws(DecodingError) -> UInt64 {
            guard end - position >= width else {
                throw corrupted("A \(width)-byte number is cut off at byte \(position).")
            }
            var value: UInt64 = 0
            for offset in 0..<width { value |= UInt64(bytes[position + offset]) << (8 * offset) }
            position += width
            return value
        }

        /// Skips one tagged value and returns the offset just past it.
        mutating func skipValue() throws(DecodingError) -> Int {
            switch try readTag() {
            case .null, .false, .true: break
            case .signed, .unsigned: _ = try readVarint()
            case .float32: position += try readLength(fixed: 4)
            case .float64: position += try readLength(fixed: 8)
            case .string, .bytes, .keyed, .unkeyed: position += try readLength()
            }
            return position
        }

        private func readLength(fixed width: Int) throws(DecodingError) -> Int {
            guard end - position >= width else {
                throw corrupted("A \(width)-byte number is cut off at byte \(position).")
            }
            return width
        }
    }
}

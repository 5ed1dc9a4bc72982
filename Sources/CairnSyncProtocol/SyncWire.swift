import Foundation

/// The protocol's byte layout: how batches, pages and push answers travel between replicas and
/// the server, and how the server keeps batches and rows. Compact and self-delimiting, so the
/// server serves a page by joining the stored bytes of its batches without decoding them; every
/// read is bounds-checked and throws ``SyncProtocolError`` (`badRequest`) on bytes that do not
/// parse. JSON stays the format of refusals (``SyncProtocolError``) only.
///
/// Layout (integers big-endian; `n` a LEB128 unsigned count or length):
/// - message: `version` (1 byte, 1) then the value;
/// - SyncID: 16 bytes; SyncStamp: clock (8) + replica (SyncID);
/// - string, data: `n` + bytes;
/// - FieldValue: tag 0 null | 1 value: type string + data | 2 reference: SyncID | 3 references: `n` + SyncIDs |
///   4 sealed: data (a zone's key seals another FieldValue, `Docs/Sync.md`);
/// - RowChange: entity string, id, deleted (0 | 1 + stamp), `n` fields of name string + stamp + FieldValue;
/// - ChangeBatch: id, replica, `n` rows; StoredBatch: position (8) + ChangeBatch;
/// - ChangesPage: position (8), more (1), `n` stored batches; SnapshotPage: position (8), more (1), `n` rows;
/// - PushResult: position (8), duplicate (1).
///
/// ```swift
/// let bytes = SyncWire.encode(batch)
/// let again = try SyncWire.decode(ChangeBatch.self, from: bytes)
/// ```
public enum SyncWire {
    /// The layout's version, the first byte of every message.
    public static let version: UInt8 = 1
    /// The media type of a message.
    public static let contentType = "application/vnd.cairn-sync"

    /// The bytes of a message holding `value`.
    ///
    /// ```swift
    /// request.httpBody = Data(SyncWire.encode(batch))
    /// ```
    public static func encode(_ value: some SyncWireCodable) -> [UInt8] {
        var writer = SyncWireWriter()
        writer.bytes.append(version)
        value.write(to: &writer)
        return writer.bytes
    }

    /// The value of a message; throws ``SyncProtocolError`` (`badRequest`) on bytes that do
    /// not parse whole.
    ///
    /// ```swift
    /// let page = try SyncWire.decode(ChangesPage.self, from: Array(data))
    /// ```
    public static func decode<Value: SyncWireCodable>(_ type: Value.Type, from bytes: some Collection<UInt8>) throws -> Value {
        var reader = SyncWireReader(Array(bytes))
        let found = try reader.byte()
        guard found == version else { throw SyncWireReader.malformed("version \(found), expected \(version)") }
        let value = try Value(from: &reader)
        guard reader.isAtEnd else { throw SyncWireReader.malformed("\(reader.remaining) bytes after the \(Value.self)") }
        return value
    }

    /// A changes page from the stored bytes of its batches (each a ``ChangeBatch`` without the
    /// version byte, as ``bodyBytes(_:)`` gives): what the server answers without decoding.
    ///
    /// ```swift
    /// let page = SyncWire.changesPage(batches: stored.map { ($0.position, $0.body) }, position: last, more: false)
    /// ```
    public static func changesPage(batches: [(position: Int64, body: [UInt8])], position: Int64, more: Bool) -> [UInt8] {
        var writer = SyncWireWriter()
        writer.bytes.append(version)
        writer.integer(position)
        writer.flag(more)
        writer.count(batches.count)
        for batch in batches {
            writer.integer(batch.position)
            writer.bytes += batch.body
        }
        return writer.bytes
    }

    /// A snapshot page from the stored bytes of its rows (each a ``RowChange`` without the
    /// version byte).
    ///
    /// ```swift
    /// let page = SyncWire.snapshotPage(rows: states, position: last, more: true)
    /// ```
    public static func snapshotPage(rows: [[UInt8]], position: Int64, more: Bool) -> [UInt8] {
        var writer = SyncWireWriter()
        writer.bytes.append(version)
        writer.integer(position)
        writer.flag(more)
        writer.count(rows.count)
        for row in rows { writer.bytes += row }
        return writer.bytes
    }

    /// A value's bytes without the version byte: how the server stores a batch or a row, to
    /// join into pages.
    ///
    /// ```swift
    /// let body = SyncWire.bodyBytes(batch)
    /// ```
    public static func bodyBytes(_ value: some SyncWireCodable) -> [UInt8] {
        var writer = SyncWireWriter()
        value.write(to: &writer)
        return writer.bytes
    }

    /// A value from stored bytes without the version byte.
    ///
    /// ```swift
    /// let row = try SyncWire.decodeBody(RowChange.self, from: state)
    /// ```
    public static func decodeBody<Value: SyncWireCodable>(_ type: Value.Type, from bytes: some Collection<UInt8>) throws -> Value {
        var reader = SyncWireReader(Array(bytes))
        let value = try Value(from: &reader)
        guard reader.isAtEnd else { throw SyncWireReader.malformed("\(reader.remaining) bytes after the \(Value.self)") }
        return value
    }
}

/// A value with a layout in ``SyncWire``.
public protocol SyncWireCodable {
    /// Appends the value's bytes.
    func write(to writer: inout SyncWireWriter)
    /// Reads a value, throwing on bytes that do not parse.
    init(from reader: inout SyncWireReader) throws
}

/// Appends ``SyncWire`` bytes.
public struct SyncWireWriter {
    /// The bytes so far.
    public var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    package mutating func integer(_ value: some FixedWidthInteger) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    package mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    package mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    package mutating func id(_ id: SyncID) {
        integer(id.high)
        integer(id.low)
    }

    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            count(utf8.count)
            bytes += utf8
        }
    }

    package mutating func data(_ data: Data) {
        count(data.count)
        bytes += data
    }

    package mutating func list(_ values: [some SyncWireCodable]) {
        count(values.count)
        for value in values { value.write(to: &self) }
    }
}

/// Reads ``SyncWire`` bytes, checking every length against what is left.
public struct SyncWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }
    package var remaining: Int { bytes.count - offset }

    package static func malformed(_ detail: String) -> SyncProtocolError {
        SyncProtocolError(code: .badRequest, message: "The sync message is malformed: \(detail).")
    }

    package mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw Self.malformed("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func take(_ length: Int) throws -> ArraySlice<UInt8> {
        guard length >= 0, length <= remaining else { throw Self.malformed("a length of \(length) runs past its end") }
        defer { offset += length }
        return bytes[offset..<(offset + length)]
    }

    package mutating func integer<T: FixedWidthInteger>(_ type: T.Type = T.self) throws -> T {
        try take(MemoryLayout<T>.size).reduce(T.zero) { $0 << 8 | T($1) }
    }

    package mutating func flag() throws -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw Self.malformed("a flag of \(other)")
        }
    }

    /// A count of elements each at least `minimumSize` bytes long, so a hostile count cannot
    /// ask for more than the message holds; with `minimumSize` 0, a number bounded only by `Int`.
    package mutating func count(minimumSize: Int = 1) throws -> Int {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 63, by: 7) {
            let next = try byte()
            value |= UInt64(next & 0x7f) << UInt64(shift)
            if next < 0x80 {
                let bound = minimumSize > 0 ? UInt64(remaining / minimumSize) : UInt64(Int.max)
                guard value <= bound else { throw Self.malformed("a count of \(value) is more than the message holds") }
                return Int(value)
            }
        }
        throw Self.malformed("a count longer than 9 bytes")
    }

    package mutating func id() throws -> SyncID {
        SyncID(high: try integer(), low: try integer())
    }

    package mutating func string() throws -> String {
        let utf8 = try take(try count())
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Self.malformed("a string that is not UTF-8") }
        return text
    }

    package mutating func data() throws -> Data { Data(try take(try count())) }

    /// A list of values, each at least `minimumSize` bytes long.
    package mutating func list<Value: SyncWireCodable>(of type: Value.Type, minimumSize: Int) throws -> [Value] {
        let count = try count(minimumSize: minimumSize)
        var values: [Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try Value(from: &self)) }
        return values
    }
}

/// Builds one stored record: a format byte, tagged fields in ascending tag order, a checksum.
///
/// Layout (see `Docs/Design.md`, "Records"): byte `0x01`, then for each field the varint
/// `tag << 3 | wireType` and its payload, then four little-endian checksum bytes: the CRC-32C
/// of everything before them, XOR the CRC-32C of the key the record is stored under (see
/// ``EncodedRecord``; a record built in memory is sealed for no key, whose CRC-32C is 0).
/// Write fields in strictly ascending tag order and skip absent optionals; the ``write(_:tag:)-(Value)`` overloads for optionals do that for you.
///
/// ```swift
/// var writer = RecordWriter()
/// writer.write("Ada", tag: 1)
/// writer.write(1815 as Int, tag: 2)
/// try writer.write(["analyst", "writer"], tag: 3)   // Codable, binary-encoded
/// let record = writer.finished()
///
/// let reader = try RecordReader(record)
/// let name = try reader.read(String.self, tag: 1)   // "Ada"
/// ```
package struct RecordWriter: Sendable {
    /// The format byte that starts every record this writer builds.
    ///
    /// ```swift
    /// assert(RecordWriter().finished().first == RecordWriter.formatVersion)
    /// ```
    package static let formatVersion: UInt8 = 0x01

    /// The largest field tag (2²⁹ − 1, as in Protocol Buffers).
    ///
    /// ```swift
    /// writer.write(true, tag: RecordWriter.maximumTag)
    /// ```
    package static let maximumTag: UInt32 = (1 << 29) - 1

    private var payload: FieldPayloadWriter
    private var lastTag: UInt32 = 0
    /// Where the record starts in ``payload``'s bytes: 0, or the end of the records before it
    /// when the writer appends to a ``RecordList``'s bytes.
    private var start = 0

    /// Creates a writer for one record.
    ///
    /// ```swift
    /// var writer = RecordWriter(capacity: 256)
    /// ```
    ///
    /// - Parameters:
    ///   - capacity: The number of bytes to reserve; a good guess saves reallocations.
    /// A writer that holds no bytes yet and allocated none: something to swap a writer out
    /// with. Write nothing into it.
    package static var empty: RecordWriter { RecordWriter(placeholder: ()) }

    private init(placeholder: Void) { payload = FieldPayloadWriter(capacity: 0) }

    package init(capacity: Int = 64) {
        payload = FieldPayloadWriter(capacity: max(capacity, 5))
        payload.bytes.append(RecordWriter.formatVersion)
    }

    /// A writer whose record follows `bytes`, the records before it in a ``RecordList``: one
    /// array holds them all, where a record each would be an allocation per model.
    ///
    /// ```swift
    /// var writer = RecordWriter(appendingTo: bytes)
    /// writer.write(42 as Int64, tag: 1)
    /// let (all, checksum) = writer.finishAppended()
    /// ```
    package init(appendingTo bytes: consuming [UInt8]) {
        // Moved, never copied: a second reference to the bytes would make the first append
        // copy every record before this one.
        start = bytes.count
        payload = FieldPayloadWriter(appendingTo: consume bytes)
        payload.bytes.append(RecordWriter.formatVersion)
    }

    /// Writes one field of a ``FieldCodable`` value.
    ///
    /// Tags must be written in strictly ascending order, from 1 to ``maximumTag``; anything else
    /// is a programming error and stops the program.
    ///
    /// ```swift
    /// writer.write(42 as Int64, tag: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - tag: The field's stable number.
    package mutating func write<Value: FieldCodable>(_ value: Value, tag: UInt32) {
        precondition(
            tag > lastTag && tag <= RecordWriter.maximumTag,
            "RecordWriter.write(_:tag:) needs tags in strictly ascending order from 1 to 2^29-1; got \(tag) after \(lastTag)"
        )
        lastTag = tag
        let wireType = Value.wireType
        payload.writeVarint(UInt64(tag) << 3 | UInt64(wireType.rawValue))
        guard wireType == .lengthDelimited else {
            let start = payload.bytes.count
            value.encodeField(into: &payload)
            assert(RecordWriter.isValid(payload.bytes[start...], for: wireType), "\(Value.self) wrote a bad payload")
            return
        }
        // Most payloads are shorter than 128 bytes, so reserve one length byte and widen it
        // afterwards only when needed; the memmove is cheaper than encoding to a scratch array.
        let lengthIndex = payload.bytes.count
        payload.bytes.append(0)
        value.encodeField(into: &payload)
        let length = payload.bytes.count - lengthIndex - 1
        if length < 0x80 {
            payload.bytes[lengthIndex] = UInt8(length)
        } else {
            var prefix: [UInt8] = []
            Varint.append(UInt64(length), to: &prefix)
            payload.bytes.replaceSubrange(lengthIndex...lengthIndex, with: prefix)
        }
    }

    /// Writes a field carrying the given payload exactly, for example one copied from an older
    /// record whose tag this version does not know.
    ///
    /// ```swift
    /// for tag in reader.tags where !knownTags.contains(tag) {
    ///     writer.write(payload: reader.payload(tag: tag)!, tag: tag)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The payload to store.
    ///   - tag: The field's stable number, greater than every tag written so far.
    package mutating func write(payload fieldPayload: FieldPayload, tag: UInt32) {
        precondition(
            tag > lastTag && tag <= RecordWriter.maximumTag,
            "RecordWriter.write(payload:tag:) needs tags in strictly ascending order from 1 to 2^29-1; got \(tag) after \(lastTag)"
        )
        lastTag = tag
        payload.writeVarint(UInt64(tag) << 3 | UInt64(fieldPayload.wireType.rawValue))
        switch fieldPayload {
        case .varint(let value): payload.writeVarint(value)
        case .fixed32(let value): payload.writeFixed32(value)
        case .fixed64(let value): payload.writeFixed64(value)
        case .bytes(let bytes):
            payload.writeVarint(UInt64(bytes.count))
            payload.writeBytes(bytes)
        }
    }

    /// Finishes the record by appending its checksum, and returns its bytes sealed for no key.
    ///
    /// Such a record is for use in memory (``RecordReader/init(_:)`` reads it). A record to
    /// store is made with ``encoded()`` and sealed for its key.
    ///
    /// ```swift
    /// let reader = try RecordReader(writer.finished())
    /// ```
    ///
    /// - Returns: The complete record, its checksum over its content only.
    package consuming func finished() -> [UInt8] {
        encoded().bytes
    }

    /// Finishes a record begun with ``init(appendingTo:)`` by appending its content checksum.
    ///
    /// ```swift
    /// let (all, checksum) = writer.finishAppended()   // the records before it, then this one
    /// ```
    ///
    /// - Returns: Every byte given to the writer followed by the record, sealed for no key, and
    ///   the record's content checksum.
    package mutating func finishAppended() -> (bytes: [UInt8], contentChecksum: UInt32) {
        let start = start
        let checksum = payload.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        // Taken out of the payload writer, so the checksum is appended in place: a second
        // reference would make the append copy the records.
        var bytes: [UInt8] = []
        swap(&bytes, &payload.bytes)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: checksum >> shift)) }
        return (bytes, checksum)
    }

    /// Finishes the record by appending its content checksum, to be sealed for the key it is
    /// stored under (see ``EncodedRecord``).
    ///
    /// ```swift
    /// var record = writer.encoded()
    /// try transaction.put(record.sealed(forRow: row), for: EntryLayout.rowKey(row), in: table)
    /// ```
    ///
    /// - Returns: The complete record, sealed for no key.
    package consuming func encoded() -> EncodedRecord {
        precondition(start == 0, "RecordWriter.encoded(): a writer appending to a list finishes with finishAppended()")
        let (bytes, checksum) = finishAppended()
        return EncodedRecord(unkeyed: bytes, contentChecksum: checksum)
    }

    private static func isValid(_ written: ArraySlice<UInt8>, for wireType: WireType) -> Bool {
        switch wireType {
        case .varint: (1...Varint.maximumLength).contains(written.count)
        case .fixed32: written.count == 4
        case .fixed64: written.count == 8
        case .lengthDelimited: true
        }
    }
}

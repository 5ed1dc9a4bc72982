/// Parses one stored record and hands out its fields by tag.
///
/// The initializer verifies the checksum (over the content and the key the record was read
/// under, see ``EncodedRecord``) before looking at anything else, then walks the
/// fields once, checking every length with overflow-safe arithmetic, and indexes them. It
/// rejects tags that are not strictly ascending (so a duplicate tag is damage), unknown wire
/// types, and bytes left between the last field and the checksum. Fields whose tags the caller
/// never asks for are simply skipped, so records written by a newer schema stay readable.
/// It never allocates more than its input holds.
///
/// ```swift
/// let reader = try RecordReader(record)
/// let name = try reader.read(String.self, tag: 1) ?? ""
/// let nickname = try reader.read(String?.self, tag: 7)     // nil when absent
/// ```
package struct RecordReader: Sendable {
    struct Field: Sendable {
        var tag: UInt32
        var wireType: WireType
        /// The payload's bounds in ``storage``.
        var start: Int
        var end: Int
        var scalar: UInt64
    }

    /// The record's bytes, checksum included.
    ///
    /// ```swift
    /// let copy = reader.bytes
    /// ```
    package var bytes: [UInt8] { byteRange == storage.indices ? storage : Array(storage[byteRange]) }

    /// The checksum of the record's content (its stored checksum without the key's part):
    /// which version of a row a model's values came from, whatever key it was read under.
    ///
    /// ```swift
    /// if reader.checksum != lastSeen { … }   // the row was rewritten
    /// ```
    package var checksum: UInt32 { EncodedRecord.storedChecksum(of: storage, in: byteRange) ^ keyChecksum }

    /// The CRC-32C of the key the record was read under (0 for no key).
    private let keyChecksum: UInt32
    /// The record's bytes: its own, or a ``RecordBatch``'s, of which it is ``byteRange``.
    private let storage: [UInt8]
    private let byteRange: Range<Int>
    /// The record's fields: its own, or a batch's, of which they are ``fieldRange``.
    private let fieldStorage: [Field]
    private let fieldRange: Range<Int>

    /// Parses a record built in memory (sealed for no key), without copying it.
    ///
    /// A record read from the store is parsed with the key it was stored under instead
    /// (``init(_:key:)``, ``init(copying:key:)``).
    ///
    /// ```swift
    /// let reader = try RecordReader(writer.finished())
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: A record as ``RecordWriter/finished()`` produced it.
    /// - Throws: `StorageError` with code `.damagedRecord` when the checksum does not match or
    ///   the bytes are not a well-formed record, and `.versionMismatch` when the record has a
    ///   valid checksum but a format byte this version does not know.
    package init(_ bytes: [UInt8]) throws(StorageError) {
        try self.init(bytes, keyChecksum: 0)
    }

    /// Parses a record read from the store under `key`, without copying it.
    ///
    /// The record's checksum covers the key too (see ``EncodedRecord``), so a record read under
    /// another key than the one it was stored under (a damaged row key) is damage.
    ///
    /// ```swift
    /// let reader = try RecordReader(stored, key: EntryLayout.rowKey(row))
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The stored record.
    ///   - key: The key it was read under.
    /// - Throws: `StorageError` as ``init(_:)`` does; `.damagedRecord` also when the checksum
    ///   does not match the key.
    package init(_ bytes: [UInt8], key: [UInt8]) throws(StorageError) {
        try self.init(bytes, keyChecksum: CRC32C.checksum(key))
    }

    /// Parses a record borrowed from the store under `key`, copying it first.
    ///
    /// The copy lets the reader outlive the buffer (for example bytes borrowed from LMDB inside
    /// a read transaction).
    ///
    /// ```swift
    /// try txn.scan(records) { key, value in readers.append(try RecordReader(copying: value, key: key)) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: The stored record.
    ///   - key: The key it was read under.
    /// - Throws: `StorageError` as ``init(_:key:)`` does.
    package init(copying buffer: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(StorageError) {
        var crc = CRC32C()
        crc.update(key)
        try self.init(Array(buffer), keyChecksum: crc.value)
    }

    /// A record borrowed from the store, with the key it was read under in an array.
    ///
    /// ```swift
    /// let reader = try txn.withValue(for: key, in: records) { try RecordReader(copying: $0, key: key) }
    /// ```
    /// - Throws: `StorageError` as ``init(_:key:)`` does.
    package init(copying buffer: UnsafeRawBufferPointer, key: [UInt8]) throws(StorageError) {
        try self.init(Array(buffer), keyChecksum: CRC32C.checksum(key))
    }

    private init(_ bytes: [UInt8], keyChecksum: UInt32) throws(StorageError) {
        var fields: [Field] = []
        // One allocation for a typical record, instead of regrowing at 1, 2, 4 and 8 fields.
        fields.reserveCapacity(min(16, bytes.count / 2))
        try RecordReader.index(bytes, bytes.indices, keyChecksum: keyChecksum, into: &fields)
        self.init(
            storage: bytes, byteRange: bytes.indices, fields: fields, fieldRange: fields.indices,
            keyChecksum: keyChecksum)
    }

    /// A record already indexed, in storage it may share with other records.
    init(
        storage: [UInt8], byteRange: Range<Int>, fields: [Field], fieldRange: Range<Int>, keyChecksum: UInt32
    ) {
        self.storage = storage
        self.byteRange = byteRange
        fieldStorage = fields
        self.fieldRange = fieldRange
        self.keyChecksum = keyChecksum
    }

    /// The tags of the fields present, in ascending order.
    ///
    /// ```swift
    /// let unknown = reader.tags.filter { !knownTags.contains($0) }
    /// ```
    package var tags: [UInt32] { fieldStorage[fieldRange].map(\.tag) }

    /// Whether a field with this tag is present.
    ///
    /// ```swift
    /// if !reader.contains(tag: 3) { useDefault() }
    /// ```
    ///
    /// - Parameters:
    ///   - tag: The field's stable number.
    /// - Returns: `true` when the record carries that field.
    package func contains(tag: UInt32) -> Bool {
        fieldIndex(of: tag) != nil
    }

    /// Returns a field's payload, or `nil` when the record does not carry that tag.
    ///
    /// ```swift
    /// if case .bytes(let raw)? = reader.payload(tag: 9) { blob = Data(raw) }
    /// ```
    ///
    /// - Parameters:
    ///   - tag: The field's stable number.
    /// - Returns: The payload, with no copy of length-delimited bytes.
    /// - Complexity: O(log *n*) in the number of fields.
    package func payload(tag: UInt32) -> FieldPayload? {
        guard let index = fieldIndex(of: tag) else { return nil }
        return Self.payloadOf(fieldStorage[index], storage)
    }

    /// The payload of `field`, found in `bytes`.
    static func payloadOf(_ field: Field, _ bytes: [UInt8]) -> FieldPayload {
        switch field.wireType {
        case .varint: .varint(field.scalar)
        case .fixed32: .fixed32(UInt32(truncatingIfNeeded: field.scalar))
        case .fixed64: .fixed64(field.scalar)
        case .lengthDelimited: .bytes(bytes[field.start..<field.end])
        }
    }

    /// The position in ``fieldStorage`` of the field with this tag.
    private func fieldIndex(of tag: UInt32) -> Int? {
        // Tags are usually dense from 1, every field present: field `tag - 1` is the one, and a
        // generated codec reads them in that order. Otherwise a binary search (tags ascend).
        let guess = fieldRange.lowerBound &+ Int(truncatingIfNeeded: tag) &- 1
        if guess >= fieldRange.lowerBound && guess < fieldRange.upperBound && fieldStorage[guess].tag == tag {
            return guess
        }
        var low = fieldRange.lowerBound
        var high = fieldRange.upperBound
        while low < high {
            let middle = (low + high) / 2
            if fieldStorage[middle].tag < tag { low = middle + 1 } else { high = middle }
        }
        return low < fieldRange.upperBound && fieldStorage[low].tag == tag ? low : nil
    }

    /// Verifies the record at `range` of `bytes` and appends its fields to `fields`, with their
    /// payloads' bounds in `bytes`. Appends nothing when it throws.
    static func index(
        _ bytes: [UInt8], _ range: Range<Int>, keyChecksum: UInt32, into fields: inout [Field]
    ) throws(StorageError) {
        try bytes.withRawBytes { bytes throws(StorageError) in
            let end = try checkFrame(bytes, range, keyChecksum: keyChecksum)
            try indexFields(bytes, range, end: end, into: &fields)
        }
    }

    /// Appends the fields of the record at `range` of `bytes`, whose frame ``checkFrame(_:_:keyChecksum:)``
    /// checked (its fields end at `end`). Appends nothing when it throws.
    static func indexFields(
        _ bytes: [UInt8], _ range: Range<Int>, end: Int, into fields: inout [Field]
    ) throws(StorageError) {
        try bytes.withRawBytes { bytes throws(StorageError) in try indexFields(bytes, range, end: end, into: &fields) }
    }

    private static func indexFields(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, end: Int, into fields: inout [Field]
    ) throws(StorageError) {
        let firstField = fields.count
        // Nothing of this record stays in `fields` if it turns out damaged.
        var complete = false
        defer { if !complete { fields.removeSubrange(firstField...) } }
        var position = range.lowerBound + 1
        var lastTag: UInt32 = 0
        while position < end {
            fields.append(try nextField(bytes, at: &position, end: end, after: &lastTag, recordStart: range.lowerBound))
        }
        complete = true
    }

    /// The payload of the field with `tag` in the record at `range` of `bytes`, whose frame
    /// ``checkFrame(_:_:keyChecksum:)`` checked (its fields end at `end`), walking only the
    /// fields before it; `nil` when the record does not carry it.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when a field before it is malformed.
    static func payload(
        tag: UInt32, in bytes: [UInt8], _ range: Range<Int>, end: Int
    ) throws(StorageError) -> FieldPayload? {
        let field = try bytes.withRawBytes { raw throws(StorageError) in try self.field(tag: tag, in: raw, range, end: end) }
        return field.map { payloadOf($0, bytes) }
    }

    /// The field with `tag` of the record at `range` of `bytes` (as ``payload(tag:in:_:end:)``).
    static func field(
        tag: UInt32, in bytes: UnsafeRawBufferPointer, _ range: Range<Int>, end: Int
    ) throws(StorageError) -> Field? {
        var position = range.lowerBound + 1
        var lastTag: UInt32 = 0
        while position < end {
            let field = try nextField(bytes, at: &position, end: end, after: &lastTag, recordStart: range.lowerBound)
            if field.tag >= tag { return field.tag == tag ? field : nil }
        }
        return nil
    }

    /// Reads the field at `position` (header and payload, bounds-checked against `end`), whose tag
    /// must follow `lastTag`; `position` moves past it and `lastTag` becomes its tag.
    @inline(__always)
    private static func nextField(
        _ bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int, after lastTag: inout UInt32, recordStart: Int
    ) throws(StorageError) -> Field {
        // Positions in messages count from the record's first byte.
        let fieldStart = position - recordStart
        guard let header = Varint.read(bytes, at: &position, end: end) else {
            throw StorageError.damagedRecord("The field header at byte \(fieldStart) is cut off or overlong.")
        }
        let rawTag = header >> 3
        guard rawTag >= 1, rawTag <= UInt64(RecordWriter.maximumTag) else {
            throw StorageError.damagedRecord("The field at byte \(fieldStart) has the invalid tag \(rawTag).")
        }
        let tag = UInt32(rawTag)
        guard let wireType = WireType(rawValue: UInt8(header & 7)) else {
            throw StorageError.damagedRecord("The field \(tag) has the unknown wire type \(header & 7).")
        }
        guard tag > lastTag else {
            throw StorageError.damagedRecord(
                tag == lastTag
                    ? "The field \(tag) appears twice."
                    : "The field \(tag) follows field \(lastTag); tags must ascend."
            )
        }
        lastTag = tag
        var field = Field(tag: tag, wireType: wireType, start: position, end: position, scalar: 0)
        try readPayload(of: &field, bytes, at: &position, end: end)
        field.end = position
        return field
    }

    /// Checks the record's size, checksum and format byte; returns where its fields end (its
    /// checksum's first byte).
    @inline(__always)
    static func checkFrame(
        _ bytes: [UInt8], _ range: Range<Int>, keyChecksum: UInt32
    ) throws(StorageError) -> Int {
        try bytes.withRawBytes { bytes throws(StorageError) in try checkFrame(bytes, range, keyChecksum: keyChecksum) }
    }

    /// The same over raw bytes; `range` must lie within them.
    @inline(__always)
    static func checkFrame(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, keyChecksum: UInt32
    ) throws(StorageError) -> Int {
        // Every read below is within `range`: this makes it within `bytes`.
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "A record range outside its buffer")
        guard range.count >= 5 else {
            throw StorageError.damagedRecord(
                "The record is \(range.count) bytes long, shorter than the 5-byte minimum.")
        }
        let end = range.upperBound - 4
        var crc = CRC32C()
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<end]))
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self))
        guard crc.value ^ keyChecksum == stored else {
            throw StorageError.damagedRecord("The record's checksum does not match its contents and key.")
        }
        guard bytes[range.lowerBound] == RecordWriter.formatVersion else {
            throw StorageError(
                code: .versionMismatch,
                message: "The record has format \(bytes[range.lowerBound]), but this version of Cairn reads format "
                    + "\(RecordWriter.formatVersion) only. Open the store with the release that wrote it."
            )
        }
        return end
    }

    /// Reads the payload of `field` (its tag and wire type read) at `position`, bounds-checked
    /// against `end`: a varint's or fixed value's scalar, or a length-delimited payload's start;
    /// `position` moves past it.
    @inline(__always)
    private static func readPayload(
        of field: inout Field, _ bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int
    ) throws(StorageError) {
        let tag = field.tag
        switch field.wireType {
        case .varint:
            guard let value = Varint.read(bytes, at: &position, end: end) else {
                throw StorageError.damagedRecord("The varint of field \(tag) is cut off or overlong.")
            }
            field.scalar = value
        case .fixed32, .fixed64:
            let isFixed32 = field.wireType == .fixed32
            let width = isFixed32 ? 4 : 8
            guard end - position >= width else {
                throw StorageError.damagedRecord("The field \(tag) needs \(width) bytes but \(end - position) remain.")
            }
            // Little-endian, in one load (the bounds are checked above).
            field.scalar =
                isFixed32
                ? UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                : UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position += width
        case .lengthDelimited:
            guard let length = Varint.read(bytes, at: &position, end: end) else {
                throw StorageError.damagedRecord("The length of field \(tag) is cut off or overlong.")
            }
            // Compare in UInt64 before converting: a huge claimed length must not trap or wrap.
            guard length <= UInt64(end - position) else {
                throw StorageError.damagedRecord(
                    "The field \(tag) claims \(length) bytes but only \(end - position) remain.")
            }
            field.start = position
            position += Int(length)
        }
    }
}

extension RecordReader {
    /// ``RecordScanner/fields(of:into:)`` over the record at the start of `bytes`, whose fields end at `end`.
    static func fields(
        of tags: [UInt32], in bytes: UnsafeRawBufferPointer, end: Int, into fields: inout [Field?]
    ) throws(StorageError) {
        var position = 1
        var lastTag: UInt32 = 0
        var wanted = 0
        while wanted < tags.count && position < end {
            let field = try nextField(bytes, at: &position, end: end, after: &lastTag, recordStart: 0)
            while wanted < tags.count && tags[wanted] < field.tag {
                fields[wanted] = nil
                wanted += 1
            }
            if wanted < tags.count && tags[wanted] == field.tag {
                fields[wanted] = field
                wanted += 1
            }
        }
        while wanted < tags.count {
            fields[wanted] = nil
            wanted += 1
        }
    }
}

/// Records read together, copied into one buffer and indexed into one field list, so a batch of
/// records costs two allocations instead of two per record (each reader's own copy and field
/// list would be most of the allocations of a model fetched, after the model itself).
///
/// ```swift
/// var batch = RecordBatch()
/// try txn.scan(records) { key, value in try batch.append(copying: value, key: key); return true }
/// let readers = batch.readers()
/// ```
package struct RecordBatch {
    private var storage: [UInt8] = []
    private var fields: [RecordReader.Field] = []
    /// A record's bytes and fields in the batch's storage, its key's checksum and its row.
    private typealias Entry = (bytes: Range<Int>, fields: Range<Int>, keyChecksum: UInt32, row: UInt64)
    private var entries: [Entry] = []

    package init() {}

    /// How many records are in the batch.
    package var count: Int { entries.count }

    /// Empties the batch for reuse, keeping its room when that is at most `limit` bytes (a batch
    /// kept between reads of a few records then allocates nothing); whether it kept it.
    ///
    /// ```swift
    /// if batch.empty(keepingUpTo: 64 << 10) { spare = batch }
    /// ```
    package mutating func empty(keepingUpTo limit: Int) -> Bool {
        let room =
            storage.capacity + fields.capacity * MemoryLayout<RecordReader.Field>.stride
            + entries.capacity * MemoryLayout<Entry>.stride
        let keeps = room <= limit
        storage.removeAll(keepingCapacity: keeps)
        fields.removeAll(keepingCapacity: keeps)
        entries.removeAll(keepingCapacity: keeps)
        return keeps
    }

    /// Room for `records` more records, as large as the batch's records so far are on average
    /// (64 bytes and 8 fields each while it is empty), so that reading a known number of records
    /// grows the batch once instead of at each doubling.
    ///
    /// ```swift
    /// batch.reserveCapacity(records: edges.count)
    /// ```
    package mutating func reserveCapacity(records: Int) {
        guard records > 0 else { return }
        let bytesEach = entries.isEmpty ? 64 : storage.count / entries.count + 1
        let fieldsEach = entries.isEmpty ? 8 : fields.count / entries.count + 1
        Self.grow(&storage, toHold: storage.count + records * bytesEach)
        Self.grow(&fields, toHold: fields.count + records * fieldsEach)
        Self.grow(&entries, toHold: entries.count + records)
    }

    /// Makes room for `count` elements, at least doubling: `reserveCapacity` alone allocates
    /// exactly what it is asked for, so reserving a little more before each owner's records
    /// would copy the batch each time.
    private static func grow<Element>(_ array: inout [Element], toHold count: Int) {
        guard count > array.capacity else { return }
        array.reserveCapacity(Swift.max(count, array.capacity * 2))
    }

    /// Copies and verifies a record borrowed from the store under `key`.
    ///
    /// - Throws: `StorageError` as ``RecordReader/init(copying:key:)`` does; the batch is
    ///   left as it was.
    ///
    /// - Parameter row: The row the record was read from, handed back by ``rowsAndReaders()``.
    package mutating func append(
        copying buffer: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, row: UInt64 = 0
    )
        throws(StorageError)
    {
        var crc = CRC32C()
        crc.update(key)
        try append(copying: buffer, keyChecksum: crc.value, row: row)
    }

    /// Copies and verifies a record borrowed from the store under `key`, as
    /// ``append(copying:key:row:)`` does, if `keeps` keeps it. `keeps` reads the record's fields
    /// by tag, walking only the fields before the one it asks for; a record it turns away leaves
    /// the batch as it was, its fields never indexed (a fetch's record tests turn away most rows
    /// of a scan this way). Returns whether the record was kept.
    ///
    /// ```swift
    /// try batch.append(copying: value, key: key, row: row) { field in (try? field(2)) != nil }
    /// ```
    ///
    /// - Throws: `StorageError` as ``append(copying:key:row:)`` does, for a record kept or not
    ///   (its checksum is checked first); a field `keeps` asks for that cannot be read throws
    ///   to `keeps`.
    @discardableResult
    package mutating func append(
        copying buffer: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, row: UInt64,
        if keeps: (_ field: (UInt32) throws(StorageError) -> FieldPayload?) -> Bool
    ) throws(StorageError) -> Bool {
        var crc = CRC32C()
        crc.update(key)
        let keyChecksum = crc.value
        let start = storage.count
        storage.append(contentsOf: buffer)
        let range = start..<storage.count
        do {
            let end = try RecordReader.checkFrame(storage, range, keyChecksum: keyChecksum)
            let kept = keeps { (tag) throws(StorageError) in
                try RecordReader.payload(tag: tag, in: storage, range, end: end)
            }
            guard kept else {
                storage.removeSubrange(start...)
                return false
            }
            Self.grow(&fields, toHold: fields.count + 16)
            let firstField = fields.count
            try RecordReader.indexFields(storage, range, end: end, into: &fields)
            entries.append((range, firstField..<fields.count, keyChecksum, row))
            return true
        } catch {
            storage.removeSubrange(start...)
            throw error
        }
    }

    /// The same, with the key in an array.
    package mutating func append(
        copying buffer: UnsafeRawBufferPointer, key: [UInt8], row: UInt64 = 0
    ) throws(StorageError) {
        try append(copying: buffer, keyChecksum: CRC32C.checksum(key), row: row)
    }

    private mutating func append(
        copying buffer: UnsafeRawBufferPointer, keyChecksum: UInt32, row: UInt64
    ) throws(StorageError) {
        let start = storage.count
        storage.append(contentsOf: buffer)
        // Room for a typical record's fields, growing geometrically, instead of regrowing at 1,
        // 2, 4 and 8 fields.
        Self.grow(&fields, toHold: fields.count + 16)
        let firstField = fields.count
        do {
            try RecordReader.index(storage, start..<storage.count, keyChecksum: keyChecksum, into: &fields)
        } catch {
            storage.removeSubrange(start...)
            throw error
        }
        entries.append((start..<storage.count, firstField..<fields.count, keyChecksum, row))
    }

    /// A reader for each record, in the order appended, sharing the batch's storage.
    package func readers() -> [RecordReader] { entries.indices.map(reader) }

    /// Each record's reader with the row it was appended for, in the order appended (the rows
    /// travel in the batch: a list of them beside it would be an allocation per read).
    ///
    /// ```swift
    /// try batch.append(copying: value, key: key, row: 7)
    /// let (row, reader) = batch.rowsAndReaders()[0]   // row 7
    /// ```
    package func rowsAndReaders() -> Rows { Rows(batch: self) }

    /// The batch's records with their rows, each reader made when it is read: no array of them
    /// (an allocation per fetch, and a reader's two references to retain per record, made
    /// whether or not it was read).
    package struct Rows: RandomAccessCollection {
        fileprivate let batch: RecordBatch

        package var startIndex: Int { 0 }
        package var endIndex: Int { batch.entries.count }

        package subscript(position: Int) -> (UInt64, RecordReader) {
            (batch.entries[position].row, batch.reader(position))
        }
    }

    private func reader(_ position: Int) -> RecordReader {
        let entry = entries[position]
        return RecordReader(
            storage: storage, byteRange: entry.bytes, fields: fields, fieldRange: entry.fields,
            keyChecksum: entry.keyChecksum)
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws only `StorageError` (the standard one rethrows
    /// untyped errors).
    ///
    /// ```swift
    /// let end = try record.withRawBytes { bytes throws(StorageError) in try RecordReader.checkFrame(bytes, range, keyChecksum: 0) }
    /// ```
    @inline(__always)
    func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError) -> R {
        try withUnsafeBytes { raw in Result { () throws(StorageError) in try body(raw) } }.get()
    }
}

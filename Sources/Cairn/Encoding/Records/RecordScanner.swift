import CairnStorage
import Foundation

/// Reads chosen fields of records borrowed from the store, one record after another: each
/// record's checksum (with its key) and format are checked where LMDB keeps it, and only the
/// fields asked for are found, in one walk. A field comes back as its place in the record
/// (``RecordReader/Field``, a plain value), so a scan that aggregates a million rows makes no
/// reader, payload, array or reference count per row; ``payload(of:)`` makes a payload when one
/// is needed.
///
/// A record loaded with ``load(_:key:)`` is read in place: the scanner is valid only while that
/// memory is (inside the scan's closure, before the cursor moves). ``load(row:in:txn:)`` copies
/// the record, which stays readable until the next load.
///
/// ```swift
/// var scanner = RecordScanner()
/// try txn.scan(records) { key, value in
///     try scanner.load(value, key: key)
///     try scanner.fields(of: [2, 5], into: &fields)
///     return true
/// }
/// ```
package struct RecordScanner {
    /// The loaded record: the store's memory, or ``storage``'s copy.
    private var record = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Where the loaded record's fields end (before its checksum).
    private var end = 0
    private let storage = ScannerStorage()

    package init() {}

    /// Verifies a record (its checksum with `key`, and its format) and keeps it, where it is,
    /// for the field reads that follow; `value` must stay valid and unchanged while they do.
    ///
    /// ```swift
    /// try scanner.load(value, key: key)
    /// ```
    /// - Throws: `StorageError` as ``RecordReader/init(copying:key:)`` does.
    package mutating func load(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(StorageError) {
        var crc = CRC32C()
        crc.update(key)
        storage.forgetArray()
        record = UnsafeRawBufferPointer(start: nil, count: 0)
        end = try RecordReader.checkFrame(value, 0..<value.count, keyChecksum: crc.value)
        record = value
    }

    /// Loads and verifies the record of `row` in the records table `records`, copied; `false`
    /// when the row has none.
    ///
    /// ```swift
    /// if try scanner.load(row: 7, in: tables.layout.records, txn: txn) { let title = try scanner.payload(tag: 2) }
    /// ```
    /// - Throws: `StorageError` as ``load(_:key:)`` does.
    package mutating func load(row: UInt64, in records: Table, txn: borrowing ReadTransaction) throws -> Bool {
        try EntryLayout.withRowKey(row) { rowKey in
            try txn.withValue(for: rowKey, in: records) { value in try load(copying: value, key: rowKey) } != nil
        }
    }

    private mutating func load(copying value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(StorageError) {
        try load(storage.copy(value), key: key)
    }

    /// The loaded record's field with `tag`, walking the fields before it; `nil` when absent.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when a field before it is malformed.
    package func payload(tag: UInt32) throws(StorageError) -> FieldPayload? {
        try RecordReader.field(tag: tag, in: record, 0..<record.count, end: end).map(payload(of:))
    }

    /// The loaded record's fields with `tags` (ascending), in one walk, into `fields` (as long as
    /// `tags`; `nil` for an absent field).
    ///
    /// - Throws: `StorageError` `.damagedRecord` when a field up to the last asked for is malformed.
    func fields(of tags: [UInt32], into fields: inout [RecordReader.Field?]) throws(StorageError) {
        try RecordReader.fields(of: tags, in: record, end: end, into: &fields)
    }

    /// The payload of a field of the loaded record (its bytes, for a length-delimited one, in an
    /// array made once per record).
    func payload(of field: RecordReader.Field) -> FieldPayload {
        guard field.wireType == .lengthDelimited else { return FieldPayload(scalar: field.scalar, wireType: field.wireType) }
        return .bytes(storage.array(of: record)[field.start..<field.end])
    }

    /// Calls `body` with the bytes of a length-delimited field of the loaded record.
    func withBytes<R>(of field: RecordReader.Field, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(rebasing: record[field.start..<field.end]))
    }
}

/// A ``RecordScanner``'s memory: a copy of a record read by row (which outlives the store's
/// closure), and the loaded record as an array, for payloads that hold bytes.
private final class ScannerStorage {
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var bytes: [UInt8] = []
    private var bytesAreCurrent = false

    deinit { buffer.deallocate() }

    /// `value`, copied into the scanner's buffer (valid until the next copy).
    func copy(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if value.count > buffer.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(value.count, 2 * buffer.count), alignment: 8)
        }
        if let source = value.baseAddress { buffer.baseAddress!.copyMemory(from: source, byteCount: value.count) }
        return UnsafeRawBufferPointer(rebasing: buffer[..<value.count])
    }

    /// A new record is loaded: the array no longer holds it.
    func forgetArray() { bytesAreCurrent = false }

    /// The loaded record as an array, made on the first call after each load.
    func array(of record: UnsafeRawBufferPointer) -> [UInt8] {
        if !bytesAreCurrent {
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: record)
            bytesAreCurrent = true
        }
        return bytes
    }
}

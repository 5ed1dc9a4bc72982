/// Records stored end to end in one array, by position: the records a save writes (its new rows
/// and its rewritten rows).
///
/// A hundred thousand records as ``EncodedRecord``s are a hundred thousand small arrays: an
/// allocation each, and a cache miss each time a later step (the seal, the write, the applier's
/// checksum) comes back to one. Here they are written into one array and read front to back.
/// Each record ends with its checksum, as an ``EncodedRecord``'s does, and is sealed in place for
/// the key it is stored under (``seal(_:forKey:)``).
///
/// ```swift
/// var records = RecordList()
/// var writer = records.writer()
/// writer.write(42 as Int64, tag: 1)
/// let index = records.finish(&writer)
/// try records.withRecord(index) { try txn.put($0, for: key, in: table) }
/// ```
struct RecordList {
    /// Every record's bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where each record ends in ``bytes``, and its content checksum (see ``EncodedRecord``).
    private var entries: [(end: Int, contentChecksum: UInt32)] = []

    /// How many records the list expects, when it was told (see ``finish(_:)``).
    private var expected = 0

    init() {}

    /// Room for `records` records of about `bytesPerRecord` bytes each; once the first record is
    /// written, room for all of them at its size, if that is more.
    init(reservingCapacity records: Int, bytesPerRecord: Int) {
        bytes.reserveCapacity(records * bytesPerRecord)
        entries.reserveCapacity(records)
        expected = records
    }

    var count: Int { entries.count }

    /// The bytes of every record.
    var byteCount: Int { bytes.count }

    /// A writer for the next record: it holds the list's bytes until ``finish(_:)`` takes them
    /// back (the list is empty meanwhile; writing another record in between is an error).
    mutating func writer() -> RecordWriter {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return RecordWriter(appendingTo: consume taken)
    }

    /// Takes back the bytes of a writer from ``writer()`` with its record finished, and returns
    /// the record's position. The writer is left empty.
    @discardableResult
    mutating func finish(_ writer: inout RecordWriter) -> Int {
        let (all, checksum) = writer.finishAppended()
        writer = .empty
        bytes = all
        entries.append((bytes.count, checksum))
        if entries.count == 1 && expected > 1 {
            // Records longer than the guess grew the bytes by doubling, late: a copy of millions
            // of bytes into newly mapped memory. Grown now, the copy is one record's.
            let room = bytes.count.multipliedReportingOverflow(by: expected + expected / 8)
            if !room.overflow && room.partialValue > bytes.capacity { bytes.reserveCapacity(room.partialValue) }
        }
        return entries.count - 1
    }

    /// Takes back the bytes of a writer from ``writer()`` without its record (one that turned out
    /// incomplete, or failed): the list is as it was before. The writer is left empty.
    mutating func discard(_ writer: inout RecordWriter) {
        let (all, _) = writer.finishAppended()
        writer = .empty
        bytes = all
        bytes.removeSubrange(start(of: entries.count)...)
    }

    /// Appends record `index` of `other`, as last sealed, and returns its position here.
    @discardableResult
    mutating func append(_ index: Int, of other: RecordList) -> Int {
        bytes.append(contentsOf: other.bytes[other.start(of: index)..<other.entries[index].end])
        entries.append((bytes.count, other.entries[index].contentChecksum))
        return entries.count - 1
    }

    /// The content checksum of record `index` (the same whatever key it is sealed for).
    func contentChecksum(_ index: Int) -> UInt32 { entries[index].contentChecksum }

    /// Calls `body` with record `index`'s bytes, as last sealed.
    func withRecord<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = start(of: index)..<entries[index].end
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Seals record `index` for `key` in place: its checksum becomes `contentChecksum XOR
    /// CRC-32C(key)` (see ``EncodedRecord/seal(forKey:)``).
    mutating func seal(_ index: Int, forKey key: UnsafeRawBufferPointer) {
        let checksum = entries[index].contentChecksum ^ CRC32C.checksum(key)
        EncodedRecord.storeChecksum(checksum, in: &bytes, recordEnd: entries[index].end)
    }

    private func start(of index: Int) -> Int { index == 0 ? 0 : entries[index - 1].end }
}

/// The byte layout of every stored key and value that is not a record: row keys, unique and
/// index values, edge values, history keys, external-storage keys and every `meta` value.
///
/// Records have their own format (``RecordWriter``/``RecordReader``) and index keys theirs
/// (``KeyBuilder``/``KeyReader``); everything else Cairn writes is built here and read back
/// here, so one file states each layout (Docs/Design.md records it byte by byte). Encoders
/// return the bytes to put; decoders take bytes borrowed from the store, check every length
/// before reading, verify the entry's checksum and throw `StorageError` `.damagedRecord`
/// naming the table and key, so no stored byte can trap or be decoded into a wrong answer.
///
/// Unique, index, edge and `meta` entries carry a CRC-32C over the entry's key followed by the
/// rest of its value, so damage to either the key or the value is found by the reader of that entry.
///
/// ```swift
/// let value = EntryLayout.keyedValue(row: 42, key: uniqueKey)
/// try txn.put(value, for: uniqueKey, in: table)
/// // later, with the bytes read back:
/// let row = try EntryLayout.row(keyedValue: stored, key: uniqueKey, table: table)   // 42
/// ```
package enum EntryLayout {
    /// A row id's size: u64 big-endian, so keys sort by row id.
    package static let rowIDSize = 8
    /// A checksum's size: CRC-32C, little-endian (as in records).
    package static let checksumSize = 4
    /// A unique or index value: row id, then the checksum over key ‖ row id.
    package static let keyedValueSize = rowIDSize + checksumSize
    /// An edge value: rank, target row id, then the checksum over owner key ‖ rank ‖ target.
    package static let edgeValueSize = 2 * rowIDSize + checksumSize

    // MARK: Row keys, history keys and counters

    /// The key of a row in `e/<Entity>` and of its edges in `r/…` tables: the row id, u64 big-endian.
    ///
    /// ```swift
    /// EntryLayout.rowKey(1)   // [0, 0, 0, 0, 0, 0, 0, 1]
    /// ```
    /// - Returns: 8 bytes.
    package static func rowKey(_ row: UInt64) -> [UInt8] { withRowKey(row) { Array($0) } }

    /// The row id of a stored row key.
    ///
    /// ```swift
    /// let row = try EntryLayout.row(key: key, table: tables.records)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the key is not 8 bytes.
    package static func row(key: UnsafeRawBufferPointer, table: Table) throws(StorageError) -> UInt64 {
        guard key.count == rowIDSize else {
            throw damaged(table: table, key: key, "has a key of \(key.count) bytes where a row id takes 8")
        }
        return loadBigEndian(key, at: 0)
    }

    /// The key of a commit's entry in the history table `h`: the commit id, u64 big-endian.
    ///
    /// ```swift
    /// try txn.put(entry, for: EntryLayout.historyKey(commit: txn.id), in: history)
    /// ```
    package static func historyKey(commit: UInt64) -> [UInt8] { rowKey(commit) }

    /// The commit id of a stored history key.
    ///
    /// ```swift
    /// let commit = try EntryLayout.commit(historyKey: key, table: history)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the key is not 8 bytes.
    package static func commit(historyKey key: UnsafeRawBufferPointer, table: Table) throws(StorageError) -> UInt64 {
        guard key.count == rowIDSize else {
            throw damaged(table: table, key: key, "has a history key of \(key.count) bytes where a commit id takes 8")
        }
        return loadBigEndian(key, at: 0)
    }

    /// A `meta` counter's value (an entity's next row id, `history.floor`): u64 big-endian, as a
    /// ``metaValue(_:key:)``.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.counter(next, key: counterKey), for: counterKey, in: meta)
    /// ```
    /// - Returns: 12 bytes.
    package static func counter(_ value: UInt64, key: [UInt8]) -> [UInt8] { metaValue(rowKey(value), key: key) }

    /// A stored `meta` counter, after checking its checksum and size.
    ///
    /// ```swift
    /// let next = try txn.get(counterKey, in: meta).map { try EntryLayout.counter($0, key: counterKey, table: meta) }
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the checksum or the size is wrong.
    package static func counter(_ value: [UInt8], key: [UInt8], table: Table) throws(StorageError) -> UInt64 {
        let payload = try metaPayload(value, key: key)
        guard payload.count == rowIDSize else {
            throw damagedDescription(key: key, "holds a counter of \(payload.count) bytes where it takes 8")
        }
        return payload.withUnsafeBytes { loadBigEndian($0, at: 0) }
    }

    // MARK: Meta values

    /// A value of the `meta` table (the format version, the store identifier, an entity's stored
    /// description, a counter): the payload, then CRC-32C of `key ‖ payload`, little-endian.
    ///
    /// The store's description lives here, so damage must not read as a schema change or another
    /// identifier: every value carries the checksum, and ``metaPayload(_:key:)`` checks it.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.metaValue(description, key: key), for: key, in: meta)
    /// ```
    /// - Returns: `payload.count + 4` bytes.
    package static func metaValue(_ payload: [UInt8], key: [UInt8]) -> [UInt8] {
        var bytes = payload
        appendChecksum(to: &bytes, key: key)
        return bytes
    }

    /// Appends to `payload` the CRC-32C of `key` and `payload` (little-endian): the checksum
    /// that `meta` values and full-text values end with.
    ///
    /// ```swift
    /// var value = payload
    /// EntryLayout.appendChecksum(to: &value, key: key)
    /// ```
    package static func appendChecksum(to payload: inout [UInt8], key: [UInt8]) {
        var crc = CRC32C()
        crc.update(key)
        crc.update(payload)
        withUnsafeBytes(of: crc.value.littleEndian) { payload.append(contentsOf: $0) }
    }

    /// The bytes of a value before the checksum ``appendChecksum(to:key:)`` wrote, once it
    /// matches `key` and them.
    ///
    /// ```swift
    /// let payload = try EntryLayout.checkedPayload(value, key: key, table: table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord`, naming the table and key, when the value is
    ///   shorter than a checksum or the checksum does not match.
    package static func checkedPayload(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        guard value.count >= checksumSize else {
            throw damaged(table: table, key: key, "has a value too short for its checksum")
        }
        let end = value.count - checksumSize
        let payload = UnsafeRawBufferPointer(rebasing: value[..<end])
        var crc = CRC32C()
        crc.update(key)
        crc.update(payload)
        guard loadLittleEndian32(value, at: end) == crc.value else {
            throw damaged(table: table, key: key, "has a value whose checksum does not match")
        }
        return payload
    }

    /// The same for a key held in an array (a table's fixed key, such as a header's).
    ///
    /// ```swift
    /// let payload = try EntryLayout.checkedPayload(value, key: [0x00], table: table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord`, as the other form does.
    package static func checkedPayload(
        _ value: UnsafeRawBufferPointer, key: [UInt8], table: Table
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        try key.withUnsafeBytes { key in
            Result { () throws(StorageError) in try checkedPayload(value, key: key, table: table) }
        }.get()
    }

    /// The payload of a stored `meta` value, after checking its checksum.
    ///
    /// ```swift
    /// let description = try EntryLayout.metaPayload(stored, key: key)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord`, saying the store's description is damaged,
    ///   when the value is too short or its checksum does not match its key and payload.
    package static func metaPayload(_ value: [UInt8], key: [UInt8]) throws(StorageError) -> [UInt8] {
        guard value.count >= checksumSize else {
            throw damagedDescription(key: key, "holds \(value.count) bytes, fewer than its 4-byte checksum")
        }
        let end = value.count - checksumSize
        var crc = CRC32C()
        crc.update(key)
        value.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        guard value.withUnsafeBytes({ loadLittleEndian32($0, at: end) }) == crc.value else {
            throw damagedDescription(key: key, "has a checksum that does not match its key and value")
        }
        return Array(value[0..<end])
    }

    /// The error for a damaged `meta` value: the store's own description (its format, identity,
    /// schema or counters) cannot be trusted, which no change to the app's models can fix.
    package static func damagedDescription(key: [UInt8], _ what: String) -> StorageError {
        let name = String(decoding: key, as: UTF8.self)
        return StorageError(
            code: .damagedRecord,
            message: "The store's description is damaged: its entry '\(name)' in table 'meta' \(what). This is "
                + "damage to the file, not a change of your models; restore the store from a backup.")
    }

    /// The key of an `.externalStorage` value in `x/<Entity>`: row id u64 then tag u32, both big-endian.
    ///
    /// ```swift
    /// EntryLayout.externalKey(row: 1, tag: 3)   // 00 … 01 | 00 00 00 03
    /// ```
    package static func externalKey(row: UInt64, tag: UInt32) -> [UInt8] {
        var bytes = rowKey(row)
        bytes += [
            UInt8(truncatingIfNeeded: tag >> 24), UInt8(truncatingIfNeeded: tag >> 16),
            UInt8(truncatingIfNeeded: tag >> 8), UInt8(truncatingIfNeeded: tag),
        ]
        return bytes
    }

    // MARK: Unique and index values

    /// The value of a unique entry (`u/…`) or one duplicate of an index entry (`i/…`): the row
    /// id (u64 big-endian, so an index key's duplicates sort by row id), then CRC-32C of
    /// `key ‖ row id`, little-endian.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.keyedValue(row: row, key: key), for: key, in: index)
    /// ```
    /// - Returns: 12 bytes.
    /// Calls `body` with the key of row `row`, built on the stack (``rowKey(_:)`` without an array).
    ///
    /// ```swift
    /// try EntryLayout.withRowKey(row) { key in try txn.put(bytes, for: key, in: tables.records) }
    /// ```
    package static func withRowKey<R>(_ row: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: row.bigEndian) { try body($0) }
    }

    /// Calls `body` with ``keyedValue(row:key:)``, built on the stack.
    ///
    /// ```swift
    /// try EntryLayout.withKeyedValue(row: row, key: key) { value in try txn.put(value, for: key, in: unique) }
    /// ```
    package static func withKeyedValue<R>(
        row: UInt64, key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try key.withUnsafeBytes { key in try withKeyedValue(row: row, key: key, body) }
    }

    /// The same for key bytes held elsewhere (a list of keys stored end to end). Always inlined:
    /// a save calls it once per unique claim, and the compiler may otherwise call it out of line
    /// from a large caller, at a call's cost per claim.
    @inline(__always)
    package static func withKeyedValue<R>(
        row: UInt64, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        let rowBytes = row.bigEndian
        var crc = CRC32C()
        crc.update(key)
        withUnsafeBytes(of: rowBytes) { crc.update($0) }
        // The row id big-endian, then the checksum little-endian: twelve bytes, as `keyedValue`.
        let value = (rowBytes, crc.value.littleEndian)
        return try withUnsafeBytes(of: value) { bytes in
            try body(UnsafeRawBufferPointer(rebasing: bytes[0..<keyedValueSize]))
        }
    }

    package static func keyedValue(row: UInt64, key: [UInt8]) -> [UInt8] {
        withKeyedValue(row: row, key: key) { Array($0) }
    }

    /// The row id of a stored unique or index value, after checking its size and checksum.
    ///
    /// ```swift
    /// let row = try EntryLayout.row(keyedValue: value, key: key, table: unique.table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the size or checksum is wrong.
    package static func row(
        keyedValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> UInt64 {
        guard value.count == keyedValueSize else {
            throw damaged(table: table, key: key, "holds a value of \(value.count) bytes where it takes 12")
        }
        var crc = CRC32C()
        crc.update(key)
        crc.update(UnsafeRawBufferPointer(rebasing: value[0..<rowIDSize]))
        guard crc.value == loadLittleEndian32(value, at: rowIDSize) else {
            throw damaged(table: table, key: key, "has an entry whose checksum does not match its key and row id")
        }
        return loadBigEndian(value, at: 0)
    }

    // MARK: Edge values

    /// One stored edge: the target's position in the owner's list when it was saved, and its row.
    package struct Edge: Hashable, Sendable {
        /// The target's position in the owner's list when saved (0, 1, 2, …; 0 for a to-one).
        package var rank: UInt64
        /// The target's row id.
        package var target: UInt64

        /// An edge.
        ///
        /// ```swift
        /// let edge = EntryLayout.Edge(rank: 0, target: 7)
        /// ```
        package init(rank: UInt64, target: UInt64) {
            self.rank = rank
            self.target = target
        }
    }

    /// One duplicate of an edge table (`r/…`): rank u64 big-endian (so duplicates sort by rank),
    /// target row id u64 big-endian, then CRC-32C of `owner key ‖ rank ‖ target`, little-endian.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.edgeValue(owner: 1, rank: 0, target: 7), for: EntryLayout.rowKey(1), in: edges)
    /// ```
    /// - Returns: 20 bytes.
    /// Calls `body` with ``edgeValue(owner:rank:target:)``, built on the stack.
    ///
    /// ```swift
    /// try EntryLayout.withEdgeValue(owner: 7, rank: 0, target: 42) { try txn.put($0, for: key, in: edges) }
    /// ```
    package static func withEdgeValue<R>(
        owner: UInt64, rank: UInt64, target: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        var crc = CRC32C()
        withUnsafeBytes(of: owner.bigEndian) { crc.update($0) }
        let pair = (rank.bigEndian, target.bigEndian)
        withUnsafeBytes(of: pair) { crc.update($0) }
        // Rank and target big-endian, then the checksum little-endian: twenty bytes, as `edgeValue`.
        let value = (pair.0, pair.1, crc.value.littleEndian)
        return try withUnsafeBytes(of: value) { bytes in
            try body(UnsafeRawBufferPointer(rebasing: bytes[0..<edgeValueSize]))
        }
    }

    package static func edgeValue(owner: UInt64, rank: UInt64, target: UInt64) -> [UInt8] {
        withEdgeValue(owner: owner, rank: rank, target: target) { Array($0) }
    }

    /// The rank and target of a stored edge value, after checking its owner key, size and checksum.
    ///
    /// ```swift
    /// let edge = try EntryLayout.edge(value: value, ownerKey: key, table: edges)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when a size or the checksum is wrong.
    package static func edge(
        value: UnsafeRawBufferPointer, ownerKey key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> Edge {
        guard key.count == rowIDSize else {
            throw damaged(table: table, key: key, "has an owner key of \(key.count) bytes where a row id takes 8")
        }
        guard value.count == edgeValueSize else {
            throw damaged(table: table, key: key, "holds an edge of \(value.count) bytes where it takes 20")
        }
        var crc = CRC32C()
        crc.update(key)
        crc.update(UnsafeRawBufferPointer(rebasing: value[0..<(2 * rowIDSize)]))
        guard crc.value == loadLittleEndian32(value, at: 2 * rowIDSize) else {
            throw damaged(
                table: table, key: key, "has an edge whose checksum does not match its owner, rank and target")
        }
        return Edge(rank: loadBigEndian(value, at: 0), target: loadBigEndian(value, at: rowIDSize))
    }

    // MARK: Checking any entry

    /// What a table of the entry kinds above holds, for checking an entry whose meaning the reader
    /// does not need (the neighbours of a point lookup's position, a verifier's walk).
    package enum Kind: Sendable {
        /// `u/…` and `i/…`: order-preserving key → row id with checksum.
        case keyed
        /// `r/…`: owner row id → rank, target and checksum.
        case edge
    }

    /// Checks one stored entry of a table of `kind`.
    ///
    /// ```swift
    /// try EntryLayout.verify(key: key, value: value, kind: .keyed, table: unique.table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the entry is damaged.
    package static func verify(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, kind: Kind, table: Table
    ) throws(StorageError) {
        switch kind {
        case .keyed: _ = try row(keyedValue: value, key: key, table: table)
        case .edge: _ = try edge(value: value, ownerKey: key, table: table)
        }
    }

    // MARK: Errors

    /// The error for a damaged entry: names the table and the key (hex, shortened) and what to do.
    package static func damaged(table: Table, key: UnsafeRawBufferPointer, _ what: String) -> StorageError {
        StorageError(
            code: .damagedRecord,
            message: "Table '\(table.name)' \(what) (key \(hex(key))). The entry is damaged and was not used; "
                + "run container.verify() to list the damage, and restore the store from a backup.")
    }

    /// A key as hex digits, its first 32 bytes at most.
    package static func hex(_ key: UnsafeRawBufferPointer) -> String {
        let shown = key.prefix(32).map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
        return key.count > 32 ? shown + "…(\(key.count) bytes)" : shown
    }

    // MARK: Bytes

    // Callers have checked the size; byte-wise assembly never reads past `offset + 8`.
    private static func loadBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + 8) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private static func loadLittleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in (offset..<(offset + 4)).reversed() { value = value << 8 | UInt32(bytes[index]) }
        return value
    }
}

extension EntryLayout {
    /// ``row(keyedValue:key:table:)`` for bytes held in arrays.
    ///
    /// ```swift
    /// let row = try EntryLayout.row(keyedValue: stored, key: key, table: table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the size or checksum is wrong.
    package static func row(keyedValue value: [UInt8], key: [UInt8], table: Table) throws -> UInt64 {
        try value.withUnsafeBytes { value in
            try key.withUnsafeBytes { key in try row(keyedValue: value, key: key, table: table) }
        }
    }

    /// The u64 big-endian number at `offset` of `bytes`, or `nil` when fewer than 8 bytes remain
    /// there: for formats that read numbers inside a longer value (history entries).
    ///
    /// ```swift
    /// guard let row = EntryLayout.bigEndianUInt64(in: value, at: 3) else { … }
    /// ```
    package static func bigEndianUInt64(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        return loadBigEndian(bytes, at: offset)
    }
}

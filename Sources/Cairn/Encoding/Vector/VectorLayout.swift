import CairnStorage

/// The byte layout of a vector index's table (`v/<Entity>/<attribute>`): the one place its keys
/// and values are made and read (`Docs/Search.md` draws them).
///
/// | key | value |
/// |---|---|
/// | `00` | the header: format `01`, metric, dimensions (u32), node count (u64), entry row (u64), entry level (u8), CRC-32C |
/// | `01` ‖ row (u64 big-endian) | the node: level (u8), 3 zero bytes, the vector (dimensions × f32) |
/// | `02` ‖ row (u64 big-endian) | the node's links: for each level from 0 up, a count (u16) then that many rows (u64), CRC-32C |
///
/// Numbers are little-endian but for the rows in keys. Nodes are keyed in row order, so an exact
/// search reads the vectors front to back. A node's vector has no checksum of its own (checking
/// 1.5 KB per vector read would cost more than comparing it): a node of the wrong length throws,
/// and damaged numbers read as another vector, never trap (a NaN distance counts as the
/// farthest). The header and the links, which the graph's shape rests on, carry a CRC-32C of
/// key and value, and every count is checked against the bytes there are.
///
/// ```swift
/// let key = VectorLayout.nodeKey(row: 42)
/// let value = ([0.6, 0.8] as [Float]).withUnsafeBytes { VectorLayout.node(level: 0, vector: $0) }
/// ```
enum VectorLayout {
    /// The key of a table's header.
    static let headerKey: [UInt8] = [0x00]
    static let nodeMarker: UInt8 = 0x01
    static let linksMarker: UInt8 = 0x02
    /// The bytes before a node's vector.
    static let nodePrefix = 4
    private static let format: UInt8 = 0x01

    /// What a vector index's header holds.
    struct Header {
        var metric: VectorMetric
        var dimensions: Int
        var count: UInt64 = 0
        /// Where a search starts, and the level it has; `nil` in an empty index.
        var entry: (row: UInt64, level: Int)?
    }

    static func nodeKey(row: UInt64) -> [UInt8] { key(nodeMarker, row) }
    static func linksKey(row: UInt64) -> [UInt8] { key(linksMarker, row) }

    private static func key(_ marker: UInt8, _ row: UInt64) -> [UInt8] {
        var key = [marker]
        withUnsafeBytes(of: row.bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The row of a node key.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the key is not a node's.
    static func row(ofNodeKey key: UnsafeRawBufferPointer, table: Table) throws(StorageError) -> UInt64 {
        guard key.count == 9, key[0] == nodeMarker, let row = EntryLayout.bigEndianUInt64(in: key, at: 1) else {
            throw EntryLayout.damaged(table: table, key: key, "has a key that is not a vector's")
        }
        return row
    }

    // MARK: Header

    static func header(_ header: Header) -> [UInt8] {
        var bytes: [UInt8] = [format, header.metric == .cosine ? 0 : 1]
        append(UInt32(header.dimensions), to: &bytes)
        append(header.count, to: &bytes)
        append(header.entry?.row ?? 0, to: &bytes)
        bytes.append(header.entry.map { UInt8($0.level) + 1 } ?? 0)
        EntryLayout.appendChecksum(to: &bytes, key: headerKey)
        return bytes
    }

    /// Reads a header.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when it is damaged or of an unknown format.
    static func header(_ value: UnsafeRawBufferPointer, table: Table) throws(StorageError) -> Header {
        let payload = try EntryLayout.checkedPayload(value, key: headerKey, table: table)
        guard payload.count == 23, payload[0] == format, payload[1] <= 1 else {
            throw headerKey.withUnsafeBytes {
                EntryLayout.damaged(table: table, key: $0, "has a header it cannot read")
            }
        }
        var header = Header(
            metric: payload[1] == 0 ? .cosine : .euclidean, dimensions: Int(load(UInt32.self, payload, at: 2)))
        header.count = load(UInt64.self, payload, at: 6)
        if payload[22] > 0 { header.entry = (load(UInt64.self, payload, at: 14), Int(payload[22]) - 1) }
        return header
    }

    // MARK: Nodes

    /// A node's value: its level and its vector's bytes (f32s as the host holds them, which is
    /// little-endian on every platform Cairn runs on, as ``VectorDistance`` reads them).
    static func node(level: Int, vector: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: nodePrefix)
        bytes.reserveCapacity(nodePrefix + vector.count)
        bytes[0] = UInt8(level)
        bytes.append(contentsOf: vector)
        return bytes
    }

    /// A node's level and its vector's bytes (`dimensions` little-endian f32), checked for
    /// length.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the node has another length.
    static func node(
        _ value: UnsafeRawBufferPointer, dimensions: Int, key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError) -> (level: Int, vector: UnsafeRawBufferPointer) {
        guard value.count == nodePrefix + dimensions * 4, value[0] <= HNSWParameters.maximumLevel else {
            throw EntryLayout.damaged(table: table, key: key, "has a vector of the wrong length")
        }
        return (Int(value[0]), UnsafeRawBufferPointer(rebasing: value[nodePrefix...]))
    }

    // MARK: Links

    /// The links of the node keyed `key` (``linksKey(row:)``), level 0 first.
    static func links(_ levels: [[UInt64]], key: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(levels.reduce(4) { $0 + 2 + $1.count * 8 })
        for rows in levels {
            append(UInt16(rows.count), to: &bytes)
            for row in rows { append(row, to: &bytes) }
        }
        EntryLayout.appendChecksum(to: &bytes, key: key)
        return bytes
    }

    /// Reads a node's links, level 0 first.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the value is damaged.
    static func links(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, table: Table
    ) throws(StorageError)
        -> [[UInt64]]
    {
        let payload = try EntryLayout.checkedPayload(value, key: key, table: table)
        var levels: [[UInt64]] = []
        var offset = 0
        while offset < payload.count {
            guard payload.count - offset >= 2, levels.count <= Int(HNSWParameters.maximumLevel) else {
                throw EntryLayout.damaged(table: table, key: key, "has links it cannot read")
            }
            let count = Int(load(UInt16.self, payload, at: offset))
            offset += 2
            guard (payload.count - offset) / 8 >= count else {
                throw EntryLayout.damaged(table: table, key: key, "has more links than bytes")
            }
            levels.append((0..<count).map { load(UInt64.self, payload, at: offset + 8 * $0) })
            offset += 8 * count
        }
        return levels
    }

    // MARK: Numbers

    private static func append<N: FixedWidthInteger>(_ number: N, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A little-endian number at `offset`, which the caller checked is in bounds.
    private static func load<N: FixedWidthInteger>(
        _ type: N.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int
    )
        -> N
    {
        N(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: N.self))
    }
}

import CairnSyncProtocol

// The values of the sync tables (`StoreLayout.syncTables`): each is a binary-coded value sealed as
// a meta value (CRC-32C of key ‖ payload), so damage reads as `.damagedRecord`, never as another
// row's state. `Docs/Sync.md`, "What a replica stores", lists them.

extension EntryLayout {
    /// What a replica knows of one synced row (`s/rows`, under its global identifier): its entity,
    /// its local row, the stamp of each field's last write, fields this schema does not have
    /// (kept and passed on), and its deletion, or the row it was merged into.
    ///
    /// ```swift
    /// var state = SyncRowState(entity: "Book", row: 12)
    /// state.setStamp(stamp, for: "title")
    /// ```
    package struct SyncRowState: Equatable {
        /// The entity's name.
        package var entity: String
        /// The local row, while the row lives here.
        package var row: UInt64?
        /// The row this one was merged into (two replicas' inserts with the same unique values).
        package var mergedInto: SyncID?
        /// When the row was deleted.
        package var deleted: SyncStamp?
        /// The distinct stamps of the fields, which `fields` points into: most fields of a row share one.
        private var stamps: [SyncStamp] = []
        /// Each field's stamp, as a position in `stamps`.
        private var fields: [String: Int] = [:]
        /// Fields this version's schema does not have, with their values, passed on as received.
        package var kept: [String: FieldChange] = [:]
        /// A digest of each relationship's targets as last pushed or applied: an edge rewrite
        /// that leaves them as they were is not a change to push.
        private var links: [String: UInt64]?
        /// The newest write of each list whose order travels (a to-many whose inverse carries
        /// the links), as written: what the list's members are ordered by.
        package var orders: [String: FieldChange] = [:]

        /// The digest of relationship `name`'s targets as last pushed or applied.
        package func linkDigest(of name: String) -> UInt64? { links?[name] }

        /// Records the digest of relationship `name`'s targets.
        package mutating func setLinkDigest(_ digest: UInt64, for name: String) {
            links = (links ?? [:]).merging([name: digest]) { $1 }
        }

        /// A row's state with no field written yet.
        package init(entity: String, row: UInt64?) {
            self.entity = entity
            self.row = row
        }

        /// The stamp of the last write of field `name`.
        package func stamp(of name: String) -> SyncStamp? { fields[name].map { stamps[$0] } }

        /// The names of the fields with a stamp.
        package var stampedFields: some Collection<String> { fields.keys }

        /// Records a write of field `name` at `stamp`.
        package mutating func setStamp(_ stamp: SyncStamp, for name: String) {
            if let position = stamps.firstIndex(of: stamp) {
                fields[name] = position
            } else {
                fields[name] = stamps.count
                stamps.append(stamp)
            }
        }

    }
}

// The layout of a row's state, in SyncWire's primitives: entity, row (flag + u64), mergedInto
// (flag + id), deleted (flag + stamp), the distinct stamps, each field's name and stamp position,
// the kept fields (name, stamp, value), the link digests (flag, then name + u64 each), and the
// lists' orders (name, stamp, value; absent in states written before them).
extension EntryLayout.SyncRowState: SyncWireCodable {
    package func write(to writer: inout SyncWireWriter) {
        writer.string(entity)
        writer.flag(row != nil)
        if let row { writer.integer(row) }
        writer.flag(mergedInto != nil)
        if let mergedInto { writer.id(mergedInto) }
        writer.flag(deleted != nil)
        deleted?.write(to: &writer)
        writer.list(stamps)
        writer.count(fields.count)
        for (name, position) in fields.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.count(position)
        }
        Self.writeFields(kept, to: &writer)
        writer.flag(links != nil)
        if let links {
            writer.count(links.count)
            for (name, digest) in links.sorted(by: { $0.key < $1.key }) {
                writer.string(name)
                writer.integer(digest)
            }
        }
        Self.writeFields(orders, to: &writer)
    }

    /// A count, then each field's name, stamp and value, by name.
    private static func writeFields(_ fields: [String: FieldChange], to writer: inout SyncWireWriter) {
        writer.count(fields.count)
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            field.stamp.write(to: &writer)
            field.value.write(to: &writer)
        }
    }

    package init(from reader: inout SyncWireReader) throws {
        self.init(entity: try reader.string(), row: try reader.flag() ? try reader.integer() : nil)
        mergedInto = try reader.flag() ? try reader.id() : nil
        deleted = try reader.flag() ? try SyncStamp(from: &reader) : nil
        stamps = try reader.list(of: SyncStamp.self, minimumSize: 24)
        for _ in 0..<(try reader.count(minimumSize: 2)) {
            let name = try reader.string()
            let position = try reader.count(minimumSize: 0)
            guard position < stamps.count else { throw SyncWireReader.malformed("a stamp position past the stamps") }
            fields[name] = position
        }
        kept = try Self.readFields(&reader)
        if try reader.flag() {
            var links: [String: UInt64] = [:]
            for _ in 0..<(try reader.count(minimumSize: 9)) { links[try reader.string()] = try reader.integer() }
            self.links = links
        }
        // States written before orders travelled end here.
        if !reader.isAtEnd { orders = try Self.readFields(&reader) }
    }

    /// A count, then each field's name, stamp and value.
    private static func readFields(_ reader: inout SyncWireReader) throws -> [String: FieldChange] {
        var fields: [String: FieldChange] = [:]
        for _ in 0..<(try reader.count(minimumSize: 26)) {
            let name = try reader.string()
            fields[name] = FieldChange(stamp: try SyncStamp(from: &reader), value: try FieldValue(from: &reader))
        }
        return fields
    }
}

extension EntryLayout {
    /// A sync table value: `value` in its ``SyncWire`` layout, sealed for `key`.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.syncValue(state, key: id.bytes), for: id.bytes, in: rows)
    /// ```
    package static func syncValue(_ value: some SyncWireCodable, key: [UInt8]) -> [UInt8] {
        metaValue(SyncWire.bodyBytes(value), key: key)
    }

    /// A sync table value read back, after checking its checksum.
    ///
    /// ```swift
    /// let state = try EntryLayout.syncValue(stored, key: id.bytes, as: SyncRowState.self)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the checksum fails or the value does not parse.
    package static func syncValue<Value: SyncWireCodable>(
        _ bytes: [UInt8], key: [UInt8], as type: Value.Type
    ) throws(StorageError) -> Value {
        let payload = try metaPayload(bytes, key: key)
        do {
            return try SyncWire.decodeBody(type, from: payload)
        } catch {
            throw StorageError(
                code: .damagedRecord,
                message: "A sync table entry (\(Value.self)) is damaged: \(error). Run cairn verify, and restore the store from a backup.")
        }
    }

    /// The names of a row's fields waiting to be pushed (`s/pending`).
    ///
    /// ```swift
    /// let value = EntryLayout.syncValue(SyncFieldNames(["title"]), key: id.bytes)
    /// ```
    package struct SyncFieldNames: SyncWireCodable {
        package var names: [String]

        package init(_ names: [String]) { self.names = names }

        package func write(to writer: inout SyncWireWriter) {
            writer.count(names.count)
            for name in names { writer.string(name) }
        }

        package init(from reader: inout SyncWireReader) throws {
            let count = try reader.count()
            names = []
            names.reserveCapacity(count)
            for _ in 0..<count { names.append(try reader.string()) }
        }
    }

    /// The `s/ids` key of a local row: its root entity's name, a zero byte, the row id (u64
    /// big-endian).
    ///
    /// ```swift
    /// EntryLayout.syncIdentifierKey(root: "Book", row: 12)
    /// ```
    package static func syncIdentifierKey(root: String, row: UInt64) -> [UInt8] {
        Array(root.utf8) + [0] + rowKey(row)
    }
}

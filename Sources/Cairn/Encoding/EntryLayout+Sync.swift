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
    package struct SyncRowState: Codable, Equatable {
        /// The entity's name.
        package var entity: String
        /// The local row, while the row lives here.
        package var row: UInt64?
        /// The row this one was merged into (two replicas' inserts with the same unique values).
        package var mergedInto: SyncID?
        /// When the row was deleted.
        package var deleted: SyncStamp?
        /// The distinct stamps of the fields, which `fields` points into: most fields of a row share one.
        private var stamps: [Stamp] = []
        /// Each field's stamp, as a position in `stamps`.
        private var fields: [String: Int] = [:]
        /// Fields this version's schema does not have, with their values, passed on as received.
        package var kept: [String: FieldChange] = [:]
        /// A digest of each relationship's targets as last pushed or applied: an edge rewrite
        /// that leaves them as they were is not a change to push.
        private var links: [String: UInt64]?

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
        package func stamp(of name: String) -> SyncStamp? { fields[name].map { stamps[$0].stamp } }

        /// The names of the fields with a stamp.
        package var stampedFields: some Collection<String> { fields.keys }

        /// Records a write of field `name` at `stamp`.
        package mutating func setStamp(_ stamp: SyncStamp, for name: String) {
            let stored = Stamp(stamp)
            if let position = stamps.firstIndex(of: stored) {
                fields[name] = position
            } else {
                fields[name] = stamps.count
                stamps.append(stored)
            }
        }

        /// A stamp as stored: the clock and the replica's two halves.
        private struct Stamp: Codable, Equatable {
            let clock: UInt64
            let high: UInt64
            let low: UInt64

            init(_ stamp: SyncStamp) {
                clock = stamp.clock
                high = stamp.replica.high
                low = stamp.replica.low
            }

            var stamp: SyncStamp { SyncStamp(clock: clock, replica: SyncID(high: high, low: low)) }
        }
    }

    /// A sync table value: `value` binary-coded and sealed for `key`.
    ///
    /// ```swift
    /// try txn.put(EntryLayout.syncValue(state, key: id.bytes), for: id.bytes, in: rows)
    /// ```
    /// - Throws: `StorageError` `.unsupportedValue` when the value cannot be encoded.
    package static func syncValue(_ value: some Encodable, key: [UInt8]) throws(StorageError) -> [UInt8] {
        metaValue(try BinaryEncoder.encodeForStorage(value), key: key)
    }

    /// A sync table value read back, after checking its checksum.
    ///
    /// ```swift
    /// let state = try EntryLayout.syncValue(stored, key: id.bytes, as: SyncRowState.self)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the checksum fails or the value does not decode.
    package static func syncValue<Value: Decodable>(
        _ bytes: [UInt8], key: [UInt8], as type: Value.Type
    ) throws(StorageError) -> Value {
        let payload = try metaPayload(bytes, key: key)
        return try BinaryDecoder.decodeFromStorage(type, from: payload[...])
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

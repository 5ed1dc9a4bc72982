import Foundation

/// The limits a server holds a change batch to, and a replica its own batches before it sends
/// them.
///
/// ```swift
/// try batch.validate(nowMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000))
/// ```
public enum SyncLimits {
    /// The largest request body a server reads, in bytes.
    public static let maximumBodyBytes = 32 << 20
    /// How many bytes of rows a replica puts in one batch (one row, however large, always goes).
    public static let batchBytes = 4 << 20
    /// The largest row a replica pushes, in bytes: a batch of it alone fits in a request body.
    public static let maximumRowBytes = maximumBodyBytes - (64 << 10)
    /// How many bytes of batches or rows a server puts in one page (one, however large, always goes).
    public static let pageBytes = 8 << 20
    /// How many of the items sized `sizes` (in order) make one page of at most `limit`: the
    /// first always, each next one while the bytes before it are under ``pageBytes``.
    ///
    /// ```swift
    /// let count = SyncLimits.pageCount(sizes: batches.lazy.map(\.size), limit: 200)
    /// ```
    public static func pageCount(sizes: some Sequence<Int>, limit: Int) -> Int {
        var (count, bytes) = (0, 0)
        for size in sizes {
            guard count < max(1, limit), count == 0 || bytes < pageBytes else { break }
            count += 1
            bytes += size
        }
        return count
    }

    /// The most rows in one batch.
    public static let maximumRows = 5_000
    /// The most fields in one row.
    public static let maximumFields = 1_000
    /// The longest entity or field name, in UTF-8 bytes.
    public static let maximumNameBytes = 255
    /// The most targets of one to-many value.
    public static let maximumReferences = 100_000
    /// How far ahead of the receiver's clock a stamp may be, in milliseconds: a replica whose
    /// clock is further ahead would pull every other replica's clock along with it.
    public static let maximumClockSkew: UInt64 = 10 * 60 * 1000
}

extension ChangeBatch {
    /// Checks the batch against ``SyncLimits``: names present and short enough, counts within
    /// bounds, each row named once, no stamp further ahead of `nowMilliseconds` than the skew
    /// allowed.
    ///
    /// ```swift
    /// try batch.validate(nowMilliseconds: serverMilliseconds)
    /// ```
    /// - Throws: ``SyncProtocolError`` `.badRequest` naming the first row and field at fault.
    public func validate(nowMilliseconds: UInt64) throws(SyncProtocolError) {
        guard rows.count <= SyncLimits.maximumRows else {
            throw Self.refusal("has \(rows.count) rows; send at most \(SyncLimits.maximumRows) per batch")
        }
        var seen = Set<SyncID>()
        seen.reserveCapacity(rows.count)
        for (position, row) in rows.enumerated() {
            guard seen.insert(row.id).inserted else {
                throw Self.refusal("names row \(row.id) twice (rows \(position) and before); merge them into one")
            }
            try row.validate(nowMilliseconds: nowMilliseconds, position: position)
        }
        _ = try sealing()
    }

    /// How the batch's values are sealed: ``ZoneSealing/clear`` when none is, sealed with one
    /// key's identifier when all are, `nil` when it carries no value (deletions only). A server
    /// keeps each zone one way (`Docs/Sync.md`, "End-to-end encrypted zones").
    ///
    /// ```swift
    /// if let sealing = try batch.sealing() { check(sealing) }
    /// ```
    /// - Throws: ``SyncProtocolError`` `.badRequest` for a batch with values of both kinds, or
    ///   sealed with two keys, or a sealed value too short to name its key.
    public func sealing() throws(SyncProtocolError) -> ZoneSealing? {
        var found: ZoneSealing?
        for row in rows {
            for change in row.fields.values {
                let sealing: ZoneSealing
                switch change.value {
                case .sealed(let data):
                    guard data.count > FieldValue.sealingKeyIDLength else {
                        throw Self.refusal("holds a sealed value too short to name its key (row \(row.id))")
                    }
                    sealing = .sealed(keyID: Data(data.prefix(FieldValue.sealingKeyIDLength)))
                case .null, .value, .reference, .references: sealing = .clear
                }
                if let found, found != sealing {
                    throw Self.refusal(
                        "holds values sealed in different ways (row \(row.id)); a batch's values are all sealed "
                            + "with the zone's key, or none is")
                }
                found = sealing
            }
        }
        return found
    }

    fileprivate static func refusal(_ what: String) -> SyncProtocolError {
        SyncProtocolError(code: .badRequest, message: "The change batch \(what).")
    }
}

extension RowChange {
    fileprivate func validate(nowMilliseconds: UInt64, position: Int) throws(SyncProtocolError) {
        let row = "row \(position) (\(id))"
        guard !entity.isEmpty, entity.utf8.count <= SyncLimits.maximumNameBytes else {
            throw ChangeBatch.refusal("\(row) has an entity name that is empty or over \(SyncLimits.maximumNameBytes) bytes")
        }
        guard fields.count <= SyncLimits.maximumFields else {
            throw ChangeBatch.refusal("\(row) has \(fields.count) fields; at most \(SyncLimits.maximumFields) are allowed")
        }
        guard !fields.isEmpty || deleted != nil else {
            throw ChangeBatch.refusal("\(row) writes no field and deletes nothing")
        }
        let limit = (nowMilliseconds &+ SyncLimits.maximumClockSkew) << 16 | 0xFFFF
        if let deleted, deleted.clock > limit {
            throw ChangeBatch.refusal("\(row) was deleted at a time more than ten minutes ahead; check the replica's clock")
        }
        for (name, change) in fields {
            guard !name.isEmpty, name.utf8.count <= SyncLimits.maximumNameBytes else {
                throw ChangeBatch.refusal("\(row) has a field name that is empty or over \(SyncLimits.maximumNameBytes) bytes")
            }
            guard change.stamp.clock <= limit else {
                throw ChangeBatch.refusal(
                    "\(row) field '\(name)' is stamped more than ten minutes ahead; check the replica's clock")
            }
            if case .references(let targets) = change.value, targets.count > SyncLimits.maximumReferences {
                throw ChangeBatch.refusal("\(row) field '\(name)' has \(targets.count) targets")
            }
            if case .value(let type, _) = change.value, type.isEmpty || type.utf8.count > SyncLimits.maximumNameBytes {
                throw ChangeBatch.refusal("\(row) field '\(name)' has a type name that is empty or too long")
            }
        }
    }
}

/// How a zone's values travel: in clear, or sealed with a key only its replicas hold, named by
/// the key's identifier (the first bytes of every sealed value; a keyed hash of the key, which
/// tells keys apart and nothing else).
///
/// ```swift
/// switch try batch.sealing() { case .sealed(let keyID)?: print(keyID.count); default: break }
/// ```
public enum ZoneSealing: Hashable, Sendable {
    /// Values travel as they are.
    ///
    /// ```swift
    /// ZoneSealing(storedBytes: Data()) == .clear   // true
    /// ```
    case clear
    /// Values are sealed with the key `keyID` names (``FieldValue/sealingKeyIDLength`` bytes).
    ///
    /// ```swift
    /// if case .sealed(let keyID) = sealing { print(keyID.count) }   // 8
    /// ```
    case sealed(keyID: Data)

    /// How a server stores it: no bytes for clear, else the key's identifier.
    ///
    /// ```swift
    /// let column = sealing.storedBytes
    /// ```
    public var storedBytes: Data {
        switch self {
        case .clear: Data()
        case .sealed(let keyID): keyID
        }
    }

    /// The sealing a server stored as ``storedBytes``.
    ///
    /// ```swift
    /// let sealing = ZoneSealing(storedBytes: column)
    /// ```
    public init(storedBytes: Data) {
        self = storedBytes.isEmpty ? .clear : .sealed(keyID: storedBytes)
    }
}

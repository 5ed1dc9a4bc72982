import Foundation

/// One row as a replica sends it: its entity, its global identifier, and for each field written
/// the value and the stamp of the write; or the stamp of its deletion. A replica sends each
/// changed row's fields with their stamps, and every receiver keeps, per field, the value with
/// the later stamp, so the order in which changes arrive does not matter.
///
/// ```swift
/// var change = RowChange(entity: "Book", id: id)
/// change.fields["title"] = FieldChange(stamp: stamp, value: .value(type: "Swift.String", data: encoded))
/// ```
public struct RowChange: Hashable, Sendable, Codable {
    /// The entity's name, as the schema names it.
    public var entity: String
    /// The row's global identifier.
    public var id: SyncID
    /// The fields written, by name: attributes and relationships.
    public var fields: [String: FieldChange]
    /// When the row was deleted, or `nil` while it lives. A deleted row stays deleted: a later
    /// write of one of its fields does not bring it back (`Docs/Sync.md`, "Conflicts").
    public var deleted: SyncStamp?

    /// A change of the row `id` of `entity`, with no field written yet.
    ///
    /// ```swift
    /// let change = RowChange(entity: "Book", id: SyncID.make())
    /// ```
    public init(entity: String, id: SyncID, fields: [String: FieldChange] = [:], deleted: SyncStamp? = nil) {
        self.entity = entity
        self.id = id
        self.fields = fields
        self.deleted = deleted
    }

    /// The newest stamp the change carries.
    ///
    /// ```swift
    /// clock.observe(change.newestStamp?.clock ?? 0)
    /// ```
    public var newestStamp: SyncStamp? {
        ([deleted].compactMap { $0 } + fields.values.map(\.stamp)).max()
    }

    /// Takes in `other`, a change of the same row: each field keeps the value with the later
    /// stamp, and the row is deleted if either says so (at the later deletion's stamp). Merging
    /// is commutative, associative and idempotent, so replicas and the server that merge the same
    /// changes in any order hold the same row.
    ///
    /// ```swift
    /// var row = stored
    /// row.merge(incoming)
    /// ```
    public mutating func merge(_ other: RowChange) {
        for (name, change) in other.fields {
            if let mine = fields[name], !(mine.stamp < change.stamp || (mine.stamp == change.stamp && mine.value < change.value)) {
                continue
            }
            fields[name] = change
        }
        if let gone = other.deleted, deleted.map({ $0 < gone }) ?? true { deleted = gone }
    }

    private enum CodingKeys: String, CodingKey {
        case entity = "e"
        case id
        case fields = "f"
        case deleted = "d"
    }
}

/// A field's value as written, with its stamp.
///
/// ```swift
/// let change = FieldChange(stamp: stamp, value: .reference(authorID))
/// ```
public struct FieldChange: Hashable, Sendable, Codable {
    /// When and where the value was written.
    public var stamp: SyncStamp
    /// The value.
    public var value: FieldValue

    /// A written value.
    ///
    /// ```swift
    /// let cleared = FieldChange(stamp: stamp, value: .null)
    /// ```
    public init(stamp: SyncStamp, value: FieldValue) {
        self.stamp = stamp
        self.value = value
    }

    private enum CodingKeys: String, CodingKey {
        case stamp = "s"
        case value = "v"
    }
}

/// A field's value on the wire.
///
/// ```swift
/// switch change.value {
/// case .value(let type, let data): print(type, data.count)
/// case .reference(let id): print("points at", id)
/// case .references(let ids): print(ids.count, "targets")
/// case .null: print("nil")
/// case .sealed(let data): print(data.count, "sealed bytes")
/// }
/// ```
public enum FieldValue: Hashable, Sendable, Comparable {
    /// `nil`, or no target.
    case null
    /// An attribute's value: the name of its stored type (as `cairn dump` shows it) and the
    /// value encoded as Cairn stores it (a record holding the one field under tag 1;
    /// `Docs/Design.md`, "Records"). The server does not read it.
    case value(type: String, data: Data)
    /// A to-one relationship's target.
    case reference(SyncID)
    /// A to-many relationship's targets, in order.
    case references([SyncID])
    /// Any of the above, sealed with the key of an end-to-end encrypted zone, which only its
    /// replicas hold (`Docs/Sync.md`, "End-to-end encrypted zones"): the key's identifier
    /// (``sealingKeyIDLength`` bytes), then the ciphertext. The server stores, merges and
    /// forwards it and cannot read it. Every value of such a zone travels sealed.
    case sealed(Data)

    /// An order among values, only to break a tie between two writes with the same stamp (which
    /// replicas never make; a hostile or broken one might), the same way everywhere.
    public static func < (lhs: FieldValue, rhs: FieldValue) -> Bool {
        lhs.orderKey.lexicographicallyPrecedes(rhs.orderKey)
    }

    private var orderKey: [UInt8] {
        switch self {
        case .null: [0]
        case .value(let type, let data): [1] + Array(type.utf8) + [0] + Array(data)
        case .reference(let id): [2] + id.bytes
        case .references(let ids): [3] + ids.flatMap(\.bytes)
        case .sealed(let data): [4] + Array(data)
        }
    }

    /// Whether the value is sealed with a zone's key.
    ///
    /// ```swift
    /// if change.value.isSealed { … }
    /// ```
    public var isSealed: Bool {
        if case .sealed = self { return true }
        return false
    }

    /// The bytes that start a sealed value: the identifier of the key that sealed it.
    public static let sealingKeyIDLength = 8

    /// An upper bound on the bytes sealing adds to a value on the wire: its tag and length,
    /// the key's identifier, the nonce and the tag of the cipher. ``RowChange/wireSizeBound``
    /// counts it for every field, so a row that fits a batch fits it sealed too.
    public static let sealingOverhead = 64
}

extension FieldValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case null, type, data, ref, refs, sealed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let type = try container.decodeIfPresent(String.self, forKey: .type) {
            self = .value(type: type, data: try container.decode(Data.self, forKey: .data))
        } else if let target = try container.decodeIfPresent(SyncID.self, forKey: .ref) {
            self = .reference(target)
        } else if let targets = try container.decodeIfPresent([SyncID].self, forKey: .refs) {
            self = .references(targets)
        } else if let sealed = try container.decodeIfPresent(Data.self, forKey: .sealed) {
            self = .sealed(sealed)
        } else if try container.decodeIfPresent(Bool.self, forKey: .null) == true {
            self = .null
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "A field value has one of 'type' and 'data', 'ref', 'refs', 'sealed' or 'null': true"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try container.encode(true, forKey: .null)
        case .value(let type, let data):
            try container.encode(type, forKey: .type)
            try container.encode(data, forKey: .data)
        case .reference(let target): try container.encode(target, forKey: .ref)
        case .references(let targets): try container.encode(targets, forKey: .refs)
        case .sealed(let data): try container.encode(data, forKey: .sealed)
        }
    }
}

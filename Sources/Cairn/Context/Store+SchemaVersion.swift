import CairnStorage
import Foundation

/// The schema version a store was last opened with, kept in `meta` under `schema.version` (the
/// binary-coded ``Schema/Version``, checksummed as every `meta` value): what a migration plan
/// starts from.
extension Store {
    static let schemaVersionKey = Array("schema.version".utf8)

    /// The version recorded by the last writable open, or `nil` for a store that has none (new,
    /// or written before versions were recorded).
    /// - Throws: ``StorageError`` `.damagedRecord` when the entry is damaged.
    func recordedSchemaVersion() throws -> Schema.Version? {
        let key = Self.schemaVersionKey
        guard let stored = try environment.read({ txn in try txn.get(key, in: meta) }) else { return nil }
        let payload = try EntryLayout.metaPayload(stored, key: key)
        do {
            return try BinaryDecoder().decode(Schema.Version.self, from: payload)
        } catch {
            throw EntryLayout.damagedDescription(key: key, "cannot be decoded as a schema version")
        }
    }

    /// Records `version` as the store's schema version, unless it already is or the store is
    /// read-only.
    func recordSchemaVersion(_ version: Schema.Version) throws {
        guard !isReadOnly, try recordedSchemaVersion() != version else { return }
        let key = Self.schemaVersionKey
        let value = EntryLayout.metaValue(try BinaryEncoder().encode(version), key: key)
        try environment.write { txn in try txn.put(value, for: key, in: meta) }
    }

    /// Whether the store holds a description of `entity` whose attributes include every one of
    /// `attributes` by name: how a store that recorded no version is matched to a version of a
    /// migration plan.
    func describes(_ entity: String, with attributes: [String]) throws -> Bool {
        let key = StoredEntity.metaKey(for: entity)
        guard let stored = try environment.read({ txn in try txn.get(key, in: meta) }) else { return false }
        let description = try BinaryDecoder().decode(StoredEntity.self, from: EntryLayout.metaPayload(stored, key: key))
        let names = Set(description.attributes.map(\.name))
        return attributes.allSatisfy(names.contains)
    }
}

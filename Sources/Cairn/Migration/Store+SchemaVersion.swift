import CairnStorage
import Foundation

/// The schema version a store was last opened with, kept in `meta` under `schema.version` (the
/// binary-coded ``Schema/Version``, checksummed as every `meta` value): what a migration plan
/// starts from.
extension Store {

    /// The version recorded by the last writable open, or `nil` for a store that has none (new,
    /// or written before versions were recorded).
    /// - Throws: `StorageError` `.damagedRecord` when the entry is damaged.
    func recordedSchemaVersion() throws -> Schema.Version? {
        try Self.recordedSchemaVersion(environment: environment, meta: meta)
    }

    /// ``recordedSchemaVersion()`` of a store being opened.
    static func recordedSchemaVersion(environment: LMDBEnvironment, meta: Table) throws -> Schema.Version? {
        let key = StoreLayout.schemaVersionKey
        guard let stored = try environment.read({ txn in try txn.get(key, in: meta) }) else { return nil }
        let payload = try EntryLayout.metaPayload(stored, key: key)
        do {
            return try BinaryDecoder().decode(Schema.Version.self, from: payload)
        } catch {
            throw EntryLayout.damagedDescription(key: key, "cannot be decoded as a schema version")
        }
    }

    /// The `meta` entry that records `version`, or `nil` when the store records it already.
    static func schemaVersionEntry(
        _ version: Schema.Version, environment: LMDBEnvironment, meta: Table
    ) throws -> (key: [UInt8], value: [UInt8])? {
        guard (try? recordedSchemaVersion(environment: environment, meta: meta)) != version else { return nil }
        let key = StoreLayout.schemaVersionKey
        return (key, EntryLayout.metaValue(try BinaryEncoder().encode(version), key: key))
    }

    /// Whether the store holds a description of `entity` whose attributes include every one of
    /// `attributes` by name: how a store that recorded no version is matched to a version of a
    /// migration plan.
    func describes(_ entity: String, with attributes: [String]) throws -> Bool {
        let key = StoreLayout.entityDescriptionKey(entity)
        guard let stored = try environment.read({ txn in try txn.get(key, in: meta) }) else { return false }
        let description: StoredEntity
        do {
            description = try BinaryDecoder().decode(StoredEntity.self, from: EntryLayout.metaPayload(stored, key: key))
        } catch {
            throw EntryLayout.damagedDescription(key: key, "cannot be decoded")
        }
        let names = Set(description.attributes.map(\.name))
        return attributes.allSatisfy(names.contains)
    }
}

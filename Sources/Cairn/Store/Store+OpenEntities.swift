import CairnStorage
import Foundation

// Opening a store's entities: each entity's stored description reconciled with the schema (tags,
// class numbers, a hierarchy's shared tables) and its tables opened. Apart from `Store.swift`,
// which holds the open store and its tables, as this is only the open's work.

extension Store {
    /// Reconciles each entity with its stored description, saving what changed, and opens its
    /// tables.
    ///
    /// The entities of a hierarchy of models (`Store+Hierarchy.swift`) share the root's record
    /// table and one tag counter, and a subentity's inherited attributes keep its superentity's
    /// tags; so descriptions are read first, and superentities reconciled before subentities.
    static func openEntities(
        _ schema: Schema, environment: LMDBEnvironment, meta: Table, readOnly: Bool, recordsVersion: Bool
    ) throws -> [String: EntityTables] {
        var opening = try EntityOpening(schema, environment: environment, meta: meta, readOnly: readOnly)
        try opening.numberClasses(of: schema)
        let catalog = opening.catalog
        let classNumbers = Dictionary(
            uniqueKeysWithValues: schema.entities.map { ($0.name, catalog.classNumber(of: $0.name)) })
        // Superentities before the entities that inherit from them.
        func depth(_ entity: Schema.Entity) -> Int {
            var depth = 0
            var up = entity.superentity
            while let next = up { (depth, up) = (depth + 1, next.superentity) }
            return depth
        }
        let ordered = schema.entities.enumerated().sorted {
            (depth($0.element), $0.offset) < (depth($1.element), $1.offset)
        }
        for entity in ordered.map(\.element) { try opening.open(entity) }
        linkHierarchies(opening.result, classNumbers: classNumbers)
        // Every member of a hierarchy keeps the hierarchy's next tag.
        for entity in schema.entities {
            guard let root = entity.hierarchyRoot?.name else { continue }
            opening.descriptions[entity.name]!.stored.nextTag = opening.hierarchyNextTag[root]!
        }
        var changed = try opening.changedDescriptions(of: schema)
        // The schema's version, for the next migration plan (`Store+SchemaVersion.swift`): written
        // with the description when that changes; alone, it is not a reason to refuse the store
        // (a full disk), so that write may fail.
        if !readOnly, recordsVersion,
            let version = try? schemaVersionEntry(schema.version, environment: environment, meta: meta)
        {
            if changed.isEmpty && opening.renamedEdges.isEmpty {
                _ = try? environment.write { txn in try txn.put(version.value, for: version.key, in: meta) }
            } else {
                changed.append(version)
            }
        }
        try opening.write(changed)
        return opening.result
    }

    /// An entity's stored description, decoded and checked.
    ///
    /// - Throws: `StorageError` `.damagedRecord`: a checksum mismatch or an undecodable
    ///   description is damage, never a schema change to report.
    static func decodeDescription(_ bytes: [UInt8], key: [UInt8], entity: String) throws -> StoredEntity {
        let payload = try EntryLayout.metaPayload(bytes, key: key)
        let decoded: StoredEntity
        do {
            decoded = try BinaryDecoder().decode(StoredEntity.self, from: payload)
        } catch {
            throw StorageError(
                code: .damagedRecord,
                message:
                    "The store's description is damaged: its description of entity \(entity) "
                    + "cannot be decoded. This is damage to the file, not a change of your models; "
                    + "restore the store from a backup.",
                cause: error)
        }
        try decoded.validate()
        return decoded
    }
}

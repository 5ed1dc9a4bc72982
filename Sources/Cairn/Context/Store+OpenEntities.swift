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
        var result: [String: EntityTables] = [:]
        var changed: [(key: [UInt8], value: [UInt8])] = []
        // Edge tables of relationships renamed with `originalName:`: their edges move to the new name's table.
        var renamedEdges: [(from: Table, to: Table)] = []
        var descriptions: [String: (stored: StoredEntity, existed: Bool)] = [:]
        for entity in schema.entities {
            let key = StoredEntity.metaKey(for: entity.name)
            let storedBytes = try environment.read { txn in try txn.get(key, in: meta) }
            descriptions[entity.name] = (
                try storedBytes.map { try decodeDescription($0, key: key, entity: entity.name) }
                    ?? StoredEntity(name: entity.name), storedBytes != nil
            )
        }
        let originals = descriptions.mapValues(\.stored)
        // Each hierarchy's next tag (the highest of its members'), and its subentities' class numbers.
        var hierarchyNextTag: [String: UInt32] = [:]
        var classNumbers: [String: Int] = [:]
        for entity in schema.entities {
            guard let root = entity.hierarchyRoot?.name else { continue }
            hierarchyNextTag[root] = max(hierarchyNextTag[root] ?? 1, descriptions[entity.name]!.stored.nextTag)
            guard root != entity.name else { continue }
            var names = descriptions[root]!.stored.subentityNames ?? []
            if !names.contains(entity.name) {
                names.append(entity.name)
                guard names.count < 1 << 16 else {
                    throw StorageError(
                        code: .unsupported,
                        message: "\(root) has had more than 65,535 subclasses over the store's life, and a "
                            + "hierarchy numbers that many at most. Give new model classes a superclass of their own.")
                }
                descriptions[root]!.stored.subentityNames = names
            }
            classNumbers[entity.name] = names.firstIndex(of: entity.name)! + 1
        }
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
        .map(\.element)
        for entity in ordered {
            let key = StoredEntity.metaKey(for: entity.name)
            var stored = descriptions[entity.name]!.stored
            let existed = descriptions[entity.name]!.existed
            let root = entity.hierarchyRoot
            let tableOwner = root?.name ?? entity.name
            // A table the store's description says exists must be there: a missing one had its
            // name in the main table damaged, and creating it anew would hide every row or edge
            // it held behind an empty table.
            func described(_ name: String, exists: Bool, flags: TableFlags = []) throws -> Table? {
                if exists, try environment.openTable(name, flags: flags, create: false) == nil {
                    throw StorageError(
                        code: .damaged,
                        message: "The store's table '\(name)' is missing, although the store's description of "
                            + "\(entity.name) says it holds data there: its entry in the main table is damaged. This is "
                            + "damage to the file, not a change of your models; restore the store from a backup.")
                }
                return try environment.openTable(name, flags: flags, create: !readOnly)
            }
            let records = try described(
                "e/\(tableOwner)", exists: root == nil ? existed : descriptions[tableOwner]!.existed)
            guard let records else {
                throw StorageError(
                    code: .readOnly,
                    message: "The store has no table for \(entity.name) and is read-only. Open it once with "
                        + "allowsSave: true.")
            }
            let hasRows: Bool
            if let root, root !== entity {
                // A subentity has had rows if its class's counter moved.
                hasRows = try environment.read { txn in
                    try RowAppender.nextRow(of: entity.name, meta: meta, txn: txn) > 1
                }
            } else {
                hasRows = try environment.read { txn in try txn.count(of: records) } > 0
            }
            // The description is committed before any row can be (here, before the first save),
            // so rows without one mean its entry is damaged (a flipped bit in its key hides it),
            // not a new entity whose attributes the rows lack.
            if !existed && hasRows && root == nil {
                throw EntryLayout.damagedDescription(key: key, "is missing, although \(entity.name) has stored rows")
            }
            let describedRelationships = existed ? Set(stored.relationships.map(\.name)) : []
            if let root { stored.nextTag = max(stored.nextTag, hierarchyNextTag[root.name]!) }
            let inherited = entity.superentity.flatMap { result[$0.name]?.tags } ?? [:]
            let tags = try stored.reconcile(
                with: entity, hasRows: hasRows,
                inherited: inherited.filter { name, _ in entity.superentity?.attributesByName[name] != nil })
            if let root { hierarchyNextTag[root.name] = stored.nextTag }
            descriptions[entity.name]!.stored = stored
            var edges: [String: Table] = [:]
            for relationship in entity.relationships {
                // An inherited relationship's edges are in the table of the entity that declares it.
                let declaring = entity.declaring { $0.relationshipsByName[relationship.name] != nil }
                let name = "r/\(declaring.name)/\(relationship.name)"
                let declaredHere = declaring === entity
                let declaringDescribed =
                    declaredHere
                    ? describedRelationships
                    : Set(originals[declaring.name].map { $0.relationships.map(\.name) } ?? [])
                // A relationship renamed with `originalName:` takes its edges from the table of
                // its old name, in the transaction that records the new description.
                let oldName = relationship.originalName
                if declaredHere, oldName != relationship.name, describedRelationships.contains(oldName),
                    !describedRelationships.contains(relationship.name)
                {
                    guard !readOnly else {
                        throw StorageError(
                            code: .readOnly,
                            message:
                                "\(entity.name).\(relationship.name) was renamed from \(oldName), and the store is "
                                + "read-only. Open it once with allowsSave: true to move its relationships.")
                    }
                    if let old = try described("r/\(entity.name)/\(oldName)", exists: true, flags: Store.edgeFlags),
                        let new = try described(name, exists: false, flags: Store.edgeFlags)
                    {
                        renamedEdges.append((from: old, to: new))
                    }
                }
                guard
                    let table = try described(
                        name, exists: declaringDescribed.contains(relationship.name), flags: Store.edgeFlags)
                else {
                    throw StorageError(
                        code: .readOnly,
                        message:
                            "The store has no table for \(entity.name).\(relationship.name) and is read-only. Open "
                            + "it once with allowsSave: true.")
                }
                edges[relationship.name] = table
            }
            var externals: Table?
            if entity.attributes.contains(where: { $0.options.contains(.externalStorage) && !$0.isTransient }) {
                externals = try environment.openTable("x/\(tableOwner)", create: !readOnly)
                if externals == nil {
                    throw StorageError(
                        code: .readOnly,
                        message: "The store has no external-storage table for \(entity.name) and is read-only. Open it "
                            + "once with allowsSave: true.")
                }
            }
            let tables = EntityTables(
                entity: entity, ordinal: result.count, records: records, tags: tags, edges: edges, externals: externals,
                foreignTags: Set(stored.attributes.map(\.tag)).subtracting(tags.values))
            func keyTable(
                _ names: [String], prefix: String, flags: TableFlags, purpose: String,
                declaredIn has: (Schema.Entity) -> Bool
            ) throws -> EntityTables.UniqueConstraint {
                let parts = try names.map { name throws -> (AnyObject, inout KeyBuilder) -> Bool in
                    guard let appendKey = entity.attributesByName[name]?.access?.appendKey else {
                        throw SchemaError(
                            code: .invalidConstraint, entity: entity.name, property: name,
                            message: "\(entity.name).\(name) is in \(purpose), but its type "
                                + "(\(entity.attributesByName[name].map { "\($0.valueType)" } ?? "?")) has no key encoding. "
                                + "Use attributes of type Bool, integers, Float, Double, Date, String, UUID, Data, "
                                + "or an optional of these.")
                    }
                    return appendKey
                }
                // An inherited constraint or index covers the whole hierarchy: its declaring entity's table.
                let declaring = entity.declaring(has)
                guard
                    let table = try environment.openTable(
                        "\(prefix)/\(declaring.name)/\(names.joined(separator: ","))", flags: flags, create: !readOnly)
                else {
                    throw StorageError(
                        code: .readOnly,
                        message: "The store has no table for \(purpose) of \(entity.name) and is read-only. Open it "
                            + "once with allowsSave: true.")
                }
                return EntityTables.UniqueConstraint(
                    names: names, table: table, isUnique: prefix == "u", parts: parts,
                    attributeIndexes: names.map { entity.attributesByName[$0]!.index! })
            }
            tables.uniques = try entity.uniquenessConstraints.map { names in
                try keyTable(
                    names, prefix: "u", flags: [], purpose: "a uniqueness constraint",
                    declaredIn: { $0.uniquenessConstraints.contains(names) })
            }
            tables.indexes = try entity.indices.map { names in
                try keyTable(
                    names, prefix: "i", flags: [.duplicateSort, .duplicateFixed], purpose: "an index",
                    declaredIn: { $0.indices.contains(names) })
            }
            tables.keyedAttributeIndexes = tables.propertyIndexes(
                of: (tables.uniques + tables.indexes).flatMap(\.names))
            // A unique or index table with no key while the entity has rows was added by this
            // schema (every row has a key in each): the container fills it before it is used.
            if hasRows && !readOnly {
                tables.unfilledKeyTables = try environment.read { txn in
                    try (tables.uniques + tables.indexes).filter { try txn.count(of: $0.table) == 0 }
                }
            }
            result[entity.name] = tables
        }
        linkHierarchies(result, classNumbers: classNumbers)
        // Every member of a hierarchy keeps the hierarchy's next tag.
        for entity in schema.entities {
            guard let root = entity.hierarchyRoot?.name else { continue }
            descriptions[entity.name]!.stored.nextTag = hierarchyNextTag[root]!
        }
        for entity in schema.entities {
            let (stored, existed) = descriptions[entity.name]!
            guard stored != originals[entity.name] || !existed else { continue }
            // A read-only store keeps a description that lacks only the notes for tools.
            if readOnly, existed, let original = originals[entity.name], stored.hasTheSameContents(as: original) {
                continue
            }
            guard !readOnly else {
                throw StorageError(
                    code: .readOnly,
                    message: "The store's description of \(entity.name) differs from the schema, and the store "
                        + "is read-only. Open it once with allowsSave: true to record the schema.")
            }
            let key = StoredEntity.metaKey(for: entity.name)
            changed.append((key, EntryLayout.metaValue(try BinaryEncoder().encode(stored), key: key)))
        }
        // The schema's version, for the next migration plan (`Store+SchemaVersion.swift`): written
        // with the description when that changes; alone, it is not a reason to refuse the store
        // (a full disk), so that write may fail.
        if !readOnly, recordsVersion,
            let version = try? schemaVersionEntry(schema.version, environment: environment, meta: meta)
        {
            if changed.isEmpty && renamedEdges.isEmpty {
                _ = try? environment.write { txn in try txn.put(version.value, for: version.key, in: meta) }
            } else {
                changed.append(version)
            }
        }
        if !changed.isEmpty || !renamedEdges.isEmpty {
            try environment.write { txn in
                for (key, value) in changed { try txn.put(value, for: key, in: meta) }
                for (old, new) in renamedEdges {
                    var entries: [(key: [UInt8], value: [UInt8])] = []
                    try txn.scan(old) { key, value in
                        entries.append((Array(key), Array(value)))
                        return true
                    }
                    for (key, value) in entries { try txn.put(value, for: key, in: new) }
                    try txn.removeAll(from: old)
                }
            }
        }
        return result
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

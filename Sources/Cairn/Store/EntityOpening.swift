import CairnStorage

/// The steps of opening a store's entities (`Store.openEntities`), and what they share: the
/// stored descriptions as they are reconciled, each hierarchy's next tag, the relationships whose
/// edges move to a new name, and the entities' tables opened so far.
struct EntityOpening {
    let environment: LMDBEnvironment
    let meta: Table
    let readOnly: Bool
    /// Each entity's stored description (reconciled as the steps go) and whether it was stored.
    var descriptions: [String: (stored: StoredEntity, existed: Bool)] = [:]
    /// The descriptions as they were read.
    let originals: [String: StoredEntity]
    /// Each hierarchy's next tag (the highest of its members').
    var hierarchyNextTag: [String: UInt32] = [:]
    /// Edge tables of relationships renamed with `originalName:`: their edges move to the new name's table.
    var renamedEdges: [(from: Table, to: Table)] = []
    /// The entities opened so far, superentities first.
    var result: [String: Store.EntityTables] = [:]

    /// Reads every entity's stored description.
    init(_ schema: Schema, environment: LMDBEnvironment, meta: Table, readOnly: Bool) throws {
        self.environment = environment
        self.meta = meta
        self.readOnly = readOnly
        for entity in schema.entities {
            let key = StoreLayout.entityDescriptionKey(entity.name)
            let storedBytes = try environment.read { txn in try txn.get(key, in: meta) }
            descriptions[entity.name] = (
                try storedBytes.map { try Store.decodeDescription($0, key: key, entity: entity.name) }
                    ?? StoredEntity(name: entity.name), storedBytes != nil
            )
        }
        originals = descriptions.mapValues(\.stored)
    }

    /// Each hierarchy's next tag, and its subentities' class numbers: new subentities are listed
    /// after those the root's description lists (``catalog`` numbers them by that list).
    mutating func numberClasses(of schema: Schema) throws {
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
        }
    }

    /// The store's shape as the descriptions, reconciled so far, give it: roots and class numbers
    /// (no table names: the tables are opened from the schema).
    var catalog: StoreCatalog {
        StoreCatalog(descriptions: descriptions.mapValues(\.stored), tableNames: [])
    }

    /// Reconciles `entity` with its stored description and opens its tables (its superentity's
    /// are open already).
    mutating func open(_ entity: Schema.Entity) throws {
        let key = StoreLayout.entityDescriptionKey(entity.name)
        var stored = descriptions[entity.name]!.stored
        let existed = descriptions[entity.name]!.existed
        let root = entity.hierarchyRoot
        let (records, hasRows) = try recordTable(of: entity)
        // The description is committed before any row can be (here, before the first save),
        // so rows without one mean its entry is damaged (a flipped bit in its key hides it),
        // not a new entity whose attributes the rows lack.
        if !existed && hasRows && root == nil {
            throw EntryLayout.damagedDescription(key: key, "is missing, although \(entity.name) has stored rows")
        }
        let describedRelationships = existed ? Set(stored.relationships.map(\.name)) : []
        if let root { stored.nextTag = max(stored.nextTag, hierarchyNextTag[root.name]!) }
        let inherited = entity.superentity.flatMap { result[$0.name]?.codec.tags } ?? [:]
        let tags = try stored.reconcile(
            with: entity, hasRows: hasRows,
            inherited: inherited.filter { name, _ in entity.superentity?.attributesByName[name] != nil },
            // A hierarchy's rows share one table with other classes': not read for one of them.
            storedValues: { tag, attribute in
                root == nil ? Self.values(in: records, tag: tag, readAs: attribute, in: environment) : .unknown
            })
        if let root { hierarchyNextTag[root.name] = stored.nextTag }
        descriptions[entity.name]!.stored = stored
        let tables = Store.EntityTables(
            entity: entity, ordinal: result.count, records: records, tags: tags,
            edges: try edgeTables(of: entity, described: describedRelationships),
            externals: try externalTable(of: entity),
            foreignTags: Set(stored.attributes.map(\.tag)).subtracting(tags.values))
        try openKeyTables(of: entity, into: tables, hasRows: hasRows)
        result[entity.name] = tables
    }

    /// Opens table `name` of `entity`, creating it unless read-only. A table the store's
    /// description says exists must be there: a missing one had its name in the main table
    /// damaged, and creating it anew would hide every row or edge it held behind an empty table.
    private func described(
        _ name: String, of entity: Schema.Entity, exists: Bool, flags: TableFlags = []
    ) throws -> Table? {
        if exists, try environment.openTable(name, flags: flags, create: false) == nil {
            throw StorageError(
                code: .damaged,
                message: "The store's table '\(name)' is missing, although the store's description of "
                    + "\(entity.name) says it holds data there: its entry in the main table is damaged. This is "
                    + "damage to the file, not a change of your models; restore the store from a backup.")
        }
        return try environment.openTable(name, flags: flags, create: !readOnly)
    }

    /// How many records `records` holds, how many hold a value under `tag`, and whether each
    /// reads as `attribute`'s type (`false` too when a record cannot be read).
    private static func values(
        in records: Table, tag: UInt32, readAs attribute: Schema.Attribute, in environment: LMDBEnvironment
    ) -> StoredEntity.StoredValues {
        guard let access = attribute.access else { return .unknown }
        var found = StoredEntity.StoredValues()
        do {
            try environment.read { txn in
                try txn.scan(records) { key, value in
                    guard key.count == 8 else { return true }
                    found.rows += 1
                    let record = try RecordReader(Array(value), key: Array(key))
                    guard record.payload(tag: tag) != nil else { return true }
                    found.count += 1
                    _ = try access.value(tag: tag, in: record)
                    return true
                }
            }
        } catch {
            found.allRead = false
        }
        return found
    }

    /// The entity's record table (its hierarchy's, shared) and whether it has had rows.
    private func recordTable(of entity: Schema.Entity) throws -> (Table, hasRows: Bool) {
        let root = entity.hierarchyRoot
        let tableOwner = root?.name ?? entity.name
        let existed = descriptions[root == nil ? entity.name : tableOwner]!.existed
        guard let records = try described(StoreLayout.recordsTable(of: tableOwner), of: entity, exists: existed) else {
            throw StorageError(
                code: .readOnly,
                message: "The store has no table for \(entity.name) and is read-only. Open it once with "
                    + "allowsSave: true.")
        }
        if let root, root !== entity {
            // A subentity has had rows if its class's counter moved.
            let hasRows = try environment.read { txn in
                try txn.nextRow(of: entity.name, meta: meta) > 1
            }
            return (records, hasRows)
        }
        return (records, try environment.read { txn in try txn.count(of: records) } > 0)
    }

    /// The edge table of each relationship (an inherited one's is the declaring entity's); a
    /// relationship renamed with `originalName:` takes its edges from its old name's table, in
    /// the transaction that records the new description.
    private mutating func edgeTables(
        of entity: Schema.Entity, described describedHere: Set<String>
    ) throws
        -> [String: Table]
    {
        var edges: [String: Table] = [:]
        for relationship in entity.relationships {
            let declaring = entity.declaring { $0.relationshipsByName[relationship.name] != nil }
            let name = StoreLayout.edgeTable(of: declaring.name, relationship.name)
            let declaredHere = declaring === entity
            let declaringDescribed =
                declaredHere ? describedHere : Set(originals[declaring.name].map { $0.relationships.map(\.name) } ?? [])
            let oldName = relationship.originalName
            if declaredHere, oldName != relationship.name, describedHere.contains(oldName),
                !describedHere.contains(relationship.name)
            {
                guard !readOnly else {
                    throw StorageError(
                        code: .readOnly,
                        message: "\(entity.name).\(relationship.name) was renamed from \(oldName), and the store is "
                            + "read-only. Open it once with allowsSave: true to move its relationships.")
                }
                if let old = try described(
                    StoreLayout.edgeTable(of: entity.name, oldName), of: entity, exists: true, flags: Store.edgeFlags),
                    let new = try described(name, of: entity, exists: false, flags: Store.edgeFlags)
                {
                    renamedEdges.append((from: old, to: new))
                }
            }
            guard
                let table = try described(
                    name, of: entity, exists: declaringDescribed.contains(relationship.name), flags: Store.edgeFlags)
            else {
                throw StorageError(
                    code: .readOnly,
                    message: "The store has no table for \(entity.name).\(relationship.name) and is read-only. Open "
                        + "it once with allowsSave: true.")
            }
            edges[relationship.name] = table
        }
        return edges
    }

    /// The external-storage table, for an entity with an `.externalStorage` attribute.
    private func externalTable(of entity: Schema.Entity) throws -> Table? {
        guard entity.attributes.contains(where: { $0.options.contains(.externalStorage) && !$0.isTransient }) else {
            return nil
        }
        let tableOwner = entity.hierarchyRoot?.name ?? entity.name
        guard let externals = try environment.openTable(StoreLayout.externalsTable(of: tableOwner), create: !readOnly)
        else {
            throw StorageError(
                code: .readOnly,
                message: "The store has no external-storage table for \(entity.name) and is read-only. Open it "
                    + "once with allowsSave: true.")
        }
        return externals
    }

    /// The uniqueness constraints' and indexes' tables; one with no key while the entity has rows
    /// was added by this schema (every row has a key in each), and the container fills it first.
    /// In an encrypted store, a sensitive attribute (``Schema/Attribute/Option/allowsCloudEncryption``)
    /// is keyed by its keyed hash, in tables whose names say so (`Docs/Encryption.md`).
    private func openKeyTables(of entity: Schema.Entity, into tables: Store.EntityTables, hasRows: Bool) throws {
        let hasher = environment.keyHasher
        tables.keys.hasher = hasher
        tables.keys.hashedAttributes =
            hasher == nil ? [] : Set(entity.attributes.filter(\.isSensitive).map(\.name))
        tables.keys.uniques = try entity.uniquenessConstraints.map { names in
            try keyTable(
                names, of: entity, tables: tables, kind: .unique, flags: [], purpose: "a uniqueness constraint",
                declaredIn: { $0.uniquenessConstraints.contains(names) })
        }
        tables.keys.indexes = try entity.indices.map { names in
            try keyTable(
                names, of: entity, tables: tables, kind: .index, flags: [.duplicateSort, .duplicateFixed],
                purpose: "an index", declaredIn: { $0.indices.contains(names) })
        }
        tables.keys.attributeIndexes = tables.propertyIndexes(
            of: (tables.keys.uniques + tables.keys.indexes).flatMap(\.names))
        tables.keys.texts = try entity.attributes.filter(Store.EntityTables.TextIndex.indexes).map {
            try textIndex($0, of: entity, tables: tables)
        }
        tables.keys.vectors = try entity.attributes.compactMap { attribute in
            try Store.EntityTables.VectorIndex.shape(of: attribute).map {
                try vectorIndex(attribute, shape: $0, of: entity, tables: tables)
            }
        }
        if !readOnly {
            try emptyUndeclaredKeyTables(of: entity, declared: tables.keys)
            try emptyVectorTablesOfChangedShape(tables.keys.vectors)
        }
        if hasRows { try emptyKeyTablesOfChangedOptionality(of: entity, in: tables) }
        if hasRows && !readOnly {
            (tables.keys.unfilled, tables.keys.unfilledTexts, tables.keys.unfilledVectors) = try environment.read {
                txn in
                (
                    try (tables.keys.uniques + tables.keys.indexes).filter { try txn.count(of: $0.table) == 0 },
                    try tables.keys.texts.filter { try txn.count(of: $0.table) == 0 },
                    try tables.keys.vectors.filter { try txn.count(of: $0.table) == 0 }
                )
            }
        }
    }

    /// The vector index of a `.vector` attribute; an inherited one covers the whole hierarchy,
    /// in its declaring entity's table.
    private func vectorIndex(
        _ attribute: Schema.Attribute, shape: VectorShape, of entity: Schema.Entity, tables: Store.EntityTables
    ) throws -> Store.EntityTables.VectorIndex {
        let (tag, table) = try attributeIndexTable(attribute, of: entity, tables: tables, kind: "vector index") {
            StoreLayout.vectorTable(of: $0, attribute.name)
        }
        return Store.EntityTables.VectorIndex(attribute: attribute, shape: shape, tag: tag, table: table)
    }

    /// The table of an index kept per attribute, named by `name` after the entity that declares
    /// the attribute (an inherited attribute's covers the whole hierarchy), created unless the
    /// store is read-only, and the attribute's field tag.
    private func attributeIndexTable(
        _ attribute: Schema.Attribute, of entity: Schema.Entity, tables: Store.EntityTables, kind: String,
        name: (_ declaringEntity: String) -> String
    ) throws -> (tag: UInt32, table: Table) {
        let declaring = entity.declaring { $0.attributesByName[attribute.name] != nil }
        guard let tag = tables.codec.tags[attribute.name],
            let table = try environment.openTable(name(declaring.name), create: !readOnly)
        else {
            throw StorageError(
                code: .readOnly,
                message: "The store has no \(kind) for \(entity.name).\(attribute.name) and is read-only. "
                    + "Open it once with allowsSave: true.")
        }
        return (tag, table)
    }

    /// Empties the vector tables built for another length or metric than the schema now
    /// declares, so they are built again from the records.
    private func emptyVectorTablesOfChangedShape(_ indexes: [Store.EntityTables.VectorIndex]) throws {
        let stale = try environment.read { txn in
            try indexes.filter { index in
                let header = try VectorGraphReader(table: index.table, distance: index.distance).header(in: txn)
                return header.map { $0.metric != index.distance.metric || $0.dimensions != index.distance.dimensions }
                    ?? false
            }
        }
        guard !stale.isEmpty else { return }
        try environment.write { txn in
            for index in stale { try txn.removeAll(from: index.table) }
        }
    }

    /// The full-text index of a `.spotlight` text attribute; an inherited one covers the whole
    /// hierarchy, in its declaring entity's table. In an encrypted store its terms are keyed
    /// hashes, in a table whose name says so.
    private func textIndex(
        _ attribute: Schema.Attribute, of entity: Schema.Entity, tables: Store.EntityTables
    ) throws -> Store.EntityTables.TextIndex {
        let hasher = environment.keyHasher
        let (tag, table) = try attributeIndexTable(attribute, of: entity, tables: tables, kind: "full-text index") {
            StoreLayout.textTable(of: $0, attribute.name, hashed: hasher != nil)
        }
        return Store.EntityTables.TextIndex(attribute: attribute, tag: tag, table: table, hasher: hasher)
    }

    /// Empties the key and full-text tables `entity` declared once and does not now (a removed
    /// index, constraint or `.spotlight`, or one whose attributes are now keyed in the other
    /// form): no save keeps them
    /// current, so declaring them again must find them empty (and fill them), `cairn verify`
    /// must not read stale entries as damage, and a sensitive attribute's values, once hashed,
    /// must not stay in clear in the table of its earlier form.
    private func emptyUndeclaredKeyTables(of entity: Schema.Entity, declared: Store.EntityTables.KeyTables) throws {
        let current = Set(
            (declared.uniques + declared.indexes).map(\.table.name) + declared.texts.map(\.table.name)
                + declared.vectors.map(\.table.name))
        let names = try environment.tableNames()
        let undeclared =
            StoreLayout.KeyTableKind.allCases.flatMap { kind in
                StoreLayout.keyTables(kind, of: entity.name, among: names).map(\.name)
            }.filter { !current.contains($0) }
            + (StoreLayout.textTables(of: entity.name, among: names)
                + StoreLayout.vectorTables(of: entity.name, among: names)).filter { !current.contains($0) }
        let catalog = TableCatalog(environment: environment)
        let tables = try undeclared.compactMap { name in
            try environment.openTable(name, flags: catalog.storedFlags(of: name))
        }
        let stale = try environment.read { txn in try tables.filter { try txn.count(of: $0) > 0 } }
        guard !stale.isEmpty else { return }
        try environment.write { txn in
            for table in stale { try txn.removeAll(from: table) }
        }
    }

    /// Empties the key tables of attributes whose optionality changed since the description was
    /// written (allowed without a migration stage): their entries are in the other key encoding
    /// (an optional's key has a presence byte), so the table is filled again from the records, as
    /// a new one is. Descriptions written before they noted optionality cannot tell.
    private func emptyKeyTablesOfChangedOptionality(of entity: Schema.Entity, in tables: Store.EntityTables) throws {
        let stored = originals[entity.name]?.attributes ?? []
        let changed = Set(
            stored.compactMap { attribute -> String? in
                guard let was = attribute.isOptional, let now = entity.attributesByName[attribute.name]?.isOptional,
                    was != now
                else { return nil }
                return attribute.name
            })
        let stale = (tables.keys.uniques + tables.keys.indexes).filter { $0.names.contains(where: changed.contains) }
        guard !stale.isEmpty else { return }
        guard !readOnly else {
            throw StorageError(
                code: .readOnly,
                message: "\(entity.name).\(stale[0].names.joined(separator: ", ")) changed optionality, so its "
                    + "\(stale[0].isUnique ? "uniqueness constraint" : "index") must be rebuilt, and the store is "
                    + "read-only. Open it once with allowsSave: true.")
        }
        try environment.write { txn in
            for constraint in stale { try txn.removeAll(from: constraint.table) }
        }
    }

    /// One uniqueness constraint's or index's table and key parts. An inherited one covers the
    /// whole hierarchy: its declaring entity's table.
    private func keyTable(
        _ names: [String], of entity: Schema.Entity, tables: Store.EntityTables, kind: StoreLayout.KeyTableKind,
        flags: TableFlags, purpose: String, declaredIn has: (Schema.Entity) -> Bool
    ) throws -> Store.EntityTables.UniqueConstraint {
        let hashed = tables.keys.hashedAttributes.intersection(names)
        let parts = try names.map { name in
            try keyPart(
                name, of: entity, tags: tables.codec.tags, purpose: purpose,
                hasher: hashed.contains(name) ? tables.keys.hasher : nil)
        }
        let declaring = entity.declaring(has)
        guard
            let table = try environment.openTable(
                StoreLayout.keyTable(kind, of: declaring.name, names, hashed: hashed), flags: flags, create: !readOnly)
        else {
            throw StorageError(
                code: .readOnly,
                message: "The store has no table for \(purpose) of \(entity.name) and is read-only. Open it "
                    + "once with allowsSave: true.")
        }
        return Store.EntityTables.UniqueConstraint(
            names: names, table: table, parts: parts.map(\.model),
            recordKey: RecordKey(parts: parts.map(\.record), isUnique: kind == .unique),
            attributeIndexes: names.map { entity.attributesByName[$0]!.index! })
    }

    /// How the attribute `name` is keyed: from a model's storage, and from a stored record.
    /// With a `hasher`, the value's key is its keyed hash (a sensitive attribute in an encrypted store).
    private func keyPart(
        _ name: String, of entity: Schema.Entity, tags: [String: UInt32], purpose: String, hasher: KeyHasher?
    ) throws -> (model: (AnyObject, inout KeyBuilder) -> Bool, record: RecordKey.Part) {
        let attribute = entity.attributesByName[name]
        guard let attribute, let appendKey = attribute.access?.appendKey,
            let native = NativeValues.type(of: attribute.valueType), let tag = tags[name]
        else {
            throw SchemaError(
                code: .invalidConstraint, entity: entity.name, property: name,
                message: "\(entity.name).\(name) is in \(purpose), but its type "
                    + "(\(attribute.map { "\($0.valueType)" } ?? "?")) has no key encoding. "
                    + "Use attributes of type \(NativeValues.names), or an optional of these.")
        }
        guard !attribute.options.contains(.externalStorage) else {
            throw SchemaError(
                code: .invalidConstraint, entity: entity.name, property: name,
                message: "\(entity.name).\(name) is in \(purpose), but it is stored outside its record "
                    + "(.externalStorage), where no key is kept. Remove one of the two.")
        }
        let defaultValue = native.isOptional ? nil : attribute.defaultValue as? any NativeValue
        let record = RecordKey.Part(
            tag: tag, type: native.native, isOptional: native.isOptional, defaultValue: defaultValue, hasher: hasher)
        guard let hasher else { return (appendKey, record) }
        return (
            { model, builder in builder.appendComponent(hashedWith: hasher) { appendKey(model, &$0) } }, record
        )
    }

    /// The `meta` entries of the descriptions that changed (a read-only store keeps a description
    /// that lacks only the notes for tools; any other change refuses it).
    func changedDescriptions(of schema: Schema) throws -> [(key: [UInt8], value: [UInt8])] {
        var changed: [(key: [UInt8], value: [UInt8])] = []
        for entity in schema.entities {
            let (stored, existed) = descriptions[entity.name]!
            guard stored != originals[entity.name] || !existed else { continue }
            if readOnly, existed, let original = originals[entity.name], stored.hasTheSameContents(as: original) {
                continue
            }
            guard !readOnly else {
                throw StorageError(
                    code: .readOnly,
                    message: "The store's description of \(entity.name) differs from the schema, and the store "
                        + "is read-only. Open it once with allowsSave: true to record the schema.")
            }
            let key = StoreLayout.entityDescriptionKey(entity.name)
            changed.append((key, EntryLayout.metaValue(try BinaryEncoder().encode(stored), key: key)))
        }
        return changed
    }

    /// Writes the changed `meta` entries and moves renamed relationships' edges, in one transaction.
    func write(_ changed: [(key: [UInt8], value: [UInt8])]) throws {
        guard !changed.isEmpty || !renamedEdges.isEmpty else { return }
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
}

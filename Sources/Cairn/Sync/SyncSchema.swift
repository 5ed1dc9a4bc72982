import CairnSyncProtocol

/// What of a store's schema syncs: the entities chosen (all by default) and, of each, the fields
/// that travel — every persisted attribute (`.externalStorage` ones too, read from their own
/// entries), and the relationships that carry each link once.
///
/// A link between two rows lives on both sides of an inverse pair, and writing both sides would
/// let two replicas' concurrent changes disagree (one side from each). So one side travels, and
/// a receiver sets it as the app would, so the inverse follows (`Docs/Sync.md`, "Relationships"):
/// of a to-one and a to-many, the to-one (each book's author, not the author's list: two
/// replicas adding different books to one author both keep theirs); of two to-ones or two
/// to-manys, the side whose entity and name sort first; a relationship without an inverse travels.
/// A to-many whose inverse travels sends its order (``Entity/orders``): members come from the
/// links, and the list's newest order written decides where they stand, so every replica holds
/// the list in one order (`Docs/Sync.md`, "Lists").
///
/// ```swift
/// let schema = SyncSchema(store: store, only: nil)
/// schema.entities["Book"]?.relationships.keys   // ["author"], not Author's "books"
/// ```
struct SyncSchema {
    /// One synced entity.
    struct Entity {
        let tables: Store.EntityTables
        /// The synced attributes by the name they travel under (``renamed``).
        let attributes: [String: Attribute]
        /// The relationships that travel, by name.
        let relationships: [String: Schema.Relationship]
        /// The to-many relationships whose inverse travels and whose order does, by name, each
        /// with the name of the inverse (whose writes' stamps order members the order leaves out).
        let orders: [String: (relationship: Schema.Relationship, inverse: String)]

        /// The synced fields whose name in this schema differs from the name they travel under
        /// (their `originalName`, which a lightweight migration renames from): schema name →
        /// travelling name.
        let renamed: [String: String]

        /// The name field `name` of this schema (or of a history entry) travels under.
        func wireName(_ name: String) -> String { renamed[name] ?? name }

        /// `change` with its fields under the names they travel under here: a replica that
        /// renamed a field sends it under its original name, and one a version newer than that
        /// may send this schema's name.
        func normalized(_ change: RowChange) -> RowChange {
            guard !renamed.isEmpty, change.fields.keys.contains(where: { !travels($0) && renamed[$0] != nil }) else {
                return change
            }
            var normalized = change
            normalized.fields = [:]
            for (name, field) in change.fields {
                let wire = travels(name) ? name : wireName(name)
                if normalized.fields[wire].map({ $0.stamp < field.stamp }) ?? true { normalized.fields[wire] = field }
            }
            return normalized
        }

        /// Every field that travels.
        var fieldNames: [String] { Array(attributes.keys) + Array(relationships.keys) + Array(orders.keys) }

        /// Whether field `name` travels.
        func travels(_ name: String) -> Bool {
            attributes[name] != nil || relationships[name] != nil || orders[name] != nil
        }

        /// The relationship, travelling or sending its order, named `name`.
        func link(_ name: String) -> Schema.Relationship? { relationships[name] ?? orders[name]?.relationship }
    }

    /// A synced attribute, its record tag, the name of its stored type (which every value on
    /// the wire carries; worked out once, as it takes a reflection of the type), and whether its
    /// value is stored apart from the record (`.externalStorage`).
    struct Attribute {
        let attribute: Schema.Attribute
        let tag: UInt32
        let typeName: String
        let isExternal: Bool

        /// The record that holds this attribute's stored value for `row`: `record` (the row's),
        /// or for an `.externalStorage` attribute its own entry (`nil` when it has none, which
        /// reads as the default value).
        ///
        /// - Throws: `StorageError` when the entry is damaged.
        func storedRecord(
            row: UInt64, record: RecordReader, tables: Store.EntityTables,
            _ txn: borrowing some StorageTransaction & ~Copyable
        ) throws -> RecordReader? {
            guard isExternal else { return record }
            guard let externals = tables.layout.externals else { return nil }
            let key = EntryLayout.externalKey(row: row, tag: tag)
            return try txn.withValue(for: key, in: externals) { try RecordReader(copying: $0, key: key) }
        }
    }

    /// The synced entities by name.
    let entities: [String: Entity]

    /// Every synced field as `entity.field`, sorted: what changes when the schema does.
    var signature: [UInt8] {
        let names = entities.flatMap { name, entity in entity.fieldNames.map { name + "." + $0 } }
        return Array(names.sorted().joined(separator: "\n").utf8)
    }

    /// The synced part of `store`'s schema: the entities named in `only` (every entity when `nil`).
    init(store: Store, only: Set<String>?) {
        let chosen = store.entities.filter { only?.contains($0.key) ?? true }
        var entities: [String: Entity] = [:]
        for (name, tables) in chosen {
            var attributes: [String: Attribute] = [:]
            for attribute in tables.entity.attributes where !attribute.isTransient && attribute.access != nil {
                guard let tag = tables.codec.tags[attribute.name] else { continue }
                attributes[attribute.originalName] = Attribute(
                    attribute: attribute, tag: tag, typeName: StoredEntity.typeName(attribute.valueType),
                    isExternal: attribute.index.map { tables.codec.externalAttributes[$0] != nil } ?? false)
            }
            var relationships: [String: Schema.Relationship] = [:]
            var orders: [String: (relationship: Schema.Relationship, inverse: String)] = [:]
            for relationship in tables.entity.relationships where chosen[relationship.destination] != nil {
                let inverse = tables.inverses[relationship.index]?.inverse
                if Self.travels(relationship, of: tables.entity, inverse: inverse) {
                    relationships[relationship.originalName] = relationship
                } else if let inverse, !relationship.isToOneRelationship {
                    orders[relationship.originalName] = (relationship, inverse.originalName)
                }
            }
            var renamed: [String: String] = [:]
            for (wire, attribute) in attributes where attribute.attribute.name != wire { renamed[attribute.attribute.name] = wire }
            for (wire, relationship) in relationships where relationship.name != wire { renamed[relationship.name] = wire }
            for (wire, order) in orders where order.relationship.name != wire { renamed[order.relationship.name] = wire }
            entities[name] = Entity(
                tables: tables, attributes: attributes, relationships: relationships, orders: orders, renamed: renamed)
        }
        self.entities = entities
    }

    /// Whether `relationship` of `entity` is the side of its inverse pair that travels.
    static func travels(
        _ relationship: Schema.Relationship, of entity: Schema.Entity, inverse: Schema.Relationship?
    ) -> Bool {
        guard let inverse else { return true }
        if relationship.isToOneRelationship != inverse.isToOneRelationship { return relationship.isToOneRelationship }
        return (entity.name, relationship.name) <= (relationship.destination, inverse.name)
    }
}

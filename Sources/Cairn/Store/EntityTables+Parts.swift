import CairnStorage
import Foundation

extension Store.EntityTables {
    /// Where an entity's rows, edges and external values are, and its properties by index.
    struct Layout {
        /// `e/<Entity>`: row id (u64 big-endian) → record.
        let records: Table
        /// `r/<Entity>/<relationship>` by relationship name: owner row id → rank and target row id.
        let edges: [String: Table]
        /// ``edges`` by the relationship's property index: a save names each list's table, and
        /// hashing the name was a string hash per list written.
        private let edgesByIndex: ByPropertyIndex<Table>
        /// `x/<Entity>`: row id and tag (u64 and u32, big-endian) → the value of an
        /// `.externalStorage` attribute, as a one-field record; `nil` when the entity has none.
        let externals: Table?
        /// The relationships by property index.
        let relationshipsByIndex: ByPropertyIndex<Schema.Relationship>
        /// Each persisted property's name by property index ("" where there is none): what the
        /// history names changed fields by (names outlive a schema's property indexes).
        let propertyNames: [String]
        /// Every persisted attribute's property index: the fields of a row an insert took over
        /// (its whole record was written).
        let attributeBits: PropertyBits

        init(entity: Schema.Entity, records: Table, edges: [String: Table], externals: Table?) {
            self.records = records
            self.edges = edges
            self.externals = externals
            var relationshipsByIndex = ByPropertyIndex<Schema.Relationship>()
            var edgesByIndex = ByPropertyIndex<Table>()
            for relationship in entity.relationships {
                relationshipsByIndex[relationship.index] = relationship
                edgesByIndex[relationship.index] = edges[relationship.name]
            }
            self.relationshipsByIndex = relationshipsByIndex
            self.edgesByIndex = edgesByIndex
            var names = [String](repeating: "", count: RecordCodec.propertyCount(of: entity))
            var attributeBits = PropertyBits()
            for property in entity.storedProperties {
                if let attribute = property as? Schema.Attribute, let index = attribute.index {
                    names[index] = attribute.name
                    attributeBits.insert(index)
                } else if let relationship = property as? Schema.Relationship {
                    names[relationship.index] = relationship.name
                }
            }
            propertyNames = names
            self.attributeBits = attributeBits
        }

        /// The edge table of `relationship`, one of `entity`'s relationships.
        func edgeTable(of relationship: Schema.Relationship, in entity: Schema.Entity) -> Table {
            guard let table = edgesByIndex[relationship.index] else {
                preconditionFailure("\(relationship.name) is not a relationship of \(entity.name)")
            }
            return table
        }
    }

    /// How an entity's records are written and read: field tags, attribute accesses, and the
    /// fields that need care (external, ephemeral, constant, foreign, preserved).
    struct RecordCodec {
        /// Each persisted attribute's record-field tag, by attribute name.
        let tags: [String: UInt32]
        /// The persisted attributes in ascending tag order, the order records are written in.
        let encodingOrder: [(tag: UInt32, access: AttributeAccess)]
        /// Each persisted property's field tag in the entity's records, by property index (0 for
        /// relationships and `.externalStorage` attributes): what the codec `@Model` generates
        /// reads and writes (``_FieldEncoder``, ``_FieldDecoder``). Freed with the tables.
        let recordTags: UnsafeBufferPointer<UInt32>
        /// Each persisted attribute's general codec, by property index (`nil` for the others).
        /// Freed with the tables.
        let accessByIndex: UnsafeBufferPointer<AttributeAccess?>
        /// Whether the record's tags ascend in property order, as the generated encoder writes
        /// them. A store whose attributes were reordered by a migration does not: its records are
        /// written attribute by attribute, in tag order (``encodingOrder``).
        let fieldsAscendInPropertyOrder: Bool
        /// The `.externalStorage` attributes by property index: loaded only when read.
        let externalAttributes: [Int: (tag: UInt32, access: AttributeAccess)]
        /// The `.ephemeral` attributes' accesses: a model read from the store takes their default
        /// values, having no field to read them from.
        let ephemeralAttributes: [AttributeAccess]
        /// The `let` attributes, with their property indexes (where the fault initialiser finds
        /// their values, ``_ConstantFields``) and field tags.
        let constants: [(index: Int, tag: UInt32, access: ConstantAccess)]
        /// The tags of fields stored records may carry that the schema has no attribute for:
        /// attributes a newer (or older) version of the app declared. A save that rewrites a
        /// record keeps those fields (`RecordReader.merging(kept:from:)`), so that opening the
        /// store with another version loses nothing.
        let foreignTags: Set<UInt32>
        /// The tags of the `.preserveValueOnDeletion` attributes kept in records, ascending: the
        /// fields a deleted row's history tombstone keeps.
        let preservedTags: [UInt32]

        init(entity: Schema.Entity, tags: [String: UInt32], foreignTags: Set<UInt32>) {
            self.tags = tags
            self.foreignTags = foreignTags
            var external: [Int: (UInt32, AttributeAccess)] = [:]
            encodingOrder = entity.storedProperties.compactMap { property -> (UInt32, AttributeAccess)? in
                guard let attribute = property as? Schema.Attribute, let access = attribute.access,
                    let tag = tags[attribute.name]
                else { return nil }
                if attribute.options.contains(.externalStorage) {
                    external[attribute.index!] = (tag, access)
                    return nil
                }
                return (tag, access)
            }.sorted { $0.0 < $1.0 }
            externalAttributes = external
            ephemeralAttributes = entity.attributes.compactMap { $0.isEphemeral && !$0.isTransient ? $0.access : nil }
            constants = entity.attributes.compactMap { attribute in
                guard let index = attribute.index, let constant = attribute.constant else { return nil }
                return (index, tags[attribute.name] ?? 0, constant)
            }
            preservedTags = entity.attributes.compactMap { attribute in
                guard attribute.options.contains(.preserveValueOnDeletion),
                    !attribute.options.contains(.externalStorage), !attribute.isTransient, !attribute.isEphemeral
                else { return nil }
                return tags[attribute.name]
            }.sorted()
            (recordTags, accessByIndex) = Self.byPropertyIndex(entity, tags: tags)
            let inOrder = recordTags.filter { $0 != 0 }
            fieldsAscendInPropertyOrder = zip(inOrder, inOrder.dropFirst()).allSatisfy { $0 < $1 }
        }

        /// The number of property indexes `entity`'s persisted properties use.
        static func propertyCount(of entity: Schema.Entity) -> Int {
            entity.storedProperties.map { property in
                (property as? Schema.Attribute)?.index ?? (property as? Schema.Relationship)?.index ?? -1
            }.max().map { $0 + 1 } ?? 0
        }

        /// ``recordTags`` and ``accessByIndex``, allocated.
        private static func byPropertyIndex(
            _ entity: Schema.Entity, tags: [String: UInt32]
        ) -> (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<AttributeAccess?>) {
            let count = propertyCount(of: entity)
            let recordTags = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
            recordTags.initialize(repeating: 0)
            let accessByIndex = UnsafeMutableBufferPointer<AttributeAccess?>.allocate(capacity: count)
            accessByIndex.initialize(repeating: nil)
            for property in entity.storedProperties {
                guard let attribute = property as? Schema.Attribute, let index = attribute.index else { continue }
                accessByIndex[index] = attribute.access
                if let tag = tags[attribute.name], !attribute.options.contains(.externalStorage) {
                    recordTags[index] = tag
                }
            }
            return (UnsafeBufferPointer(recordTags), UnsafeBufferPointer(accessByIndex))
        }

        /// Frees ``recordTags`` and ``accessByIndex``: called once, by the tables' `deinit`.
        func deallocate() {
            UnsafeMutableBufferPointer(mutating: recordTags).deallocate()
            let accesses = UnsafeMutableBufferPointer(mutating: accessByIndex)
            _ = accesses.deinitialize()
            accesses.deallocate()
        }
    }

    /// An entity's uniqueness constraints and indexes.
    struct KeyTables {
        /// The uniqueness constraints, each with its table `u/<Entity>/<attributes>`: the
        /// order-preserving key of the attributes' values → row id.
        var uniques: [UniqueConstraint] = []
        /// The indexes declared with `#Index`, each with its table `i/<Entity>/<attributes>`
        /// (`DUPSORT`, `DUPFIXED`): the order-preserving key of the attributes' values → row ids.
        var indexes: [UniqueConstraint] = []
        /// Unique and index tables this schema added to an entity that has rows: empty until
        /// ``KeyTableFiller`` fills them, which the container does as it opens.
        var unfilled: [UniqueConstraint] = []
        /// The full-text indexes of the entity's `.spotlight` text attributes
        /// (`t/<Entity>/<attribute>`, ``PostingLayout``).
        var texts: [TextIndex] = []
        /// Full-text indexes this schema added to an entity that has rows: empty until
        /// ``TextIndexFiller`` fills them as the container opens.
        var unfilledTexts: [TextIndex] = []
        /// The vector indexes of the entity's `.vector` attributes (`v/<Entity>/<attribute>`,
        /// ``VectorLayout``).
        var vectors: [VectorIndex] = []
        /// Vector indexes this schema added to an entity that has rows (or whose length or metric
        /// it changed): empty until ``VectorIndexFiller`` fills them as the container opens.
        var unfilledVectors: [VectorIndex] = []
        /// In an encrypted store, the hasher its sensitive attributes are keyed with; `nil` in a
        /// plaintext store.
        var hasher: KeyHasher?
        /// The attributes keyed by their keyed hash, not their value (an encrypted store's
        /// sensitive attributes): their keys find equal values only, never a range or an order.
        var hashedAttributes: Set<String> = []
        /// The property indexes of the attributes any unique or index table keys.
        var attributeIndexes: Set<Int> = [] {
            didSet { attributeMask = attributeIndexes.reduce(0) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 } }
        }
        /// ``attributeIndexes`` below 64 as bits, for a model's state
        /// (`_ModelState.reportedAttributes`).
        private(set) var attributeMask: UInt64 = 0
    }

    /// An entity's place in a hierarchy of models (`Store+Hierarchy.swift`).
    struct Lineage {
        /// The hierarchy whose rows share its table; `nil` outside one.
        var hierarchy: Store.Hierarchy?
        /// The entity's class number in its hierarchy (the top bits of its row ids); 0 outside one.
        var classNumber = 0
        /// The class numbers of this entity and the entities that inherit from it.
        var descendantClasses: Set<Int> = []
        /// The row ids of those classes, as few spans as cover them: what a scan of a
        /// subentity's rows reads (``Store/EntityTables/rowRanges(after:)``).
        var rowSpans: [ClosedRange<UInt64>] = [0...UInt64.max]
    }
}

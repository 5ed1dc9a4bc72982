import CairnStorage
import Foundation

extension Store {
    /// One entity's place in the store: who it is, and four parts that each hold one concern
    /// (``Layout``: its tables; ``RecordCodec``: how its records are written and read;
    /// ``KeyTables``: its uniqueness constraints and indexes; ``Lineage``: its place in a
    /// hierarchy of models).
    ///
    /// The parts are structs stored in the class, so `tables.codec.recordTags` is one load at a
    /// fixed offset, as a property of the class itself would be.
    final class EntityTables {
        let entity: Schema.Entity
        /// The entity's position in the schema: the index of its rows in a context's identity map.
        let ordinal: Int
        /// The entity's name, interned: what its models' `PersistentIdentifier`s carry.
        let entityName: InternedName
        /// The entity's class, which faults are made of (read through ``entity`` it retained and
        /// released the entity at every fault).
        let modelType: any PersistentModel.Type
        /// `\Model.persistentModelID` for the entity's class, made once: a key path over a generic
        /// root is instantiated anew each time it is written, which a fetch would pay each time.
        let identifierKeyPath: AnyKeyPath
        /// Its tables and properties by index.
        let layout: Layout
        /// How its records are written and read.
        let codec: RecordCodec
        /// Its uniqueness constraints and indexes, set as the store opens (the unfilled ones
        /// emptied once the container filled them, before the store is shared), then only read:
        /// no runtime exclusivity checks (one per insert and per key read).
        @exclusivity(unchecked) var keys = KeyTables()
        /// Its place in a hierarchy of models, set as the store opens (`Store+Hierarchy.swift`),
        /// then only read, without runtime exclusivity checks.
        @exclusivity(unchecked) var lineage = Lineage()
        /// The other side of each relationship that has an inverse, by the relationship's
        /// property index: set once every entity's tables are open, before the store is shared,
        /// and only read after (no runtime exclusivity checks: one per relationship change).
        @exclusivity(unchecked) var inverses = ByPropertyIndex<InverseSide>()

        /// The other side of a relationship: its entity's tables, the inverse relationship and
        /// its edge table.
        ///
        /// A class: every relationship change reads its relationship's inverse side, and a copy
        /// of the value retained its two references and released them again.
        final class InverseSide {
            let destination: EntityTables
            let inverse: Schema.Relationship
            let table: Table

            init(destination: EntityTables, inverse: Schema.Relationship, table: Table) {
                (self.destination, self.inverse, self.table) = (destination, inverse, table)
            }
        }

        init(
            entity: Schema.Entity, ordinal: Int, records: Table, tags: [String: UInt32], edges: [String: Table],
            externals: Table?, foreignTags: Set<UInt32> = []
        ) {
            self.entity = entity
            self.ordinal = ordinal
            entityName = InternedName(entity.name)
            identifierKeyPath = Self.identifierKeyPath(of: entity.modelType)
            modelType = entity.modelType
            layout = Layout(entity: entity, records: records, edges: edges, externals: externals)
            codec = RecordCodec(entity: entity, tags: tags, foreignTags: foreignTags)
        }

        deinit {
            codec.deallocate()
        }

        /// The edge table of `relationship`, one of this entity's relationships.
        func edgeTable(of relationship: Schema.Relationship) -> Table { layout.edgeTable(of: relationship, in: entity) }

        /// The property indexes of the named attributes.
        func propertyIndexes(of names: [String]) -> Set<Int> {
            Set(names.compactMap { entity.attributesByName[$0]?.index })
        }

        private static func identifierKeyPath<T: PersistentModel>(of _: T.Type) -> AnyKeyPath {
            \T.persistentModelID
        }
    }
}

extension Store.EntityTables {
    /// One uniqueness constraint or index of an entity: its attributes and table.
    ///
    /// A class: plans, access paths and claims carry it, and copying a reference is one
    /// retain where copying its three arrays was three (and a fetch copies its access path
    /// several times).
    final class UniqueConstraint {
        let names: [String]
        let table: Table
        /// Append each attribute's key encoding; each returns whether its value equals itself.
        let parts: [(AnyObject, inout KeyBuilder) -> Bool]
        /// The same key made from a stored record, without a model.
        let recordKey: RecordKey
        /// The property indexes of `names`: what a save checks a changed model's change bits
        /// against (looking each name up cost a string hash per model and name).
        let attributeIndexes: [Int]

        /// Whether this is a uniqueness constraint (else an index): a model whose key holds a
        /// value not equal to itself (a NaN) has no key in it (see ``key(of:)``).
        var isUnique: Bool { recordKey.isUnique }

        init(
            names: [String], table: Table, parts: [(AnyObject, inout KeyBuilder) -> Bool], recordKey: RecordKey,
            attributeIndexes: [Int]
        ) {
            self.names = names
            self.table = table
            self.parts = parts
            self.recordKey = recordKey
            self.attributeIndexes = attributeIndexes
        }

        /// Whether a change of `state` touches one of the constraint's attributes.
        func isTouched(by state: _UnretainedModelState) -> Bool {
            attributeIndexes.contains { state.isChanged($0) }
        }

        /// The constraint's key for a model whose constrained attributes are loaded.
        ///
        /// Empty for a uniqueness constraint whose values include one not equal to itself (a
        /// NaN, or a date or optional holding one): such a model equals no other, as `==`
        /// says and as SQLite keeps a NaN (stored as NULL) in a UNIQUE column, so it has no
        /// key, takes over no row and is taken over by none (`Docs/DifferencesFromSwiftData.md`).
        func key(of model: AnyObject) -> [UInt8] {
            var builder = KeyBuilder()
            appendKey(of: model, to: &builder)
            return builder.finalized()
        }

        /// The constraint's key for the row a stored record holds (see ``RecordKey``).
        func key(ofRecord record: RecordReader) throws(StorageError) -> [UInt8] {
            try recordKey.key(of: record)
        }

        /// Appends the constraint's key encoding for a model to `builder` (not finalized: see
        /// ``KeyList/append(_:)``), so a list of keys is built without an array per key;
        /// `builder` is left empty when ``key(of:)`` is (it must be empty when called).
        func appendKey(of model: AnyObject, to builder: inout KeyBuilder) {
            var equalsItself = true
            for part in parts {
                if !part(model, &builder) { equalsItself = false }
            }
            if isUnique && !equalsItself { builder.removeAll() }
        }
    }
}

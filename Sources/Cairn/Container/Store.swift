import CairnStorage
import Foundation

/// A container's open store: the LMDB environment, the `meta` table with the stored schema, and
/// each entity's tables.
///
/// `@unchecked Sendable`: everything is set in `init` and never changes; the environment is
/// itself `Sendable`.
final class Store: @unchecked Sendable {
    /// One entity's place in the store.
    final class EntityTables {
        let entity: Schema.Entity
        /// `e/<Entity>`: row id (u64 big-endian) → record.
        let records: Table
        /// Each persisted attribute's record-field tag, by attribute name.
        let tags: [String: UInt32]
        /// The persisted attributes in ascending tag order, the order records are written in.
        let encodingOrder: [(tag: UInt32, access: AttributeAccess)]
        /// `r/<Entity>/<relationship>` by relationship name: owner row id → rank and target row id.
        let edges: [String: Table]
        /// The relationships by property index.
        let relationshipsByIndex: ByPropertyIndex<Schema.Relationship>
        /// ``edges`` by the relationship's property index: a save names each list's table, and
        /// hashing the name was a string hash per list written.
        private let edgesByIndex: ByPropertyIndex<Table>

        /// The edge table of `relationship`, one of this entity's relationships.
        func edgeTable(of relationship: Schema.Relationship) -> Table {
            guard let table = edgesByIndex[relationship.index] else {
                preconditionFailure("\(relationship.name) is not a relationship of \(entity.name)")
            }
            return table
        }
        /// The uniqueness constraints, each with its table `u/<Entity>/<attributes>`: the
        /// order-preserving key of the attributes' values → row id.
        var uniques: [UniqueConstraint] = []
        /// The indexes declared with `#Index`, each with its table `i/<Entity>/<attributes>`
        /// (`DUPSORT`, `DUPFIXED`): the order-preserving key of the attributes' values → row ids.
        var indexes: [UniqueConstraint] = []
        /// Unique and index tables this schema added to an entity that has rows: empty until
        /// ``KeyTableFiller`` fills them, which the container does as it opens.
        var unfilledKeyTables: [UniqueConstraint] = []
        /// The property indexes of the attributes any unique or index table keys.
        var keyedAttributeIndexes: Set<Int> = [] {
            didSet { keyedAttributeMask = keyedAttributeIndexes.reduce(0) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 } }
        }
        /// ``keyedAttributeIndexes`` below 64 as bits, for a model's state
        /// (`_ModelState.reportedAttributes`).
        private(set) var keyedAttributeMask: UInt64 = 0
        /// The other side of each relationship that has an inverse, by the relationship's
        /// property index: set once every entity's tables are open, before the store is shared,
        /// and only read after (no runtime exclusivity checks: one per relationship change).
        @exclusivity(unchecked) fileprivate(set) var inverses = ByPropertyIndex<InverseSide>()

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

        /// The property indexes of the named attributes.
        func propertyIndexes(of names: [String]) -> Set<Int> {
            Set(names.compactMap { entity.attributesByName[$0]?.index })
        }

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

        /// `x/<Entity>`: row id and tag (u64 and u32, big-endian) → the value of an
        /// `.externalStorage` attribute, as a one-field record; `nil` when the entity has none.
        let externals: Table?
        /// The `.externalStorage` attributes by property index: loaded only when read.
        let externalAttributes: [Int: (tag: UInt32, access: AttributeAccess)]

        /// The entity's position in the schema: the index of its rows in a context's identity map.
        let ordinal: Int
        /// The entity's name, interned: what its models' `PersistentIdentifier`s carry.
        let entityName: InternedName
        /// Each persisted property's field tag in the entity's records, by property index (0 for
        /// relationships and `.externalStorage` attributes): what the codec `@Model` generates
        /// reads and writes (``_FieldEncoder``, ``_FieldDecoder``). Allocated once, freed with the tables.
        let recordTags: UnsafeBufferPointer<UInt32>
        /// The tags of fields stored records may carry that the schema has no attribute for:
        /// attributes a newer (or older) version of the app declared. A save that rewrites a
        /// record keeps those fields (`RecordReader.merging(kept:from:)`), so that opening the
        /// store with another version loses nothing.
        let foreignTags: Set<UInt32>
        /// The `.ephemeral` attributes' accesses: a model read from the store takes their default
        /// values, having no field to read them from.
        let ephemeralAttributes: [AttributeAccess]
        /// The `let` attributes, with their property indexes (where the fault initialiser finds
        /// their values, ``_ConstantFields``) and field tags.
        let constants: [(index: Int, tag: UInt32, access: ConstantAccess)]
        /// Each persisted attribute's general codec, by property index (`nil` for the others).
        let accessByIndex: UnsafeBufferPointer<AttributeAccess?>
        /// Whether the record's tags ascend in property order, as the generated encoder writes
        /// them. A store whose attributes were reordered by a migration does not: its records are
        /// written attribute by attribute, in tag order (``encodingOrder``).
        let fieldsAscendInPropertyOrder: Bool
        /// `\Model.persistentModelID` for the entity's class, made once: a key path over a generic
        /// root is instantiated anew each time it is written, which a fetch would pay each time.
        let identifierKeyPath: AnyKeyPath
        /// The entity's class, which faults are made of (read through ``entity`` it retained and
        /// released the entity at every fault).
        let modelType: any PersistentModel.Type
        /// Each persisted property's name by property index ("" where there is none): what the
        /// history names changed fields by (names outlive a schema's property indexes).
        let propertyNames: [String]
        /// Every persisted attribute's property index: the fields of a row an insert took over
        /// (its whole record was written).
        let attributeBits: PropertyBits
        /// The tags of the `.preserveValueOnDeletion` attributes kept in records, ascending: the
        /// fields a deleted row's history tombstone keeps.
        let preservedTags: [UInt32]
        /// For an entity of a hierarchy of models, the hierarchy whose rows share its table
        /// (`Store+Hierarchy.swift`); `nil` otherwise.
        var hierarchy: Hierarchy?
        /// The entity's class number in its hierarchy (the top bits of its row ids); 0 outside one.
        var classNumber = 0
        /// The class numbers of this entity and the entities that inherit from it.
        var descendantClasses: Set<Int> = []

        init(
            entity: Schema.Entity, ordinal: Int, records: Table, tags: [String: UInt32], edges: [String: Table],
            externals: Table?, foreignTags: Set<UInt32> = []
        ) {
            self.entity = entity
            self.foreignTags = foreignTags
            self.ordinal = ordinal
            entityName = InternedName(entity.name)
            identifierKeyPath = Self.identifierKeyPath(of: entity.modelType)
            modelType = entity.modelType
            self.records = records
            self.tags = tags
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
            let count =
                entity.storedProperties.map { property in
                    (property as? Schema.Attribute)?.index ?? (property as? Schema.Relationship)?.index ?? -1
                }.max().map { $0 + 1 } ?? 0
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
            var names = [String](repeating: "", count: count)
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
            preservedTags = entity.attributes.compactMap { attribute in
                guard attribute.options.contains(.preserveValueOnDeletion),
                    !attribute.options.contains(.externalStorage), !attribute.isTransient, !attribute.isEphemeral
                else { return nil }
                return tags[attribute.name]
            }.sorted()
            let inOrder = recordTags.filter { $0 != 0 }
            fieldsAscendInPropertyOrder = zip(inOrder, inOrder.dropFirst()).allSatisfy { $0 < $1 }
            self.recordTags = UnsafeBufferPointer(recordTags)
            self.accessByIndex = UnsafeBufferPointer(accessByIndex)
        }

        deinit {
            UnsafeMutableBufferPointer(mutating: recordTags).deallocate()
            let accesses = UnsafeMutableBufferPointer(mutating: accessByIndex)
            _ = accesses.deinitialize()
            accesses.deallocate()
        }

        private static func identifierKeyPath<T: PersistentModel>(of _: T.Type) -> AnyKeyPath {
            \T.persistentModelID
        }
    }

    /// The store's identifier (a UUID written when the store was created).
    let identifier: String
    /// ``identifier``, interned: what the store's `PersistentIdentifier`s carry.
    let internedIdentifier: InternedName
    let meta: Table
    /// `h`: commit id (u64 big-endian) → the rows that commit inserted, updated, deleted or whose
    /// edges it rewrote (see ``History``); `nil` in a read-only store that has none.
    let history: Table?
    let entities: [String: EntityTables]
    /// The same tables by model class, for the save path's per-model lookups (an integer key,
    /// no string hashing).
    let entitiesByType: SmallMap<ObjectIdentifier, EntityTables>
    /// The same tables by interned entity name: what a `PersistentIdentifier` carries.
    let entitiesByName: SmallMap<InternedName, EntityTables>
    let isReadOnly: Bool
    /// Released first in `deinit`, so the environment closes before a temporary directory goes.
    private var openEnvironment: LMDBEnvironment?
    /// The private directory of an in-memory store, removed with the store.
    private let temporaryDirectory: String?

    /// The store format this version reads and writes. Format 2 added a checksum to every unique,
    /// index and edge entry (see ``EntryLayout``); format 1 stores are refused, not migrated.
    static let formatVersion: UInt8 = 2
    /// An edge value is 20 bytes (``EntryLayout/edgeValue(owner:rank:target:)``), rank first, so
    /// duplicates sort by rank.
    static let edgeFlags: TableFlags = [.duplicateSort, .duplicateFixed]

    var environment: LMDBEnvironment { openEnvironment! }

    /// ``environment``, lent: an environment is weakly referenced by the registry of open
    /// environments, so its reference count lives in a side table, and a retain and release per
    /// read took the runtime's slow path. Valid while the store is: it holds the environment.
    private let lentEnvironment: Unmanaged<LMDBEnvironment>
    /// Tells live queries of new commits, this container's at once and others' by polling.
    let commitFeed: CommitFeed
    /// How long a fetch may take before it is logged with its plan
    /// (``ModelConfiguration/slowFetchThreshold``), as clock ticks; `nil` for never.
    let slowFetchThreshold: Duration?
    /// How many loads of one relationship model by model make a fault storm worth a warning
    /// (``ModelConfiguration/faultStormThreshold``); `nil` for none.
    let faultStormThreshold: Int?
    /// The fault storms reported so far, once per relationship for all of this container's contexts.
    let faultStormReports = FaultStormDetector.Reports()

    /// Runs `body` in a read transaction of the environment (``LMDBEnvironment/read(_:)``),
    /// reached unretained: what every fetch and fault reads through.
    ///
    /// ```swift
    /// let count = try store.read { txn in try txn.count(of: tables.records) }
    /// ```
    @inline(__always)
    func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try lentEnvironment._withUnsafeGuaranteedRef { try $0.read(body) }
    }

    /// Runs `body` in the environment's write transaction and commits it
    /// (``LMDBEnvironment/write(expectedBytes:_:)``), the environment reached unretained.
    ///
    /// ```swift
    /// try store.write(expectedBytes: 4_096) { txn in try txn.put(value, for: key, in: table) }
    /// ```
    /// - Throws: What the environment's write throws; `.notFlushed` means the commit stands.
    @inline(__always)
    func write<R>(expectedBytes: Int, _ body: (borrowing WriteTransaction) throws -> R) throws -> R {
        let result: R
        do {
            result = try lentEnvironment._withUnsafeGuaranteedRef { try $0.write(expectedBytes: expectedBytes, body) }
        } catch let error as StorageError where error.code == .notFlushed {
            commitFeed.committed()
            throw error
        }
        commitFeed.committed()
        return result
    }

    /// The id of the environment's last commit (``LMDBEnvironment/lastCommittedTransactionID``),
    /// read without retaining the environment: every fetch asks it.
    var lastCommittedTransactionID: Int { lentEnvironment._withUnsafeGuaranteedRef { $0.lastCommittedTransactionID } }

    /// The tables of a model's entity.
    /// - Precondition: the model's class is in the schema.
    func tables(of model: any PersistentModel) -> EntityTables { entitiesByType[ObjectIdentifier(type(of: model))]! }

    /// The tables of `T`, for the context's `function` that was given one of its models.
    /// - Precondition: `T` is in the schema (a model outside it is a programming error).
    func entityTables(of type: any PersistentModel.Type, for function: String) -> EntityTables {
        // By the type first: hashing an identifier, not looking the entity's name up and hashing it.
        if let tables = entitiesByType[ObjectIdentifier(type)] { return tables }
        let entityName = Schema.entityName(of: type)
        guard let tables = entities[entityName] else {
            preconditionFailure(
                "ModelContext.\(function): \(entityName) is not in the container's schema; add \(entityName).self to it"
            )
        }
        return tables
    }

    /// The schema's entity with this name.
    func entity(named name: String) -> Schema.Entity { entities[name]!.entity }

    /// The schema's entity of the model with this identifier.
    func entity(of id: PersistentIdentifier) -> Schema.Entity { entitiesByName[id.entity]!.entity }

    /// - Parameter recordsVersion: Whether a writable open records `schema`'s version (a
    ///   migration's look at the store, with no schema of its own, does not).
    init(schema: Schema, configuration: ModelConfiguration, recordsVersion: Bool = true) throws {
        var storage: StorageConfiguration
        let environment: LMDBEnvironment
        if configuration.isStoredInMemoryOnly {
            let directory = FileManager.default.temporaryDirectory.path + "/cairn-memory-\(UUID().uuidString)"
            storage = Self.storageConfiguration(path: directory, configuration)
            environment = try LMDBEnvironment.create(storage)
            temporaryDirectory = directory
        } else {
            storage = Self.storageConfiguration(path: configuration.url.path, configuration)
            storage.isReadOnly = !configuration.allowsSave
            if configuration.allowsSave {
                try FileManager.default.createDirectory(
                    at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            environment = try LMDBEnvironment.openOrCreate(storage)
            temporaryDirectory = nil
        }
        openEnvironment = environment
        lentEnvironment = .passUnretained(environment)
        commitFeed = CommitFeed { UInt64(truncatingIfNeeded: environment.lastCommittedTransactionID) }
        slowFetchThreshold = configuration.slowFetchThreshold
        faultStormThreshold = configuration.faultStormThreshold.map { max(0, $0) }
        isReadOnly = storage.isReadOnly

        if isReadOnly {
            guard let meta = try environment.openTable(StoreLayout.metaTable),
                let identifier = try environment.read({ txn in try txn.get(StoreLayout.storeKey, in: meta) })
            else {
                try Self.checkIsCairnStore(environment)
                throw StorageError(
                    code: .notFound,
                    message: "The store has never been opened for writing, so it holds no models and cannot be "
                        + "opened read-only. Open it once with allowsSave: true.",
                    path: configuration.url.path)
            }
            self.meta = meta
            if let format = try environment.read({ txn in try txn.get(StoreLayout.formatKey, in: meta) }) {
                try Self.checkFormat(format)
            }
            self.identifier = try Self.storeIdentifier(identifier)
        } else {
            try Self.checkIsCairnStore(environment)
            meta = try environment.openTable(StoreLayout.metaTable, create: true)!
            identifier = try Self.initialize(environment: environment, meta: meta)
        }
        internedIdentifier = InternedName(identifier)
        history = try environment.openTable(StoreLayout.historyTable, create: !isReadOnly)
        entities = try Self.openEntities(
            schema, environment: environment, meta: meta, readOnly: isReadOnly, recordsVersion: recordsVersion)
        entitiesByType = SmallMap(entities.values.map { (ObjectIdentifier($0.entity.modelType), $0) })
        entitiesByName = SmallMap(entities.values.map { ($0.entityName, $0) })
        for tables in entities.values {
            for relationship in tables.entity.relationships {
                guard let inverseName = relationship.inverseName,
                    let destination = entities[relationship.destination],
                    let inverse = destination.entity.relationshipsByName[inverseName],
                    let table = destination.edges[inverseName]
                else { continue }
                tables.inverses[relationship.index] = EntityTables.InverseSide(
                    destination: destination, inverse: inverse, table: table)
            }
        }
    }

    deinit {
        openEnvironment = nil
        if let temporaryDirectory { StoreFiles.removeDirectory(temporaryDirectory) }
    }

    private static func storageConfiguration(path: String, _ configuration: ModelConfiguration) -> StorageConfiguration
    {
        var storage = StorageConfiguration(path: path)
        storage.maximumMapSize = configuration.maximumSize
        switch configuration.durability {
        case .powerLossSafe: storage.durability = .powerLossSafe
        case .full: storage.durability = .full
        case .noMetaSync: storage.durability = .noMetaSync
        }
        // An in-memory store's files are removed with it: flushing them protects nothing.
        if configuration.isStoredInMemoryOnly { storage.durability = .unsynced }
        return storage
    }

    /// Refuses an environment that holds tables but no store identifier: another program's LMDB
    /// files (with too few commits for the storage layer's commit-marker check to tell). Writing
    /// Cairn's `meta` table into them would change another program's data.
    private static func checkIsCairnStore(_ environment: LMDBEnvironment) throws {
        let names = try environment.tableNames()
        // A new store, or one whose first open stopped between creating `meta` and filling it.
        guard !names.isEmpty && names != [StoreLayout.metaTable] else { return }
        if names.contains(StoreLayout.metaTable), let meta = try environment.openTable(StoreLayout.metaTable),
            try environment.read({ txn in try txn.get(StoreLayout.storeKey, in: meta) }) != nil
        {
            return
        }
        throw StorageError(
            code: .notAStore,
            message: "This is not a Cairn store: its LMDB files hold tables (\(names.prefix(3).joined(separator: ", "))"
                + "\(names.count > 3 ? ", …" : "")) but no Cairn store identifier, so another program wrote them. "
                + "Nothing was changed. Choose another path for the store.",
            path: environment.path)
    }

    /// Writes the format version and a new store identifier into a new store; reads them from
    /// an existing one.
    private static func initialize(environment: LMDBEnvironment, meta: Table) throws -> String {
        try environment.write { txn in
            if let format = try txn.get(StoreLayout.formatKey, in: meta) {
                try checkFormat(format)
            } else {
                try txn.put(EntryLayout.metaValue([formatVersion], key: StoreLayout.formatKey), for: StoreLayout.formatKey, in: meta)
            }
            if let stored = try txn.get(StoreLayout.storeKey, in: meta) {
                return try storeIdentifier(stored)
            }
            let identifier = UUID()
            try txn.put(
                EntryLayout.metaValue(withUnsafeBytes(of: identifier.uuid) { Array($0) }, key: StoreLayout.storeKey), for: StoreLayout.storeKey,
                in: meta)
            return identifier.uuidString
        }
    }

    /// Deletes every record of every entity.
    func erase() throws {
        guard !isReadOnly else {
            throw StorageError(
                code: .readOnly, message: "The store was opened with allowsSave: false. Open it writable to erase it.")
        }
        try environment.write { txn in
            for tables in entities.values {
                try txn.removeAll(from: tables.records)
                for table in tables.edges.values { try txn.removeAll(from: table) }
                for keyed in tables.uniques + tables.indexes { try txn.removeAll(from: keyed.table) }
                if let externals = tables.externals { try txn.removeAll(from: externals) }
            }
            // No history entry lists every row: contexts that have not seen this commit refresh
            // everything they hold (see History).
            if let history { try txn.removeAll(from: history) }
            try txn.put(EntryLayout.counter(txn.id + 1, key: StoreLayout.historyFloorKey), for: StoreLayout.historyFloorKey, in: meta)
        }
    }

    /// Refuses a store of another format with a message saying which and what to do.
    ///
    /// Format 1 stored the bare version byte; format 2 stores it as a checksummed `meta` value.
    static func checkFormat(_ format: [UInt8]) throws {
        let version: UInt8
        if format.count == 1, let legacy = format.first, legacy < formatVersion {
            version = legacy
        } else {
            let payload = try EntryLayout.metaPayload(format, key: StoreLayout.formatKey)
            guard payload.count == 1, let stored = payload.first else {
                throw EntryLayout.damagedDescription(
                    key: StoreLayout.formatKey, "holds a version of \(payload.count) bytes where it takes 1")
            }
            version = stored
        }
        guard version != formatVersion else { return }
        if version < formatVersion {
            throw StorageError(
                code: .versionMismatch,
                message: "The store has format \(version), written before unique, index and edge entries carried "
                    + "checksums; this version of Cairn reads format \(formatVersion) only and does not convert older "
                    + "stores. Open it with the version that wrote it to copy its models out, or delete it and save "
                    + "them again.")
        }
        throw StorageError(
            code: .versionMismatch,
            message: "The store has format \(version), newer than format \(formatVersion) that this version of Cairn "
                + "reads. Open it with the newer version of Cairn that wrote it.")
    }

    /// The store identifier a `store` meta value holds, as a UUID string.
    static func storeIdentifier(_ value: [UInt8]) throws -> String { UUID(uuid: try uuidBytes(value)).uuidString }

    private static func uuidBytes(_ value: [UInt8]) throws -> uuid_t {
        let bytes = try EntryLayout.metaPayload(value, key: StoreLayout.storeKey)
        guard bytes.count == 16 else {
            throw EntryLayout.damagedDescription(
                key: StoreLayout.storeKey, "holds \(bytes.count) bytes where an identifier takes 16")
        }
        return (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        )
    }
}

/// Values by a model's property index, in an array: what a setter or a fault looks up per call
/// (a dictionary hashed the index each time, three times per relationship change).
///
/// ```swift
/// var byIndex = ByPropertyIndex<String>()
/// byIndex[3] = "author"
/// byIndex[3]   // "author"; byIndex[2] and byIndex[99] are nil
/// ```
struct ByPropertyIndex<Value> {
    private var values: [Value?] = []

    /// The value for property `index`, or `nil`.
    subscript(index: Int) -> Value? {
        get { index >= 0 && index < values.count ? values[index] : nil }
        set {
            precondition(index >= 0, "a property index is never negative")
            if index >= values.count { values.append(contentsOf: repeatElement(nil, count: index - values.count + 1)) }
            values[index] = newValue
        }
    }
}

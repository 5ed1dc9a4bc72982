import CairnStorage
import Foundation

/// A container's open store: the LMDB environment, the `meta` table with the stored schema, and
/// each entity's tables.
///
/// `@unchecked Sendable`: everything is set in `init` and never changes; the environment is
/// itself `Sendable`.
final class Store: @unchecked Sendable {
    /// The store's identifier (a UUID written when the store was created).
    let identifier: String
    /// ``identifier``, interned: what the store's `PersistentIdentifier`s carry.
    let internedIdentifier: InternedName
    let meta: Table
    /// `h`: commit id (u64 big-endian) → the rows that commit inserted, updated, deleted or whose
    /// edges it rewrote (see ``ChangeLog``); `nil` in a read-only store that has none.
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
    /// The secret that opens the store now (`LMDBEnvironment.secret`): the configuration's, until
    /// `ModelContainer.changeEncryptionKey(to:)` changes it.
    var encryption: ModelConfiguration.Encryption? {
        switch environment.secret {
        case nil: nil
        case .key(let key): .key(Data(key))
        case .passphrase(let passphrase): .passphrase(passphrase)
        }
    }

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
    let faultStormReports = ReportedNames()

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

    /// The newest commit a read begun now sees (``LMDBEnvironment/readableTransactionID``):
    /// what a result that is read next can claim to be current with.
    var readableTransactionID: Int { lentEnvironment._withUnsafeGuaranteedRef { $0.readableTransactionID } }

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
        // Another class of the same entity name (another version of a versioned schema): its
        // models could not be made from these tables.
        guard tables.modelType == type else {
            preconditionFailure(
                "ModelContext.\(function): \(type) is not the container's \(entityName) (\(tables.modelType)); use the "
                    + "model class of the schema the container was made with")
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
        // Commits are announced once a read can see them (see `readableTransactionID`): a
        // subscriber that reads when told must find the commit it was told of.
        commitFeed = CommitFeed { UInt64(truncatingIfNeeded: environment.readableTransactionID) }
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
                    let table = destination.layout.edges[inverseName]
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
        storage.encryption = configuration.encryption?.secret
        storage.sealedTables = StoreLayout.sealedTables
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
                try txn.put(
                    EntryLayout.metaValue([formatVersion], key: StoreLayout.formatKey), for: StoreLayout.formatKey,
                    in: meta)
            }
            if let stored = try txn.get(StoreLayout.storeKey, in: meta) {
                return try storeIdentifier(stored)
            }
            let identifier = UUID()
            try txn.put(
                EntryLayout.metaValue(withUnsafeBytes(of: identifier.uuid) { Array($0) }, key: StoreLayout.storeKey),
                for: StoreLayout.storeKey,
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
                try txn.removeAll(from: tables.layout.records)
                for table in tables.layout.edges.values { try txn.removeAll(from: table) }
                for keyed in tables.keys.uniques + tables.keys.indexes { try txn.removeAll(from: keyed.table) }
                if let externals = tables.layout.externals { try txn.removeAll(from: externals) }
            }
            // No history entry lists every row: contexts that have not seen this commit refresh
            // everything they hold (see ChangeLog).
            if let history { try txn.removeAll(from: history) }
            try txn.put(
                EntryLayout.counter(txn.id + 1, key: StoreLayout.historyFloorKey), for: StoreLayout.historyFloorKey,
                in: meta)
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

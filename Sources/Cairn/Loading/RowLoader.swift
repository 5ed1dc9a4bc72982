import Foundation

/// Reads a context's stored rows into models: a fault for a row, a record into its registered
/// model, a relationship's stored targets (with the records of those not loaded, in the same
/// read), an external value, a scratch copy of a stored row.
///
/// It owns the context's identity map (one instance per row: a row read again comes back as the
/// instance the context holds) and counts what it reads. Its reads throw; a generated getter's
/// load (`RowLoader+Fulfill.swift`) turns what cannot be read into a placeholder and an error
/// recorded in its ``failures`` (or a model deleted elsewhere), which the context's next save or
/// fetch throws.
final class RowLoader {
    let store: Store
    /// One instance per stored row (see ``IdentityMap``). Used on the context's executor only, and
    /// no access to it calls out while it lasts: no runtime exclusivity checks (two per model
    /// a fetch loads).
    @exclusivity(unchecked) var identity: IdentityMap
    /// How much has been read: for tests of fetching and prefetching. Counters bumped on the
    /// context's executor, never held across a call: no runtime exclusivity checks.
    @exclusivity(unchecked) var statistics = Statistics()
    /// Loads that failed in a getter, not yet reported (see ``LoadFailures``). Used on the
    /// context's executor only, never held across a call.
    @exclusivity(unchecked) var failures = LoadFailures()
    /// What new faults reach their loader through: the owning context's link (or a stored
    /// view's, see ``StoredImages``). Emptied when the owner goes away, so a fault made after
    /// that could not load; making one is a programming error.
    let link: _ContextLink

    /// Counts of reads.
    struct Statistics: Equatable {
        /// Read transactions begun.
        var readTransactions = 0
        /// Records decoded into models.
        var recordLoads = 0
    }

    /// Notices a relationship loaded model by model again and again (an N+1 pattern); `nil`
    /// when the configuration turns that off.
    private var faultStorms: FaultStormDetector?

    init(store: Store, link: _ContextLink) {
        self.store = store
        self.link = link
        identity = IdentityMap(store: store)
        faultStorms = store.faultStormThreshold.map {
            FaultStormDetector(threshold: $0, reports: store.faultStormReports)
        }
    }

    /// A record batch kept between reads (``takeRecordBatch()``): a fetch of a few rows then
    /// allocates none of its three arrays.
    @exclusivity(unchecked) private var spareBatch: RecordBatch?

    /// The spare record batch, or a new one when it is in use or was not kept.
    func takeRecordBatch() -> RecordBatch { spareBatch.take() ?? RecordBatch() }

    /// Keeps `batch` as the spare, emptied, when its room is small (64 KiB at most: a batch that
    /// grew for a scan of many rows is freed rather than held); leaves `batch` empty. Takes the
    /// caller's variable in place: a copy passed would share its arrays, and emptying them would
    /// then allocate new ones.
    func keepRecordBatch(_ batch: inout RecordBatch) {
        guard batch.empty(keepingUpTo: 64 << 10) else { return }
        spareBatch = batch
        batch = RecordBatch()
    }

    /// Lets the map's models go in the order that frees them fastest (``IdentityMap/releaseAll()``).
    deinit { identity.releaseAll() }

    /// A new, registered fault for a stored row, belonging to the loader's owner.
    ///
    /// A model with `let` properties takes their values as it is made, so its record is read
    /// first (`record`, when the caller read it, else now) and the model comes back loaded from
    /// it; a row that is gone or cannot be read gives the constants their placeholders (reading
    /// a `var` of the model then reports why).
    ///
    /// In a hierarchy of models, the fault is of the class the row id names (`Store+Hierarchy.swift`):
    /// a row reached through a superclass's tables may be a subclass's.
    @inline(__always)
    func fault(
        _ persistentModelID: PersistentIdentifier, tables: Store.EntityTables, record: RecordReader? = nil
    ) -> any PersistentModel {
        // Most entities neither inherit nor have `let`s: nothing to read or resolve first.
        guard tables.lineage.hierarchy == nil && tables.codec.constants.isEmpty else {
            return resolvedFault(persistentModelID, tables: tables, record: record)
        }
        return fault(persistentModelID, tables: tables, constants: .none)
    }

    /// ``fault(_:tables:record:)`` for an entity of a hierarchy or with `let` properties.
    @inline(never)
    private func resolvedFault(
        _ persistentModelID: PersistentIdentifier, tables given: Store.EntityTables, record: RecordReader?
    ) -> any PersistentModel {
        var (persistentModelID, tables) = (persistentModelID, given)
        if given.lineage.hierarchy != nil, let row = persistentModelID.rowID, let concrete = given.tables(forRow: row),
            concrete !== given
        {
            tables = concrete
            persistentModelID = PersistentIdentifier(
                entity: concrete.entityName, store: store.internedIdentifier, rowID: row)
            if let registered = identity.model(entity: concrete.ordinal, row: row) { return registered }
        }
        guard !tables.codec.constants.isEmpty else { return fault(persistentModelID, tables: tables, constants: .none) }
        let reader = record ?? persistentModelID.rowID.flatMap { try? self.record(row: $0, tables: tables) }
        let constants = reader.flatMap { try? self.constants(in: $0, tables: tables) }
        let model = fault(persistentModelID, tables: tables, constants: constants ?? Self.placeholderConstants(tables))
        if let reader, constants != nil, record == nil {
            statistics.recordLoads += 1
            try? apply(reader, to: model, tables: tables)
        }
        return model
    }

    /// The values of the `let` properties of `tables`' entity in a record.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when a field is absent or cannot be decoded.
    func constants(in reader: RecordReader, tables: Store.EntityTables) throws(StorageError) -> _ConstantFields {
        try Self.constantFields(tables) { (tag, access) throws(StorageError) in
            try access.decode(reader, tag: tag, entity: tables.entity.name)
        }
    }

    /// The values the `let` properties of a model whose row cannot be read take: each type's
    /// empty value (``Schema`` refuses a `let` whose type has none).
    static func placeholderConstants(_ tables: Store.EntityTables) -> _ConstantFields {
        (try? constantFields(tables) { _, access in access.placeholder as Any }) ?? .none
    }

    /// The values `value` gives the `let` properties of `tables`' entity, by property index.
    private static func constantFields(
        _ tables: Store.EntityTables, _ value: (UInt32, ConstantAccess) throws(StorageError) -> Any
    ) throws(StorageError) -> _ConstantFields {
        guard let last = tables.codec.constants.map(\.index).max() else { return .none }
        var values = [Any](repeating: (), count: last + 1)
        for (index, tag, access) in tables.codec.constants { values[index] = try value(tag, access) }
        return _ConstantFields(values: values)
    }

    /// A new, registered fault whose `let` properties take `constants`.
    private func fault(
        _ persistentModelID: PersistentIdentifier, tables: Store.EntityTables, constants: _ConstantFields
    ) -> any PersistentModel {
        precondition(
            link.isConnected,
            "RowLoader.fault: the context that owns this loader is gone; keep the context while you use it")
        var state = _ModelState()
        state.persistentIdentifier = persistentModelID
        state.attach(to: link, reporting: tables.keys.attributeMask)
        let model = tables.modelType.init(_$modelState: state, _$constants: constants)
        if let row = persistentModelID.rowID {
            identity.register(model, entity: tables.ordinal, row: row)
        } else {
            identity.register(model, as: persistentModelID)
        }
        return model
    }

    /// The row `id` names in this loader's store, or `nil` for an identifier of a model never
    /// saved or of another store.
    func row(of id: PersistentIdentifier) -> UInt64? {
        id.store == store.internedIdentifier ? id.rowID : nil
    }

    /// A new fault for an identifier from outside that the context does not hold; for one that names no
    /// saved model of this store, the placeholder the failed-load policy hands out (see
    /// `ModelContext.model(for:)`): an empty deleted model for an entity the schema lacks (its
    /// error recorded in ``failures``), an untracked model for a row of no store of this context.
    func faultOrPlaceholder(_ id: PersistentIdentifier) -> any PersistentModel {
        guard let tables = store.entitiesByName[id.entity] else { return failures.unknownEntityModel(id) }
        guard row(of: id) != nil else { return LoadFailures.untrackedModel(id, tables: tables, link: link) }
        return fault(id, tables: tables)
    }

    /// The instance the loader holds for a stored row's identifier, else a new fault for it (or
    /// the placeholder ``faultOrPlaceholder(_:)`` hands out).
    ///
    /// ```swift
    /// let author = rows.modelOrFault(authorID)
    /// ```
    func modelOrFault(_ id: PersistentIdentifier) -> any PersistentModel {
        identity.model(for: id) ?? faultOrPlaceholder(id)
    }

    /// Whether `id` names a stored row of this store (one read; no fault is made).
    func hasRow(_ id: PersistentIdentifier) -> Bool {
        guard let rowID = row(of: id), let tables = store.entitiesByName[id.entity] else { return false }
        statistics.readTransactions += 1
        let exists = try? store.read { txn in
            try txn.contains(EntryLayout.rowKey(rowID), in: tables.layout.records)
        }
        return exists == true
    }

    /// Loads the persisted property at `index` of a stored row's model: a relationship's
    /// targets, an `.externalStorage` attribute, or every unloaded attribute of the record.
    ///
    /// - Throws: `StorageError` `.notFound` when the row is gone; what reading throws.
    func loadProperty(
        _ index: Int, of model: any PersistentModel, rowID: UInt64, tables: Store.EntityTables
    ) throws {
        if let relationship = tables.layout.relationshipsByIndex[index] {
            try loadRelationship(relationship, of: model, rowID: rowID, tables: tables)
        } else if let (tag, access) = tables.codec.externalAttributes[index] {
            try loadExternal(access, tag: tag, of: model, rowID: rowID, tables: tables)
        } else {
            try load(model, rowID: rowID, tables: tables)
        }
    }

    /// Loads one `.externalStorage` attribute, apart from the record.
    func loadExternal(
        _ access: AttributeAccess, tag: UInt32, of model: any PersistentModel, rowID: UInt64, tables: Store.EntityTables
    ) throws {
        let key = EntryLayout.externalKey(row: rowID, tag: tag)
        let reader = try store.read { txn in
            try txn.withValue(for: key, in: tables.layout.externals!) { try RecordReader(copying: $0, key: key) }
        }
        // An absent value reads as an absent field: the default, or nil for an optional.
        try access.decode(model, tag, reader ?? RecordReader(RecordWriter().finished()))
    }

    /// Loads a relationship's targets, in their stored order, as registered models or faults.
    ///
    /// A to-many relationship also loads the records of the targets the context does not hold, in
    /// the same read transaction, as Core Data does: walking `author.books` then reads once per
    /// author, not once per book.
    func loadRelationship(
        _ relationship: Schema.Relationship, of owner: any PersistentModel, rowID: UInt64, tables: Store.EntityTables
    ) throws {
        let targets = try storedTargets(
            relationship, rowID: rowID, tables: tables, loadingRecords: !relationship.isToOneRelationship)
        relationship.access.load(owner, targets)
        if faultStorms != nil,
            let warning = faultStorms!.noteLoad(of: relationship.name, owner: String(describing: type(of: owner)))
        {
            cairnLog.warning("\(warning)")
        }
    }

    /// A relationship's targets as stored, without touching the owner's loaded value; with
    /// `loadingRecords`, the targets the context does not hold loaded come back loaded from their
    /// records, read in the same transaction as the edges.
    ///
    /// A relationship whose targets may have been deleted without it being told (it has no
    /// inverse, or its inverse's delete rule is `.noAction`) skips targets whose rows are gone.
    func storedTargets(
        _ relationship: Schema.Relationship, rowID: UInt64, tables: Store.EntityTables, loadingRecords: Bool = false
    ) throws -> [any PersistentModel] {
        try storedTargets(relationship, owners: [rowID], tables: tables, loadingRecords: loadingRecords)[0]
    }

    /// The stored targets of `relationship` for each of `owners` (row ids of `tables`' entity),
    /// read in one read transaction, as registered models or new ones (see
    /// ``storedTargets(_:rowID:tables:loadingRecords:)``).
    func storedTargets(
        _ relationship: Schema.Relationship, owners: [UInt64], tables: Store.EntityTables, loadingRecords: Bool
    ) throws -> [[any PersistentModel]] {
        let reader = RelationshipReader(store: store, relationship: relationship, tables: tables)
        let destination = reader.destination
        // A superclass's relationship may hold a subclass's row: the row id names its class. Only
        // a destination in a hierarchy looks it up (a reference more per target otherwise).
        let inHierarchy = destination.lineage.hierarchy != nil
        statistics.readTransactions += 1
        var batch = takeRecordBatch()
        func wantsRecord(_ row: UInt64, _ tables: Store.EntityTables) -> Bool {
            // A new model with `let` properties is made from its record.
            guard let registered = identity.model(entity: tables.ordinal, row: row) else {
                return loadingRecords || !tables.codec.constants.isEmpty
            }
            return loadingRecords && !registered.hasChanges && !isFullyLoaded(registered, tables: tables)
        }
        let read = try store.read { txn in
            try reader.read(
                owners: owners,
                wantsRecord: { row in
                    guard inHierarchy else { return wantsRecord(row, destination) }
                    return wantsRecord(row, destination.concrete(forRow: row))
                }, txn: txn, into: &batch)
        }
        func model(_ target: (row: UInt64, record: Int?), _ tables: Store.EntityTables) -> any PersistentModel {
            let id = PersistentIdentifier(entity: tables.entityName, store: store.internedIdentifier, rowID: target.row)
            let record = read.record(of: target)
            let model =
                identity.model(entity: tables.ordinal, row: target.row) ?? fault(id, tables: tables, record: record)
            if let record {
                statistics.recordLoads += 1
                // A record that fails to decode leaves the target a fault: reading it reports the error.
                try? apply(record, to: model, tables: tables)
            }
            return model
        }
        let models = read.owners.map { targets in
            targets.map { target in
                guard inHierarchy else { return model(target, destination) }
                return model(target, destination.concrete(forRow: target.row))
            }
        }
        // The records' readers end here, so the batch is kept with its room and not copied.
        _ = consume read
        keepRecordBatch(&batch)
        return models
    }

    /// Whether every attribute kept in the record of `model` is loaded.
    private func isFullyLoaded(_ model: any PersistentModel, tables: Store.EntityTables) -> Bool {
        tables.codec.encodingOrder.allSatisfy { $0.access.isLoaded(model) }
    }

    /// Loads every unloaded attribute of `model` from its stored record.
    func load(_ model: any PersistentModel, rowID: UInt64, tables: Store.EntityTables) throws {
        statistics.recordLoads += 1
        guard let reader = try record(row: rowID, tables: tables) else {
            throw StorageError(
                code: .notFound,
                message: "\(tables.entity.name)/\(rowID) is no longer in the store: it was deleted. Fetch it again.")
        }
        try apply(reader, to: model, tables: tables)
    }

    /// The stored record of a row, read in a read transaction of its own; `nil` when the row is gone.
    func record(row rowID: UInt64, tables: Store.EntityTables) throws -> RecordReader? {
        statistics.readTransactions += 1
        return try store.read { txn in
            let key = EntryLayout.rowKey(rowID)
            return try txn.withValue(for: key, in: tables.layout.records) { bytes in
                try RecordReader(copying: bytes, key: key)
            }
        }
    }

    /// Loads every unloaded attribute of `model` from a record already read, or only those
    /// whose tags are in `only`.
    ///
    /// A model without unsaved changes whose values came from another version of the row (another
    /// context saved it since) takes the stored values: its attributes are unloaded and decoded
    /// again. A model with unsaved changes keeps them (the last save wins).
    func apply(
        _ reader: __owned RecordReader, to model: any PersistentModel, tables: Store.EntityTables,
        only: Set<UInt32>? = nil
    ) throws {
        let state = model._$state
        let checksum = reader.checksum
        let unchanged = !state.hasChanges
        if unchanged, let seen = state.recordChecksum, seen != checksum {
            // Observers of the model hear of the stored values it takes, as of a refresh.
            Refresher.makeAttributesStale(model, tables: tables)
        }
        // The codec @Model generated reads the fields straight into the storage; what it leaves
        // (absent fields, types it has no concrete reader for) goes through the attributes'
        // general codecs, as does every field of a class without a generated codec.
        // The reader moves into the decoder (a copy retained its two buffers again).
        var decoder = _FieldDecoder(reader: consume reader, tags: tables.codec.recordTags, only: only)
        try model._$decodeFields(from: &decoder)
        if decoder.isGenerated {
            for index in decoder.deferred {
                try tables.codec.accessByIndex[index]!.decode(model, tables.codec.recordTags[index], decoder.reader)
            }
        } else {
            for (tag, access) in tables.codec.encodingOrder where only?.contains(tag) ?? true {
                try access.decode(model, tag, decoder.reader)
            }
        }
        for access in tables.codec.ephemeralAttributes where !access.isLoaded(model) { _ = access.fillPlaceholder(model) }
        if unchanged { state.recordChecksum = checksum }
    }

    /// The models of `tables`' entity for stored rows, registered (or the registered instances,
    /// loaded), leaving out the models in `deleted`; only the fields whose tags are in `only` are
    /// decoded (all when `nil`).
    /// Appended to `models`: a fetch appends each chunk's models to one list.
    func appendModels(
        for rows: some RandomAccessCollection<(UInt64, RecordReader)>, tables: Store.EntityTables,
        decoding only: Set<UInt32>?, leavingOut deleted: Set<ObjectIdentifier>, to models: inout [any PersistentModel]
    ) throws {
        statistics.recordLoads += rows.count
        let storeName = store.internedIdentifier
        let isHierarchy = tables.lineage.hierarchy != nil
        for (rowID, reader) in rows {
            // In a hierarchy, each row is of the class its id names (a superclass's fetch reads
            // its subclasses' rows).
            let tables = isHierarchy ? tables.concrete(forRow: rowID) : tables
            let id = PersistentIdentifier(entity: tables.entityName, store: storeName, rowID: rowID)
            let model =
                try identity.model(entity: tables.ordinal, row: rowID)
                ?? fault(id, tables: tables, constants: constants(in: reader, tables: tables))
            if !deleted.isEmpty && deleted.contains(ObjectIdentifier(model)) { continue }
            try apply(reader, to: model, tables: tables, only: only)
            models.append(model)
        }
    }

    /// A stored row's record as the store has it (not the context's instance, which may have
    /// unsaved values), or `nil` if the row is gone.
    func storedRecord(
        row: UInt64, tables given: Store.EntityTables, in txn: borrowing ReadTransaction
    ) throws -> RecordReader? {
        let tables = given.concrete(forRow: row)
        let key = EntryLayout.rowKey(row)
        return try txn.withValue(for: key, in: tables.layout.records) { try RecordReader(copying: $0, key: key) }
    }

    /// A scratch instance, in no context, holding a record's attributes.
    func scratchModel(from reader: RecordReader, tables: Store.EntityTables) throws -> any PersistentModel {
        let scratch = tables.modelType.init(
            _$modelState: _ModelState(), _$constants: try constants(in: reader, tables: tables))
        try apply(reader, to: scratch, tables: tables)
        return scratch
    }
}

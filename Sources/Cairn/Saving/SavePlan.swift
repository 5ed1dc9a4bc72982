import Foundation

/// Everything one save writes, prepared before its write transaction begins: records encoded,
/// keys built, relationships resolved to rows. ``StoreWriter`` carries it out in one transaction.
///
/// It names rows, not models: a stored row by its id, a new one by its position in ``newRows``,
/// whose id the writer assigns. So the writer never reads a model, and the transaction body does
/// no encoding and no faulting (ARCHITECTURE §3: no suspension and nothing slow inside a write).
struct SavePlan {
    /// A row the plan writes to or points at.
    enum RowReference {
        /// A stored row.
        case stored(UInt64)
        /// The row the writer gives the new row at this position of ``SavePlan/newRows``.
        case new(Int)
        /// A model that has no row and gets none (deleted before it was ever saved), of this type:
        /// a relationship that still points at it fails the save.
        case missing(InternedName)
    }

    /// A row to add, or, when it takes over a stored row with the same unique values
    /// (SwiftData's upsert), to write over that row.
    ///
    /// Its record is at the same position in ``SavePlan/newRecords``, sealed for its row's key in
    /// the transaction.
    struct NewRow {
        let tables: Store.EntityTables
        let takesOver: UInt64?
        /// For a row taken over whose model writes no relationship and no external value: the row
        /// is left alone (not written, not in the history) when it already holds the same record.
        var isLeftAloneWhenSame = false
    }

    /// A stored row rewritten whole; the save fails when another context deleted it meanwhile.
    struct Update {
        let tables: Store.EntityTables
        let row: UInt64
        /// Its record's position in ``SavePlan/updateRecords``, already sealed for the row's key.
        let record: Int
        /// The properties the model changed (property indexes), as the history names them.
        let changed: PropertyBits
    }

    /// A unique or index entry to add.
    struct KeyEntry {
        let table: Table
        let key: [UInt8]
        let row: RowReference
    }

    /// A unique value claimed: the save fails when another writer claimed it since planning.
    ///
    /// Forty bytes, no identifier: an insert claims each of its unique keys, and with one per claim
    /// a save of a hundred thousand models filled seven megabytes of fresh memory with claims.
    /// The identifier the failure names is made from the row and the entity
    /// (``SavePlan/identifier(of:store:)``).
    struct UniqueClaim {
        let table: Table
        let row: RowReference
        /// The key's position in ``SavePlan/uniqueKeys``.
        private let keyPosition: Int32
        /// The claiming model's entity.
        let entity: InternedName

        init(table: Table, key: Int, row: RowReference, entity: InternedName) {
            precondition(key < Int(Int32.max), "SavePlan: more unique keys than one save can hold")
            self.table = table
            self.row = row
            keyPosition = Int32(truncatingIfNeeded: key)
            self.entity = entity
        }

        var key: Int { Int(keyPosition) }
    }

    /// An `.externalStorage` value, stored apart from the record.
    struct External {
        let table: Table
        let owner: RowReference
        let tag: UInt32
        /// Sealed for its key in the transaction.
        var value: EncodedRecord
    }

    /// What a relationship list is a list of: the relationship, its edge table and its owner's
    /// entity. Kept once per kind in ``SavePlan/edgeKinds``: lists that held them each were two
    /// references to retain and release per list, and twice the memory.
    struct EdgeKind {
        let relationship: Schema.Relationship
        let table: Table
        /// The owner's entity's tables.
        let ownerTables: Store.EntityTables
    }

    /// A relationship list rewritten whole, in order.
    struct EdgeList {
        /// Its kind's position in ``SavePlan/edgeKinds``.
        let kind: Int
        let owner: RowReference
        /// Its targets' positions in ``SavePlan/edgeTargets``.
        let targets: Range<Int>
    }

    /// A unique entry that already names the row an insert takes over, with the same key: the
    /// writer neither frees nor claims it, but checks that it still names that row (unless nothing
    /// was committed since the plan read it, see ``SavePlan/readSnapshot``).
    struct KeptKey {
        let table: Table
        /// The key's position in ``SavePlan/uniqueKeys``.
        let key: Int
        let row: UInt64
        let identifier: PersistentIdentifier
    }

    /// The saving context's ``ModelContext/author``, recorded in the history.
    var author: String?
    /// Writes that ride along in the transaction (sync's).
    var attachment: SaveAttachment?
    var newRows: [NewRow] = []
    /// The temporary identifiers of ``newRows``' models, by position (a failed claim names one).
    var newRowIdentifiers: [PersistentIdentifier] = []
    /// The records of ``newRows`` and of ``updates``, each list end to end (a record per model was
    /// an allocation per model, read back cold by the writer).
    var newRecords = RecordList()
    var updateRecords = RecordList()
    /// The commit the unique keys were looked up at (``UniquenessPlanner``). When the write
    /// transaction starts right after it (no other commit in between), the store is what that
    /// read saw, and the writer need not look the ``keptKeys`` up again.
    var readSnapshot: UInt64?
    var updates: [Update] = []
    /// Stored rows to delete, with their edges and external values.
    var deletes: [(tables: Store.EntityTables, row: UInt64)] = []
    /// Index entries of old values, removed before any is added.
    var indexRemovals: [(table: Table, key: [UInt8], row: UInt64)] = []
    var indexAdditions: [KeyEntry] = []
    var externals: [External] = []
    /// The full-text indexes' changes, one per index the save reaches.
    var texts: [TextChanges] = []
    /// The vector indexes' changes, one per index the save reaches.
    var vectors: [VectorChanges] = []
    /// Unique entries of old values with the rows they name, removed before any is claimed (an
    /// entry that names another row by then was claimed anew by another writer, and stays).
    var uniqueFreed: [(table: Table, key: [UInt8], row: UInt64)] = []
    var uniqueClaims: [UniqueClaim] = []
    /// The keys of ``uniqueClaims`` and ``keptKeys``, end to end (the inserted models' keys as
    /// they were made, then those of changed models).
    var uniqueKeys = KeyList()
    var keptKeys: [KeptKey] = []
    private(set) var edgeKinds: [EdgeKind] = []
    var edgeLists: [EdgeList] = []
    /// The kind ``edgeKind(_:of:)`` found last.
    private var lastEdgeKind = 0
    /// The targets of every list in ``edgeLists``, list after list (one array for all: an array
    /// per list would be an allocation per model of a large graph).
    var edgeTargets: [RowReference] = []

    /// The position in ``edgeKinds`` of `relationship` of `ownerTables`' entity, added when new
    /// (a save has a few kinds, and lists of one kind tend to follow each other: the last one
    /// found is tried first).
    mutating func edgeKind(_ relationship: Schema.Relationship, of ownerTables: Store.EntityTables) -> Int {
        func isKind(_ position: Int) -> Bool {
            edgeKinds[position].relationship === relationship && edgeKinds[position].ownerTables === ownerTables
        }
        if lastEdgeKind < edgeKinds.count && isKind(lastEdgeKind) { return lastEdgeKind }
        if let found = edgeKinds.indices.first(where: isKind) {
            lastEdgeKind = found
            return found
        }
        edgeKinds.append(
            EdgeKind(
                relationship: relationship, table: ownerTables.edgeTable(of: relationship), ownerTables: ownerTables))
        lastEdgeKind = edgeKinds.count - 1
        return lastEdgeKind
    }

    /// The identifier of the model that `claim` is for: a new row's temporary one, or a stored
    /// row's in the store whose interned identifier is `store`.
    func identifier(of claim: UniqueClaim, store: InternedName) -> PersistentIdentifier {
        switch claim.row {
        case .new(let position): newRowIdentifiers[position]
        case .stored(let row): PersistentIdentifier(entity: claim.entity, store: store, rowID: row)
        case .missing: preconditionFailure("SavePlan: a unique key claimed for a model that gets no row")
        }
    }

    /// About what the transaction puts (records, keys, edges, history), so the map grows once ahead
    /// of a large save instead of filling up and starting over at each doubling.
    var expectedBytes: Int {
        var bytes = 0
        bytes &+= newRecords.byteCount &+ updateRecords.byteCount &+ 40 &* (newRows.count &+ updates.count)
        for entry in indexAdditions { bytes &+= entry.key.count &+ 40 }
        bytes &+= uniqueKeys.byteCount &+ 40 &* uniqueClaims.count
        for list in edgeLists { bytes &+= 40 &* (list.targets.count &+ 1) }
        for external in externals { bytes &+= external.value.count &+ 40 }
        for text in texts { bytes &+= text.changes.expectedBytes }
        for vector in vectors {
            // The node, and the links of it and of about as many neighbours.
            bytes &+= vector.additions.count &* (vector.index.distance.dimensions &* 4 &+ 2_000)
        }
        return bytes
    }
}

/// What a committed save did: the ids the new rows got (in the order of ``SavePlan/newRows``),
/// which of the rows taken over already held exactly the new record (left alone), the commit,
/// and the rows whose edges the writer repaired without the plan naming them.
struct SaveOutcome {
    let newRows: [UInt64]
    /// Positions in ``SavePlan/newRows`` of rows taken over that were left alone.
    let leftAlone: [Int]
    /// The commit, or `nil` when the transaction changed nothing (LMDB then commits nothing, and
    /// the id it had goes to the next writer's commit, which the context must not take for its own).
    let commit: UInt64?
    let repaired: [PersistentIdentifier]
    /// Set when the commit stands but flushing it failed (`StorageError.Code.notFlushed`): the
    /// context applies the save, then throws it.
    var flushFailure: StorageError? = nil
}

import CairnSyncProtocol
import Foundation

/// Applies other replicas' rows to the store, through a context of its own whose saves carry the
/// author ``SyncOutbox/authorName``: a row's fields whose stamps are newer than the ones known
/// here are set as the app's setters would set them (so inverses, delete rules, indexes and
/// unique keys follow), new rows are inserted, deleted rows deleted. The row states, the new
/// rows' identifiers, the clock and the feed position are written in the same commit as the
/// changes (``SaveAttachment``), so each change applies once.
///
/// ```swift
/// let applier = SyncApplier(container: container, tables: tables, schema: schema, replica: id)
/// let report = try applier.apply(rows, position: 42, clock: clock)
/// ```
final class SyncApplier {
    let store: Store
    let tables: SyncTables
    let schema: SyncSchema
    let replica: SyncID
    let context: ModelContext

    /// The row states this apply reads and changes, by canonical identifier; written with the save.
    var states: [SyncID: EntryLayout.SyncRowState] = [:]
    /// The canonical identifier of each identifier the apply meets (itself, or the row it was merged into).
    var canonical: [SyncID: SyncID] = [:]
    /// Rows whose links wait for rows not here yet: before the apply, and after it.
    var waiting: Set<SyncID> = []
    /// The rows whose states this apply changed.
    var touched: Set<SyncID> = []
    /// The unique keys of the rows this apply inserts (table and key), with their identifiers.
    var insertedKeys: [UniqueKey: SyncID] = [:]
    /// Rows here that a merge gave the identifier of an incoming row: old identifier → new.
    var renamed: [SyncID: SyncID] = [:]
    /// The relationships this apply set, whose digests are recorded once their edges are written.
    var linked: [(owner: SyncID, relationship: Schema.Relationship)] = []
    /// The models of the rows touched, by canonical identifier.
    var models: [SyncID: any PersistentModel] = [:]
    /// Inserted models' temporary identifiers, with their rows' identifiers.
    var insertedRows: [PersistentIdentifier: SyncID] = [:]
    /// The lists to put in their agreed order once the links are set, by owner (``reorderLists()``).
    var reorders: [SyncID: Set<String>] = [:]
    /// Relationship values to set once every row of the apply has its model.
    var links: [(owner: SyncID, relationship: Schema.Relationship, change: FieldChange)] = []
    /// What the apply did.
    var report = Report()
    /// The resolvers of conflicting writes and of deletions against edits.
    let resolvers: SyncResolvers
    /// The replica's clock while applying: a conflict resolved for the earlier write stamps it anew.
    var clock = HybridLogicalClock()
    /// Fields a resolver kept the earlier write of, written again here: pushed as this replica's.
    var rewritten: [SyncID: Set<String>] = [:]

    /// What an apply did.
    struct Report {
        var rowsChanged = 0
        var rowsInserted = 0
        var rowsDeleted = 0
        /// Incoming writes of a field that this replica had written since (kept) or that replaced
        /// this replica's own write.
        var conflicts = 0
    }

    init(
        container: ModelContainer, tables: SyncTables, schema: SyncSchema, replica: SyncID,
        resolvers: SyncResolvers = SyncResolvers()
    ) {
        store = container.store
        self.resolvers = resolvers
        self.tables = tables
        self.schema = schema
        self.replica = replica
        context = ModelContext(container)
        context.author = SyncOutbox.authorName
    }

    /// Thrown when a commit was saved here between collecting the outbox and the apply's own
    /// commit: the apply is made again after collecting it.
    struct OutboxMoved: Error {}

    /// Applies `rows` and records `position` (when given) and the clock in the same commit.
    ///
    /// - Throws: ``OutboxMoved``; what the save throws.
    func apply(_ rows: [RowChange], position: Int64?, clock: HybridLogicalClock) throws -> Report {
        self.clock = clock
        for row in rows { if let newest = row.newestStamp { self.clock.observe(newest.clock) } }
        let merged = Self.mergedByRow(rows)
        try lookUp(merged)
        for change in merged { try take(change) }
        retryUnresolved()
        try setLinks()
        try reorderLists()
        let clockReading = self.clock.last
        try context.save(attaching: SaveAttachment { [self] txn, saved in
            try record(saved, position: position, clock: clockReading, txn)
        })
        return report
    }

    /// Reads, in one transaction, what is known of the incoming rows, of the rows they point at,
    /// and of the rows whose links were waiting for rows not here yet: each one's canonical
    /// identifier and state.
    private func lookUp(_ changes: [RowChange]) throws {
        var wanted = Set(changes.map(\.id))
        for change in changes { wanted.formUnion(change.fields.values.flatMap { Self.targets(of: $0.value) }) }
        try store.read { txn in
            waiting = try tables.unresolved(txn)
            wanted.formUnion(waiting)
            for id in wanted {
                let (canonicalID, state) = try tables.canonical(id, txn)
                canonical[id] = canonicalID
                if let state, states[canonicalID] == nil { states[canonicalID] = state }
            }
            for id in waiting {
                guard let state = states[canonical[id] ?? id] else { continue }
                for target in state.kept.values.flatMap({ Self.targets(of: $0.value) }) where canonical[target] == nil {
                    let (canonicalID, targetState) = try tables.canonical(target, txn)
                    canonical[target] = canonicalID
                    if let targetState, states[canonicalID] == nil { states[canonicalID] = targetState }
                }
            }
        }
    }

    /// The rows a value points at.
    static func targets(of value: FieldValue) -> [SyncID] {
        switch value {
        case .reference(let target): [target]
        case .references(let targets): targets
        case .null, .value, .sealed: []
        }
    }

    /// The incoming changes with each row once (a row changed in several batches merged).
    static func mergedByRow(_ rows: [RowChange]) -> [RowChange] {
        var order: [SyncID] = []
        var byID: [SyncID: RowChange] = [:]
        for row in rows {
            if var known = byID[row.id] {
                known.merge(row)
                byID[row.id] = known
            } else {
                order.append(row.id)
                byID[row.id] = row
            }
        }
        return order.map { byID[$0]! }
    }

    /// Takes one incoming row in: its deletion, its fields, or a new row.
    private func take(_ change: RowChange) throws {
        let id = canonical[change.id] ?? change.id
        var state = states[id] ?? EntryLayout.SyncRowState(entity: change.entity, row: nil)
        defer {
            states[id] = state
            touched.insert(id)
        }
        if let deleted = state.deleted {
            if let gone = change.deleted, deleted < gone { state.deleted = gone }
            return
        }
        guard let entity = schema.entities[state.entity] else {
            keepUnknown(change, in: &state)
            return
        }
        let change = entity.normalized(change)
        if let gone = change.deleted {
            if let model = model(of: id, state: state, entity: entity),
                try !keepsEdited(model, of: id, state: &state, entity: entity, against: gone)
            {
                context.delete(model)
                report.rowsDeleted += 1
            }
            state.deleted = gone
            return
        }
        if state.row == nil && models[id] == nil {
            if let local = try collision(with: change, entity: entity), local != id {
                try merge(change, incoming: id, into: local, entity: entity)
                state = states[id] ?? state
                return
            }
            try insert(change, id: id, entity: entity, state: &state)
            try noteInsertedKeys(of: change, id: id, entity: entity)
        } else if let model = model(of: id, state: state, entity: entity) {
            try update(model, with: change, id: id, entity: entity, state: &state)
        }
    }

    /// The model of a row that lives here.
    func model(of id: SyncID, state: EntryLayout.SyncRowState, entity: SyncSchema.Entity) -> (any PersistentModel)? {
        if let model = models[id] { return model }
        guard let row = state.row else { return nil }
        let tables = entity.tables.concrete(forRow: row)
        let model = context.model(
            for: PersistentIdentifier(entityName: tables.entity.name, storeIdentifier: store.identifier, rowID: row))
        models[id] = model
        return model
    }

    /// The fields of a row of an entity not synced here: kept and passed on.
    private func keepUnknown(_ change: RowChange, in state: inout EntryLayout.SyncRowState) {
        for (name, field) in change.fields where state.kept[name].map({ $0.stamp < field.stamp }) ?? true {
            state.kept[name] = field
        }
    }

    /// Writes, in the save's transaction, what this apply knows: the new rows' identifiers, the
    /// rows deleted, every row state changed, the clock and the position.
    private func record(
        _ saved: SavedRows, position: Int64?, clock: UInt64, _ txn: borrowing WriteTransaction
    ) throws {
        try checkNothingSavedSinceCollecting(txn)
        var (states, touched) = (states, touched)
        for (temporary, row) in saved.inserted {
            guard let id = insertedRows[temporary], let rowID = row.rowID, let entity = store.entities[row.entity.text]
            else { continue }
            states[id]?.row = rowID
            try tables.setIdentifier(id, of: rowID, in: entity, txn)
        }
        for (old, new) in renamed {
            guard let row = states[new]?.row, let state = states[new], let entity = schema.entities[state.entity] else {
                continue
            }
            try tables.setIdentifier(new, of: row, in: entity.tables.concrete(forRow: row), txn)
            if let fields = try tables.pendingFields(old, txn) {
                try tables.addPending(fields, of: new, txn)
                try txn.delete(old.bytes, in: tables.pending)
            }
        }
        for row in saved.deleted {
            guard let rowID = row.rowID, let entity = store.entities[row.entity.text],
                let id = try tables.identifier(of: rowID, in: entity, txn)
            else { continue }
            var state = try states[id] ?? tables.rowState(id, txn) ?? EntryLayout.SyncRowState(entity: row.entity.text, row: nil)
            state.row = nil
            state.deleted = state.deleted ?? SyncStamp(clock: clock, replica: replica)
            states[id] = state
            touched.insert(id)
            try tables.setIdentifier(nil, of: rowID, in: entity, txn)
        }
        for (owner, relationship) in linked {
            guard let row = states[owner]?.row, let entity = schema.entities[states[owner]!.entity] else { continue }
            let digest = try SyncOutbox.linkDigest(of: row, relationship, entity: entity, txn)
            states[owner]?.setLinkDigest(digest, for: relationship.originalName)
        }
        for (id, fields) in rewritten { try tables.addPending(fields, of: id, txn) }
        for id in touched { if let state = states[id] { try tables.setRowState(state, of: id, txn) } }
        try tables.setUnresolved(waiting, txn)
        try tables.setCounter(clock, for: StoreLayout.syncClockKey, txn)
        if let position { try tables.setCounter(UInt64(max(0, position)), for: StoreLayout.syncPositionKey, txn) }
        // The apply's own commit is not the app's: the outbox passes over it.
        try tables.setCounter(txn.id, for: StoreLayout.syncOutboxKey, txn)
    }

    /// Throws ``OutboxMoved`` when the app saved after the outbox was collected: a field it
    /// changed would be compared with a stamp older than its write.
    private func checkNothingSavedSinceCollecting(_ txn: borrowing WriteTransaction) throws {
        guard let history = store.history else { return }
        let collected = try tables.counter(StoreLayout.syncOutboxKey, txn)
        var saved = false
        try ChangeLog.scan(history, KeyRange(from: .exclusive(EntryLayout.historyKey(commit: collected))), txn: txn) { _ in
            saved = true
            return false
        }
        if saved { throw OutboxMoved() }
    }
}

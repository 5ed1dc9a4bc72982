import CairnSyncProtocol
import Foundation

/// A store as one replica of a sync zone: what the sync engine (`CairnSync`) reads and writes
/// through. It collects what was saved here into batches to push, and applies what other
/// replicas pushed, each with its position in the same commit. Not for apps: use `SyncEngine`.
///
/// ```swift
/// let replica = try SyncReplica(container: container, entities: nil)
/// try replica.collect()
/// while let batch = try replica.nextBatch(limit: 500) {
///     _ = try await transport.push(batch, zone: "default")
///     try replica.batchPushed(batch)
/// }
/// ```
package final class SyncReplica {
    /// This replica's identifier, made the first time the store synced.
    package let replicaID: SyncID
    private let container: ModelContainer
    private let store: Store
    private let tables: SyncTables
    private let schema: SyncSchema
    private let resolvers: SyncResolvers

    /// The store of `container` as a replica syncing the entities named in `entities` (every
    /// entity when `nil`). Creates its sync tables the first time.
    ///
    /// - Throws: `StorageError` when the tables cannot be made or read.
    package init(
        container: ModelContainer, entities: Set<String>?, resolvers: SyncResolvers = SyncResolvers()
    ) throws {
        self.container = container
        self.resolvers = resolvers
        store = container.store
        let tables = try SyncTables(store: store)
        self.tables = tables
        schema = SyncSchema(store: store, only: entities)
        if let stored = try store.read({ txn in try tables.stateValue(StoreLayout.syncReplicaKey, txn) }) {
            guard let id = SyncID(bytes: stored) else {
                throw StorageError(code: .damagedRecord, message: "The store's sync replica identifier is damaged. Run cairn verify, and restore the store from a backup.")
            }
            replicaID = id
        } else {
            let id = SyncID.make()
            try store.write(expectedBytes: 4_096) { txn in
                try tables.setStateValue(id.bytes, for: StoreLayout.syncReplicaKey, txn)
            }
            replicaID = id
        }
        try adoptKeptFields()
    }

    /// Applies the fields other replicas wrote that this store kept without knowing them (it ran
    /// an older schema) and that the schema now has: once, when the synced fields change.
    private func adoptKeptFields() throws {
        let (tables, schema, signature) = (tables, schema, schema.signature)
        guard try store.read({ txn in try tables.stateValue(StoreLayout.syncFieldsKey, txn) }) != signature else { return }
        var adopted: [RowChange] = []
        try store.read { txn in
            try tables.forEachRowState(txn) { id, state in
                guard state.row != nil, state.deleted == nil, state.mergedInto == nil,
                    let entity = schema.entities[state.entity]
                else { return }
                let known = state.kept.filter { entity.travels($0.key) }
                if !known.isEmpty { adopted.append(RowChange(entity: state.entity, id: id, fields: known)) }
            }
        }
        if !adopted.isEmpty { _ = try apply(adopted, position: nil) }
        try store.write(expectedBytes: 4_096) { txn in try tables.setStateValue(signature, for: StoreLayout.syncFieldsKey, txn) }
    }

    /// The entity names that sync.
    package var entityNames: Set<String> { Set(schema.entities.keys) }

    /// Takes what was saved here since the last call into the rows to push (``SyncOutbox``).
    package func collect() throws {
        let (store, tables, schema, replica) = (store, tables, schema, replicaID)
        try store.write(expectedBytes: 1 << 20) { txn in
            var clock = HybridLogicalClock(last: try tables.counter(StoreLayout.syncClockKey, txn))
            try SyncOutbox(store: store, tables: tables, schema: schema, replica: replica).collect(txn, clock: &clock)
        }
    }

    /// The batch to push next: the one sent before and not acknowledged, else up to `limit`
    /// pending rows; `nil` when nothing is waiting.
    package func nextBatch(limit: Int) throws -> ChangeBatch? {
        let maker = SyncBatchMaker(store: store, tables: tables, schema: schema, replica: replicaID)
        if let inFlight = try store.read({ txn in try maker.inFlight(txn) }) { return inFlight }
        return try store.write(expectedBytes: 1 << 20) { txn in try maker.next(limit: limit, txn) }
    }

    /// Forgets the batch in flight once the server has it.
    package func batchPushed(_ batch: ChangeBatch) throws {
        let (tables, store) = (tables, store)
        let maker = SyncBatchMaker(store: store, tables: tables, schema: schema, replica: replicaID)
        try store.write(expectedBytes: 4_096) { txn in
            guard try maker.inFlight(txn)?.id == batch.id else { return }
            try tables.setStateValue(nil, for: StoreLayout.syncInFlightKey, txn)
        }
    }

    /// The rows changed here that are too large to push (``SyncBatchMaker/oversized(_:)``).
    package func oversizedRows() throws -> [(entity: String, id: SyncID, bytes: Int)] {
        let maker = SyncBatchMaker(store: store, tables: tables, schema: schema, replica: replicaID)
        return try store.read { txn in try maker.oversized(txn) }
    }

    /// The position in the zone's feed up to which every batch has been applied (0 before any).
    package func position() throws -> Int64 {
        let tables = tables
        return Int64(clamping: try store.read { txn in try tables.counter(StoreLayout.syncPositionKey, txn) })
    }

    /// What applying did.
    package struct ApplyReport: Sendable {
        package var rowsInserted = 0
        package var rowsChanged = 0
        package var rowsDeleted = 0
        package var conflicts = 0
    }

    /// Applies other replicas' rows, and records `position` (when given) in the same commit.
    /// What was saved here and not collected yet is collected first, so a field written here
    /// keeps its stamp; a save that lands in between makes the apply start again.
    ///
    /// - Throws: what the save throws (the store is then as before).
    package func apply(_ rows: [RowChange], position: Int64?) throws -> ApplyReport {
        for _ in 0..<8 {
            try collect()
            let clock = HybridLogicalClock(last: try store.read { txn in try self.tables.counter(StoreLayout.syncClockKey, txn) })
            let applier = SyncApplier(
                container: container, tables: tables, schema: schema, replica: replicaID, resolvers: resolvers)
            do {
                let report = try applier.apply(rows, position: position, clock: clock)
                return ApplyReport(
                    rowsInserted: report.rowsInserted, rowsChanged: report.rowsChanged, rowsDeleted: report.rowsDeleted,
                    conflicts: report.conflicts)
            } catch is SyncApplier.OutboxMoved {
                continue
            }
        }
        throw StorageError(
            code: .other,
            message: "Sync could not apply changes: the app saved in between eight times running. Sync again; nothing was lost.")
    }

    /// The store's newest commit.
    package var lastCommit: UInt64 { UInt64(truncatingIfNeeded: store.lastCommittedTransactionID) }

    /// What returns once the store has a commit after a given one (this process's or another's).
    package var commitWaiter: @Sendable (UInt64) async -> Void {
        let feed = store.commitFeed
        return { commit in await feed.commit(after: commit) }
    }
}

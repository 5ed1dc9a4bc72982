import Foundation

/// What a replica pushes at once: the rows it changed, under an identifier it chose. Pushing the
/// same batch again (after a lost answer, say) stores nothing new: the server answers with the
/// position it stored the batch at the first time.
///
/// ```swift
/// let batch = ChangeBatch(id: SyncID.make(), replica: replicaID, rows: changes)
/// let result = try await transport.push(batch, zone: "default")
/// ```
public struct ChangeBatch: Hashable, Sendable, Codable {
    /// The batch's identifier, chosen by the replica that made it.
    public var id: SyncID
    /// The replica that made it.
    public var replica: SyncID
    /// The rows changed.
    public var rows: [RowChange]

    /// A batch.
    ///
    /// ```swift
    /// let batch = ChangeBatch(id: SyncID.make(), replica: replicaID, rows: [])
    /// ```
    public init(id: SyncID, replica: SyncID, rows: [RowChange]) {
        self.id = id
        self.replica = replica
        self.rows = rows
    }
}

/// A batch as the zone's feed holds it: at the position the server stored it at.
///
/// ```swift
/// for stored in page.batches where stored.batch.replica != replicaID { apply(stored.batch) }
/// ```
public struct StoredBatch: Hashable, Sendable, Codable {
    /// The batch's position in the zone's feed: positions increase in the order batches were stored.
    public var position: Int64
    /// The batch.
    public var batch: ChangeBatch

    /// A stored batch.
    ///
    /// ```swift
    /// let stored = StoredBatch(position: 7, batch: batch)
    /// ```
    public init(position: Int64, batch: ChangeBatch) {
        self.position = position
        self.batch = batch
    }
}

/// The server's answer to a push.
///
/// ```swift
/// let result = try await transport.push(batch, zone: "default")
/// if result.duplicate { print("already stored at", result.position) }
/// ```
public struct PushResult: Hashable, Sendable, Codable {
    /// Where the batch is in the zone's feed.
    public var position: Int64
    /// Whether the batch had been stored before (this push stored nothing).
    public var duplicate: Bool

    /// An answer.
    ///
    /// ```swift
    /// let result = PushResult(position: 12, duplicate: false)
    /// ```
    public init(position: Int64, duplicate: Bool) {
        self.position = position
        self.duplicate = duplicate
    }
}

/// A page of a zone's feed: the batches stored after a position, oldest first.
///
/// ```swift
/// var after: Int64 = 0
/// repeat {
///     let page = try await transport.changes(zone: "default", after: after, limit: 500, wait: nil)
///     apply(page.batches)
///     after = page.position
/// } while page.more
/// ```
public struct ChangesPage: Hashable, Sendable, Codable {
    /// The batches, oldest first.
    public var batches: [StoredBatch]
    /// The position to ask after next: the last batch's, or the one asked after when there were none.
    public var position: Int64
    /// Whether more batches follow.
    public var more: Bool

    /// A page.
    ///
    /// ```swift
    /// let empty = ChangesPage(batches: [], position: 12, more: false)
    /// ```
    public init(batches: [StoredBatch], position: Int64, more: Bool) {
        self.batches = batches
        self.position = position
        self.more = more
    }
}

/// A page of a zone's snapshot: every row of the zone as the merge of all its changes, in
/// identifier order, for a replica's first sync (or one too far behind the feed's compacted start).
///
/// ```swift
/// var cursor: SyncID?
/// repeat {
///     let page = try await transport.snapshot(zone: "default", after: cursor, limit: 1000)
///     apply(page.rows)
///     cursor = page.rows.last?.id
/// } while page.more
/// ```
public struct SnapshotPage: Hashable, Sendable, Codable {
    /// The rows, each merged from every change stored for it, in identifier order.
    public var rows: [RowChange]
    /// The feed position the snapshot includes every batch up to: after the last page, read the
    /// feed after the first page's position (rows changed since are read again, which merging
    /// makes harmless).
    public var position: Int64
    /// Whether more rows follow.
    public var more: Bool

    /// A page.
    ///
    /// ```swift
    /// let last = SnapshotPage(rows: rows, position: 40, more: false)
    /// ```
    public init(rows: [RowChange], position: Int64, more: Bool) {
        self.rows = rows
        self.position = position
        self.more = more
    }
}

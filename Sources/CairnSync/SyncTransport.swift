import CairnSyncProtocol
import Foundation

/// How a ``SyncEngine`` talks to a server: ``HTTPSyncTransport`` for a `cairn-sync-server`,
/// ``InProcessSyncTransport`` for an ``InMemorySyncServer`` in the same process (tests, previews).
///
/// A transport may fail any call, or deliver it and lose the answer: the engine sends a batch
/// again until one push is answered, and the server stores it once.
///
/// ```swift
/// let transport = HTTPSyncTransport(server: url, token: token)
/// let page = try await transport.changes(zone: "default", after: 0, limit: 100, wait: nil)
/// ```
public protocol SyncTransport: Sendable {
    /// Stores `batch` in `zone`'s feed, once however often it is pushed.
    func push(_ batch: ChangeBatch, zone: String) async throws -> PushResult
    /// The batches of `zone` stored after position `after`, at most `limit`; with `wait`, a
    /// request that finds none waits that long for one.
    func changes(zone: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage
    /// A page of `zone`'s rows as merged so far, after the row `after`, at most `limit`.
    func snapshot(zone: String, after: SyncID?, limit: Int) async throws -> SnapshotPage
}

import Cairn
import CairnSyncProtocol
import Foundation

/// Keeps a container's store in sync with the other replicas of a zone, through a server.
///
/// ``sync()`` pushes what was saved here since the last sync and pulls what other replicas
/// pushed; ``start()`` does so after every save and whenever the server has new changes, until
/// ``stop()``. A replica's first sync reads the zone's snapshot instead of its whole history.
/// Conflicting writes resolve per field (the later write wins, by a hybrid logical clock), the
/// same way on every replica (`Docs/Sync.md`). Saves that sync makes carry the author
/// `"cairn.sync"`, so history readers can tell them from the app's.
///
/// ```swift
/// let engine = try SyncEngine(
///     container: container,
///     configuration: SyncConfiguration(server: URL(string: "https://sync.example.com")!, token: token))
/// await engine.start()
/// let report = try await engine.sync()   // or sync by hand
/// ```
public actor SyncEngine {
    let replica: SyncReplica
    private let transport: any SyncTransport
    let configuration: SyncConfiguration
    /// Where the engine is; ``statusUpdates()`` tells each change.
    public private(set) var status: SyncStatus = .idle
    private var observers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    var loop: Task<Void, Never>?

    /// An engine for `container`'s store. Its first use makes the store's sync tables.
    ///
    /// ```swift
    /// let engine = try SyncEngine(container: container, configuration: configuration)
    /// ```
    /// - Parameter transport: How to reach the server; an ``HTTPSyncTransport`` to the
    ///   configuration's server when `nil`.
    /// - Throws: `StorageError` when the store's sync tables cannot be made or read;
    ///   ``SyncError`` `.rejected` for a zone key that is not 32 bytes or an empty passphrase.
    public init(
        container: ModelContainer, configuration: SyncConfiguration, transport: (any SyncTransport)? = nil
    ) throws {
        let entities = configuration.models.map { Set($0.map { Schema.entityName(of: $0) }) }
        replica = try SyncReplica(container: container, entities: entities, resolvers: configuration.resolvers)
        replicaID = replica.replicaID
        self.transport = transport ?? HTTPSyncTransport(server: configuration.server, token: configuration.token)
        self.configuration = configuration
        zoneCipher = try configuration.encryption.map { (encryption) throws(SyncError) in
            try ZoneCipher(encryption: encryption, zone: configuration.zone)
        }
    }

    /// The zone's cipher, for an end-to-end encrypted zone.
    private let zoneCipher: ZoneCipher?

    /// This replica's identifier, made the first time its store synced.
    public nonisolated let replicaID: SyncID

    /// Pushes what was saved here and pulls what other replicas pushed, once.
    ///
    /// ```swift
    /// let report = try await engine.sync()
    /// ```
    /// - Throws: ``SyncError``.
    @discardableResult
    public func sync() async throws -> SyncReport {
        setStatus(.syncing)
        do {
            var report = SyncReport()
            try replica.collect()
            try await push(&report)
            try await pull(&report, wait: nil)
            try replica.collect()
            try await push(&report)
            try checkNothingLeftTooLarge()
            setStatus(.idle)
            return report
        } catch {
            let failure = SyncError(error)
            setStatus(failure.code == .offline ? .offline : .failed(failure))
            throw failure
        }
    }

    /// Each change of ``status``, starting with the current one.
    ///
    /// ```swift
    /// for await status in await engine.statusUpdates() { print(status) }
    /// ```
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self)
        let key = UUID()
        observers[key] = continuation
        continuation.yield(status)
        continuation.onTermination = { _ in Task { await self.removeObserver(key) } }
        return stream
    }

    private func removeObserver(_ key: UUID) { observers[key] = nil }

    func setStatus(_ new: SyncStatus) {
        guard new != status else { return }
        status = new
        for observer in observers.values { observer.yield(new) }
    }

    /// Pushes every pending row, a batch at a time.
    func push(_ report: inout SyncReport) async throws {
        while let batch = try replica.nextBatch(limit: configuration.batchSize) {
            _ = try await transport.push(zoneCipher?.sealed(batch) ?? batch, zone: configuration.zone)
            try replica.batchPushed(batch)
            report.pushed += batch.rows.count
        }
    }

    /// Throws ``SyncError/Code/tooLarge`` when rows changed here stay unpushed for their size
    /// (everything else was pushed and pulled).
    private func checkNothingLeftTooLarge() throws {
        let rows = try replica.oversizedRows()
        guard let first = rows.first else { return }
        throw SyncError(
            code: .tooLarge,
            message: "\(rows.count) row(s) changed here are too large to push: the \(first.entity) \(first.id) holds "
                + "\(first.bytes) bytes of synced values, where a push carries at most \(SyncLimits.maximumRowBytes). "
                + "Everything else synced; make those values smaller (or keep them out of the synced models) to sync them.")
    }

    /// Pulls every batch after the replica's position (the snapshot first, for a replica that
    /// has none), applying each page with its position in one commit.
    func pull(_ report: inout SyncReport, wait: Duration?) async throws {
        var position = try replica.position()
        if position == 0 { position = try await readSnapshot(&report) }
        var wait = wait
        while true {
            let page: ChangesPage
            do {
                page = try await transport.changes(zone: configuration.zone, after: position, limit: 200, wait: wait)
            } catch let error as SyncProtocolError where error.code == .positionExpired {
                position = try await readSnapshot(&report)
                continue
            }
            let rows = try opened(page.batches.filter { $0.batch.replica != replicaID }.flatMap(\.batch.rows))
            if !rows.isEmpty || page.position != position {
                let applied = try replica.apply(rows, position: page.position)
                report.pulled += rows.count
                report.conflictsResolved += applied.conflicts
            }
            position = page.position
            wait = nil
            guard page.more else { return }
        }
    }

    /// `rows` as they arrived, with their values opened in an end-to-end encrypted zone; in
    /// another, refused if a value is sealed (the zone has a key this replica lacks).
    private func opened(_ rows: [RowChange]) throws(SyncError) -> [RowChange] {
        guard let zoneCipher else {
            try ZoneCipher.refuseSealed(rows, zone: configuration.zone)
            return rows
        }
        return try zoneCipher.opened(rows)
    }

    /// Applies the zone's snapshot, page by page; the position it covers is recorded with the
    /// last page, so a snapshot cut short is read again from the start.
    private func readSnapshot(_ report: inout SyncReport) async throws -> Int64 {
        var cursor: SyncID?
        var position: Int64?
        while true {
            let page = try await transport.snapshot(zone: configuration.zone, after: cursor, limit: 1000)
            let covered = position ?? page.position
            position = covered
            _ = try replica.apply(try opened(page.rows), position: page.more ? nil : covered)
            report.pulled += page.rows.count
            cursor = page.rows.last?.id ?? cursor
            guard page.more, !page.rows.isEmpty else { return covered }
        }
    }
}

import CairnSyncProtocol
import Foundation

/// A sync server that keeps its zones in memory, with the rules of `cairn-sync-server`: each
/// zone a feed of batches stored once per identifier, its rows merged field by field for
/// snapshots, a compacted start, and requests for changes that wait for one. For tests and
/// previews, through ``InProcessSyncTransport``; it keeps nothing when the process ends.
///
/// ```swift
/// let server = InMemorySyncServer()
/// let engine = try SyncEngine(
///     container: container, configuration: configuration, transport: InProcessSyncTransport(server: server))
/// ```
public actor InMemorySyncServer {
    private struct Zone {
        var batches: [StoredBatch] = []
        var positions: [SyncID: Int64] = [:]
        var rows: [SyncID: RowChange] = [:]
        /// Whether the zone's values are sealed, and with which key (an end-to-end encrypted
        /// zone); `nil` until a batch with values decides it.
        var sealing: ZoneSealing?
        /// Batches at or before this position were compacted away.
        var compactedThrough: Int64 = 0
        var last: Int64 = 0
    }

    private var zones: [String: Zone] = [:]
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    /// The zones each token reaches (`nil`: every zone); no tokens at all lets every request in.
    private var tokens: [String: Set<String>?] = [:]

    /// An empty server.
    ///
    /// ```swift
    /// let server = InMemorySyncServer()
    /// ```
    public init() {}

    /// Lets `token` reach `zones` (every zone when `nil`). Once any token is added, requests
    /// need one.
    ///
    /// ```swift
    /// await server.addToken("alice-token", zones: ["alice"])
    /// ```
    public func addToken(_ token: String, zones: Set<String>?) {
        tokens[token] = .some(zones)
    }

    /// Checks that `token` reaches `zone`.
    func authorize(_ token: String?, zone: String) throws(SyncProtocolError) {
        guard !tokens.isEmpty else { return }
        guard let token, let reach = tokens[token] else {
            throw SyncProtocolError(code: .unauthorized, message: "The token is not one this server knows.")
        }
        if let zones = reach, !zones.contains(zone) {
            throw SyncProtocolError(code: .forbidden, message: "The token does not reach zone '\(zone)'.")
        }
    }

    /// Stores `batch` in `zone`, once.
    func push(_ batch: ChangeBatch, zone name: String) async throws -> PushResult {
        if let position = zones[name]?.positions[batch.id] { return PushResult(position: position, duplicate: true) }
        try batch.validate(nowMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000))
        let ids = batch.rowsToLookUp
        let inZone = Dictionary(uniqueKeysWithValues: ids.compactMap { id in zones[name]?.rows[id].map { (id, $0.entity) } })
        let elsewhere = ids.filter { id in zones.contains { $0.key != name && $0.value.rows[id] != nil } }
        try batch.checkAgainstZone(inZone: inZone, elsewhere: elsewhere)
        var zone = zones[name] ?? Zone()
        if let sealing = try batch.sealing() {
            if let kept = zone.sealing, let refusal = SyncProtocolError.sealing(batch: sealing, zone: kept, name: name) {
                throw refusal
            }
            zone.sealing = sealing
        }
        zone.last += 1
        zone.batches.append(StoredBatch(position: zone.last, batch: batch))
        zone.positions[batch.id] = zone.last
        for row in batch.rows {
            if var stored = zone.rows[row.id] {
                stored.merge(row)
                zone.rows[row.id] = stored
            } else {
                zone.rows[row.id] = row
            }
        }
        zones[name] = zone
        for waiter in waiters.removeValue(forKey: name)?.values ?? [:].values { waiter.resume() }
        return PushResult(position: zone.last, duplicate: false)
    }

    /// The batches of `zone` after `after`: up to `limit`, and about `SyncLimits.pageBytes`.
    func changes(zone name: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage {
        if let wait, (zones[name]?.last ?? 0) <= after { await waitForPush(to: name, upTo: wait) }
        let zone = zones[name] ?? Zone()
        guard after >= zone.compactedThrough else {
            throw SyncProtocolError(
                code: .positionExpired,
                message: "Position \(after) is before the zone's compacted start (\(zone.compactedThrough)); read the snapshot.")
        }
        let start = zone.batches.firstIndex { $0.position > after } ?? zone.batches.endIndex
        let rest = zone.batches[start...]
        let sizes = rest.lazy.map { $0.batch.rows.reduce(0) { $0 + $1.wireSizeBound } }
        let page = Array(rest.prefix(SyncLimits.pageCount(sizes: sizes, limit: limit)))
        let more = start + page.count < zone.batches.endIndex
        return ChangesPage(batches: page, position: page.last?.position ?? max(after, 0), more: more)
    }

    /// A page of `zone`'s merged rows after `after`: up to `limit`, and about `SyncLimits.pageBytes`.
    func snapshot(zone name: String, after: SyncID?, limit: Int) -> SnapshotPage {
        let zone = zones[name] ?? Zone()
        let ordered = zone.rows.keys.sorted().filter { id in after.map { id > $0 } ?? true }
        let count = SyncLimits.pageCount(sizes: ordered.lazy.map { zone.rows[$0]!.wireSizeBound }, limit: limit)
        let page = ordered.prefix(count).map { zone.rows[$0]! }
        return SnapshotPage(rows: page, position: zone.last, more: ordered.count > page.count)
    }

    /// Drops the batches of `zone` up to `position`: replicas behind it read the snapshot.
    ///
    /// ```swift
    /// await server.compact(zone: "default", through: 100)
    /// ```
    public func compact(zone name: String, through position: Int64) {
        guard var zone = zones[name] else { return }
        let through = min(position, zone.last)
        zone.batches.removeAll { $0.position <= through }
        zone.compactedThrough = max(zone.compactedThrough, through)
        zones[name] = zone
    }

    private func waitForPush(to zone: String, upTo wait: Duration) async {
        let key = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiters[zone, default: [:]][key] = continuation
            Task {
                try? await Task.sleep(for: wait)
                self.endWait(key, zone: zone)
            }
        }
    }

    private func endWait(_ key: UUID, zone: String) {
        waiters[zone]?.removeValue(forKey: key)?.resume()
    }
}

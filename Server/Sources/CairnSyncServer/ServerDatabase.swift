import CairnSyncProtocol
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// What the server keeps in PostgreSQL, and every query it makes (each with bound parameters).
/// Zones belong to users: a zone is named by its owner and its name. Tables:
///
/// - `cairn_tokens`: a token's SHA-256 (the token itself is never stored), its user, and the
///   one zone it is limited to, if any;
/// - `cairn_zones`: each zone's last feed position, compacted start, and whether its values are
///   sealed (an end-to-end encrypted zone);
/// - `cairn_batches`: each zone's feed: position, batch identifier (unique per zone, so a push is
///   stored once), the pushing replica, and the batch as sent (its `SyncWire` bytes);
/// - `cairn_rows`: each zone's rows merged field by field (a `RowChange`'s `SyncWire` bytes),
///   for snapshots.
///
/// No process keeps state of its own: pushes to one zone take its `cairn_zones` row lock, so
/// positions increase in commit order whichever process stores them, and `NOTIFY cairn_changes`
/// tells every process's waiting requests.
///
/// ```swift
/// let database = ServerDatabase(client: client, logger: logger)
/// try await database.createTables()
/// ```
public struct ServerDatabase: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The database `client` reaches (the client must be running), logging to `logger`.
    ///
    /// ```swift
    /// let database = ServerDatabase(client: client, logger: Logger(label: "cairn-sync-server"))
    /// ```
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Creates the tables the server needs, if they are not there.
    public func createTables() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7421001)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS cairn_tokens (
                    hash bytea PRIMARY KEY, username text NOT NULL, zone text, created timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS cairn_zones (
                    owner text NOT NULL, zone text NOT NULL, last bigint NOT NULL DEFAULT 0,
                    compacted bigint NOT NULL DEFAULT 0, sealing bytea, PRIMARY KEY (owner, zone))
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS cairn_batches (
                    owner text NOT NULL, zone text NOT NULL, position bigint NOT NULL, id uuid NOT NULL,
                    replica uuid NOT NULL, body bytea NOT NULL, created timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (owner, zone, position), UNIQUE (owner, zone, id))
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS cairn_rows (
                    owner text NOT NULL, zone text NOT NULL, id uuid NOT NULL, entity text NOT NULL,
                    state bytea NOT NULL, position bigint NOT NULL, PRIMARY KEY (owner, zone, id))
                """, logger: logger)
            try await connection.query("CREATE INDEX IF NOT EXISTS cairn_rows_id ON cairn_rows (id)", logger: logger)
            // `sealing`: whether the zone's values are sealed with a key only its replicas hold:
            // the key's identifier, empty for clear, NULL until a batch with values decides it
            // (ZoneSealing.storedBytes). Added to a table made before it existed; only then, since
            // ALTER TABLE waits for every running push to the table, even when it changes nothing.
            var hasSealing = false
            for try await _ in try await connection.query(
                """
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'cairn_zones' AND column_name = 'sealing'
                """, logger: logger
            ) { hasSealing = true }
            if !hasSealing {
                try await connection.query("ALTER TABLE cairn_zones ADD COLUMN sealing bytea", logger: logger)
            }
        }
    }

    // MARK: Tokens

    /// Makes a token for `user` (limited to `zone` when given), stores its hash, and returns it.
    public func createToken(user: String, zone: String?) async throws -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        let token = "cst_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let secret = ByteBuffer(string: token)
        try await client.query(
            "INSERT INTO cairn_tokens (hash, username, zone) VALUES (sha256(\(secret)), \(user), \(zone))", logger: logger)
        return token
    }

    /// The user a token belongs to and the zone it is limited to, or `nil` for a token the
    /// server does not know.
    func account(token: String) async throws -> Account? {
        let secret = ByteBuffer(string: token)
        let rows = try await client.query(
            "SELECT username, zone FROM cairn_tokens WHERE hash = sha256(\(secret))", logger: logger)
        for try await (user, zone) in rows.decode((String, String?).self) { return Account(user: user, zone: zone) }
        return nil
    }

    // MARK: Feed

    /// Stores `batch` in the zone once (see ``ChangeBatch/checkAgainstZone(inZone:elsewhere:)``),
    /// merges its rows, and announces it.
    func push(_ batch: ChangeBatch, owner: String, zone: String) async throws -> PushResult {
        let body = ByteBuffer(bytes: SyncWire.bodyBytes(batch))
        let batchID = UUID(syncID: batch.id)
        let replica = UUID(syncID: batch.replica)
        return try await Self.unwrapped { try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "INSERT INTO cairn_zones (owner, zone) VALUES (\(owner), \(zone)) ON CONFLICT DO NOTHING", logger: logger)
            var (last, kept): (Int64, ByteBuffer?) = (0, nil)
            for try await value in try await connection.query(
                "SELECT last, sealing FROM cairn_zones WHERE owner = \(owner) AND zone = \(zone) FOR UPDATE",
                logger: logger
            ).decode((Int64, ByteBuffer?).self) { (last, kept) = value }
            for try await position in try await connection.query(
                "SELECT position FROM cairn_batches WHERE owner = \(owner) AND zone = \(zone) AND id = \(batchID)",
                logger: logger
            ).decode(Int64.self) { return PushResult(position: position, duplicate: true) }
            let stored = try await rows(batch.rowsToLookUp, owner: owner, zone: zone, connection: connection)
            try batch.checkAgainstZone(inZone: stored.entities, elsewhere: stored.elsewhere)
            if let sealing = try batch.sealing() {
                if let kept {
                    let stored = ZoneSealing(storedBytes: Data(kept.readableBytesView))
                    if let refusal = SyncProtocolError.sealing(batch: sealing, zone: stored, name: zone) { throw refusal }
                } else {
                    let bytes = ByteBuffer(bytes: sealing.storedBytes)
                    try await connection.query(
                        "UPDATE cairn_zones SET sealing = \(bytes) WHERE owner = \(owner) AND zone = \(zone)",
                        logger: logger)
                }
            }
            let position = last + 1
            try await connection.query(
                """
                INSERT INTO cairn_batches (owner, zone, position, id, replica, body)
                VALUES (\(owner), \(zone), \(position), \(batchID), \(replica), \(body))
                """, logger: logger)
            try await merge(batch.rows, existing: stored.states, owner: owner, zone: zone, position: position, connection)
            try await connection.query(
                "UPDATE cairn_zones SET last = \(position) WHERE owner = \(owner) AND zone = \(zone)", logger: logger)
            try await connection.query("SELECT pg_notify('cairn_changes', \(owner + "/" + zone))", logger: logger)
            return PushResult(position: position, duplicate: false)
        } }
    }

    /// Runs a transaction, throwing the error its closure threw (a refusal) rather than the
    /// client's wrapper of it, which says only that the transaction was rolled back.
    private static func unwrapped<T>(_ transaction: () async throws -> T) async throws -> T {
        do {
            return try await transaction()
        } catch let error as PostgresTransactionError {
            if let cause = error.closureError, error.rollbackError == nil { throw cause }
            throw error
        }
    }

    /// The rows of the zone among `ids` (their entities and merged states), and those of `ids`
    /// another zone holds.
    private func rows(
        _ ids: Set<SyncID>, owner: String, zone: String, connection: PostgresConnection
    ) async throws -> (entities: [SyncID: String], states: [SyncID: RowChange], elsewhere: Set<SyncID>) {
        let uuids = ids.map(UUID.init(syncID:))
        var entities: [SyncID: String] = [:]
        var states: [SyncID: RowChange] = [:]
        var elsewhere = Set<SyncID>()
        let found = try await connection.query(
            """
            SELECT id, entity, state, owner = \(owner) AND zone = \(zone) FROM cairn_rows
            WHERE id = ANY(\(uuids)) FOR UPDATE
            """, logger: logger)
        for try await (uuid, entity, state, isHere) in found.decode((UUID, String, ByteBuffer, Bool).self) {
            let id = SyncID(uuid: uuid)
            guard isHere else {
                elsewhere.insert(id)
                continue
            }
            entities[id] = entity
            states[id] = try SyncWire.decodeBody(RowChange.self, from: state.readableBytesView)
        }
        return (entities, states, elsewhere)
    }

    /// Merges `rows` into the zone's stored rows, in one statement (a batch holds up to
    /// `SyncLimits.rows` rows; one statement each would be as many round trips).
    private func merge(
        _ rows: [RowChange], existing: [SyncID: RowChange], owner: String, zone: String, position: Int64,
        _ connection: PostgresConnection
    ) async throws {
        var merged: [SyncID: RowChange] = [:]
        for row in rows { merged[row.id, default: existing[row.id] ?? RowChange(entity: row.entity, id: row.id)].merge(row) }
        guard !merged.isEmpty else { return }
        let changes = Array(merged.values)
        let ids = changes.map { UUID(syncID: $0.id) }
        let entities = changes.map(\.entity)
        let states = changes.map { ByteBuffer(bytes: SyncWire.bodyBytes($0)) }
        try await connection.query(
            """
            INSERT INTO cairn_rows (owner, zone, id, entity, state, position)
            SELECT \(owner), \(zone), id, entity, state, \(position)
            FROM unnest(\(ids)::uuid[], \(entities)::text[], \(states)::bytea[]) AS incoming (id, entity, state)
            ON CONFLICT (owner, zone, id) DO UPDATE SET state = EXCLUDED.state, position = EXCLUDED.position
            """, logger: logger)
    }

    /// The zone's last position and compacted start.
    func zoneState(owner: String, zone: String) async throws -> (last: Int64, compacted: Int64) {
        let rows = try await client.query(
            "SELECT last, compacted FROM cairn_zones WHERE owner = \(owner) AND zone = \(zone)", logger: logger)
        for try await (last, compacted) in rows.decode((Int64, Int64).self) { return (last, compacted) }
        return (0, 0)
    }

    /// The zone's batches after `after`, at most `limit` and about `SyncLimits.pageBytes` (as a
    /// snapshot page is): a ``ChangesPage`` message joined from the stored batches' bytes,
    /// and how many batches it holds.
    func changes(owner: String, zone: String, after: Int64, limit: Int) async throws -> (message: [UInt8], batches: Int) {
        let state = try await zoneState(owner: owner, zone: zone)
        guard after >= state.compacted else {
            throw SyncProtocolError(
                code: .positionExpired,
                message: "Position \(after) is before the zone's compacted start (\(state.compacted)); read the snapshot.")
        }
        let rows = try await client.query(
            """
            SELECT position, CASE WHEN before < \(SyncLimits.pageBytes) OR n = 1 THEN body END FROM (
                SELECT position, body, row_number() OVER w AS n, sum(octet_length(body)) OVER w - octet_length(body) AS before
                FROM cairn_batches WHERE owner = \(owner) AND zone = \(zone) AND position > \(after)
                WINDOW w AS (ORDER BY position) ORDER BY position LIMIT \(limit + 1)) AS page
            ORDER BY position
            """, logger: logger)
        var batches: [(position: Int64, body: [UInt8])] = []
        var more = false
        for try await (position, body) in rows.decode((Int64, ByteBuffer?).self) {
            guard let body, batches.count < limit, !more else {
                more = true
                continue
            }
            batches.append((position, Array(body.readableBytesView)))
        }
        let message = SyncWire.changesPage(batches: batches, position: batches.last?.position ?? after, more: more)
        return (message, batches.count)
    }

    /// A page of the zone's merged rows after `after`, at most `limit` and about
    /// `SyncLimits.pageBytes` (the first row always; rows past the budget come back without
    /// their bytes, only to say there are more): a ``SnapshotPage`` message joined from the
    /// stored rows' bytes.
    func snapshot(owner: String, zone: String, after: SyncID?, limit: Int) async throws -> [UInt8] {
        let state = try await zoneState(owner: owner, zone: zone)
        let start = UUID(syncID: after ?? SyncID(high: 0, low: 0))
        let inclusive = after == nil
        let rows = try await client.query(
            """
            SELECT CASE WHEN before < \(SyncLimits.pageBytes) OR n = 1 THEN state END FROM (
                SELECT id, state, row_number() OVER w AS n, sum(octet_length(state)) OVER w - octet_length(state) AS before
                FROM cairn_rows WHERE owner = \(owner) AND zone = \(zone)
                AND (id > \(start) OR (\(inclusive) AND id = \(start)))
                WINDOW w AS (ORDER BY id) ORDER BY id LIMIT \(limit + 1)) AS page
            ORDER BY id
            """, logger: logger)
        var found: [[UInt8]] = []
        var more = false
        for try await state in rows.decode(ByteBuffer?.self) {
            guard let state, found.count < limit, !more else {
                more = true
                continue
            }
            found.append(Array(state.readableBytesView))
        }
        return SyncWire.snapshotPage(rows: found, position: state.last, more: more)
    }

    /// Drops each zone's batches but the newest `keep`: replicas further behind read the snapshot.
    public func compact(keepingNewest keep: Int64) async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "UPDATE cairn_zones SET compacted = last - \(keep) WHERE last - \(keep) > compacted", logger: logger)
            var removed = 0
            for try await count in try await connection.query(
                """
                WITH gone AS (DELETE FROM cairn_batches b USING cairn_zones z
                WHERE b.owner = z.owner AND b.zone = z.zone AND b.position <= z.compacted RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger
            ).decode(Int64.self) { removed = Int(count) }
            return removed
        }
    }
}

/// Who a request is from: a user, and the one zone the token is limited to, if any.
struct Account: Sendable {
    let user: String
    let zone: String?

    /// Checks that the account reaches `zone`.
    func check(_ zone: String) throws(SyncProtocolError) {
        if let only = self.zone, only != zone {
            throw SyncProtocolError(code: .forbidden, message: "The token does not reach zone '\(zone)'.")
        }
    }
}

extension UUID {
    init(syncID: SyncID) {
        let bytes = syncID.bytes
        self.init(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension SyncID {
    init(uuid: UUID) {
        self = withUnsafeBytes(of: uuid.uuid) { SyncID(bytes: Array($0))! }
    }
}

import CairnSyncProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat

/// The server's HTTP routes (`Docs/Sync.md`, "Protocol"): each checks the bearer token and the
/// zone, answers JSON, and turns a refusal into a 4xx whose body is a `SyncProtocolError`.
///
/// - `POST /v1/zones/{zone}/batches` — a `ChangeBatch`; answers a `PushResult`.
/// - `GET /v1/zones/{zone}/changes?after=P&limit=N&wait=S` — a `ChangesPage`; with `wait`, a
///   request that finds nothing waits up to S seconds (at most 60) for a batch.
/// - `GET /v1/zones/{zone}/snapshot?after=ID&limit=N` — a `SnapshotPage`.
/// - `GET /health` — `ok`.
///
/// ```swift
/// let router = SyncRoutes(database: database, announcer: announcer, logger: logger).router()
/// ```
public struct SyncRoutes: Sendable {
    let database: ServerDatabase
    let announcer: ChangeAnnouncer
    let logger: Logger

    /// Routes over `database`, waking waiting requests through `announcer`.
    ///
    /// ```swift
    /// let routes = SyncRoutes(database: database, announcer: ChangeAnnouncer(), logger: logger)
    /// ```
    public init(database: ServerDatabase, announcer: ChangeAnnouncer, logger: Logger) {
        self.database = database
        self.announcer = announcer
        self.logger = logger
    }

    /// The router with every route.
    ///
    /// ```swift
    /// let application = Application(router: routes.router())
    /// ```
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("health") { _, _ in "ok" }
        router.post("v1/zones/:zone/batches") { request, context in
            try await answer { account, zone in
                let body = try await Self.body(of: request)
                let batch = try SyncWire.decode(ChangeBatch.self, from: body.readableBytesView)
                try batch.validate(nowMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000))
                return SyncWire.encode(try await database.push(batch, owner: account.user, zone: zone))
            }(request, context)
        }
        router.get("v1/zones/:zone/changes") { request, context in
            try await answer { account, zone in
                let after = try Self.integer(request, "after", default: 0)
                let limit = Int(try Self.integer(request, "limit", default: 200)).clamped(1, 1000)
                let wait = min(try Self.integer(request, "wait", default: 0), 60)
                return try await changes(owner: account.user, zone: zone, after: after, limit: limit, wait: wait)
            }(request, context)
        }
        router.get("v1/zones/:zone/snapshot") { request, context in
            try await answer { account, zone in
                let limit = Int(try Self.integer(request, "limit", default: 1000)).clamped(1, 5000)
                var after: SyncID?
                if let text = request.uri.queryParameters.get("after") {
                    guard let id = SyncID(text) else {
                        throw SyncProtocolError(code: .badRequest, message: "'after' is not a row identifier.")
                    }
                    after = id
                }
                return try await database.snapshot(owner: account.user, zone: zone, after: after, limit: limit)
            }(request, context)
        }
        return router
    }

    /// The zone's batches after `after` (a ``ChangesPage`` message), waiting up to `wait`
    /// seconds for one when there are none.
    private func changes(owner: String, zone: String, after: Int64, limit: Int, wait: Int64) async throws -> [UInt8] {
        let page = try await database.changes(owner: owner, zone: zone, after: after, limit: limit)
        guard page.batches == 0, wait > 0 else { return page.message }
        let ticket = await announcer.register(owner + "/" + zone)
        if try await database.zoneState(owner: owner, zone: zone).last > after {
            await announcer.cancel(ticket)
        } else {
            await announcer.wait(ticket, upTo: .seconds(wait))
        }
        return try await database.changes(owner: owner, zone: zone, after: after, limit: limit).message
    }

    /// A handler that checks the token and the zone, runs `body`, and answers the message it
    /// makes (``SyncWire``) or its refusal as a `SyncProtocolError` in JSON.
    private func answer(
        _ body: @escaping @Sendable (Account, String) async throws -> [UInt8]
    ) -> @Sendable (Request, BasicRequestContext) async throws -> Response {
        { request, context in
            do {
                guard let zone = context.parameters.get("zone"), SyncZoneName.isValid(zone) else {
                    throw SyncProtocolError(
                        code: .badRequest, message: SyncZoneName.rule(context.parameters.get("zone") ?? ""))
                }
                let account = try await authenticate(request)
                try account.check(zone)
                let message = try await body(account, zone)
                return Response(
                    status: .ok, headers: [.contentType: SyncWire.contentType],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: message)))
            } catch let refusal as SyncProtocolError {
                logger.info("Refused \(request.method) \(request.uri.path): \(refusal.message)")
                return try Self.json(refusal, status: .init(code: refusal.status))
            } catch let error as HTTPError where error.status == .contentTooLarge {
                let refusal = SyncProtocolError(
                    code: .tooLarge, message: "The body is larger than \(SyncLimits.maximumBodyBytes) bytes.")
                return try Self.json(refusal, status: .contentTooLarge)
            }
        }
    }

    private func authenticate(_ request: Request) async throws -> Account {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw SyncProtocolError(code: .unauthorized, message: "The request has no bearer token.")
        }
        let token = String(header.dropFirst("Bearer ".count))
        guard token.utf8.count <= 200, let account = try await database.account(token: token) else {
            throw SyncProtocolError(code: .unauthorized, message: "The token is not one this server knows.")
        }
        return account
    }

    private static func body(of request: Request) async throws -> ByteBuffer {
        var request = request
        return try await request.collectBody(upTo: SyncLimits.maximumBodyBytes)
    }

    private static func integer(_ request: Request, _ name: String, default value: Int64) throws -> Int64 {
        guard let text = request.uri.queryParameters.get(name) else { return value }
        guard let number = Int64(text), number >= 0 else {
            throw SyncProtocolError(code: .badRequest, message: "'\(name)' must be a whole number of 0 or more.")
        }
        return number
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value))))
    }
}

extension Int {
    fileprivate func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(Swift.max(self, low), high) }
}

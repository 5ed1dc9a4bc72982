import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// The whole server: a PostgreSQL client, the change announcer and the HTTP routes, run until
/// the process is told to stop. Any number of these may serve one database.
///
/// ```swift
/// let server = try SyncServer(databaseURL: "postgres://cairn@localhost/cairn", host: "0.0.0.0", port: 8080)
/// try await server.run()
/// ```
public struct SyncServer: Sendable {
    let client: PostgresClient
    let host: String
    let port: Int
    let logger: Logger
    let keepBatches: Int64

    /// A server on the database `databaseURL` names, listening on `host` and `port` (0: any
    /// free port, which ``run(onRunning:)`` reports), keeping `keepBatches` of each zone's feed.
    ///
    /// ```swift
    /// let server = try SyncServer(databaseURL: url, host: "127.0.0.1", port: 0)
    /// ```
    /// - Throws: ``ServerError`` when the URL is not a PostgreSQL URL.
    public init(databaseURL: String, host: String, port: Int, keepBatches: Int64 = 100_000, logger: Logger? = nil) throws {
        let logger = logger ?? Logger(label: "cairn-sync-server")
        client = PostgresClient(configuration: try DatabaseURL.configuration(databaseURL), backgroundLogger: logger)
        self.host = host
        self.port = port
        self.logger = logger
        self.keepBatches = keepBatches
    }

    /// Creates the tables, then serves until cancelled; `onRunning` is told the port listened on.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let database = ServerDatabase(client: client, logger: logger)
        let announcer = ChangeAnnouncer()
        let routes = SyncRoutes(database: database, announcer: announcer, logger: logger)
        let application = Application(
            router: routes.router(), configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await database.createTables()
            group.addTask { await announcer.run(client: client, logger: logger) }
            group.addTask { try await compactEveryHour(database) }
            group.addTask { try await application.run() }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Compacts the feeds now and every hour; a compaction that fails (the database restarting)
    /// is logged and tried again at the next hour, never ending the server.
    private func compactEveryHour(_ database: ServerDatabase) async throws {
        while !Task.isCancelled {
            do {
                let removed = try await database.compact(keepingNewest: keepBatches)
                if removed > 0 { logger.info("Compacted the feeds: \(removed) batches removed") }
            } catch {
                logger.warning("Compacting the feeds failed (tried again in an hour): \(String(reflecting: error))")
            }
            try await Task.sleep(for: .seconds(3600))
        }
    }
}

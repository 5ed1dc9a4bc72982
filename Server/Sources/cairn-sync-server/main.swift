import ArgumentParser
import CairnSyncProtocol
import CairnSyncServer
import Foundation
import Logging
import PostgresNIO

/// `cairn-sync-server`: serves sync zones from PostgreSQL, and makes tokens.
@main
struct CairnSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn-sync-server",
        abstract: "Syncs Cairn stores through PostgreSQL.",
        subcommands: [Serve.self, Token.self, Compact.self])
}

struct DatabaseOption: ParsableArguments {
    @Option(help: "The PostgreSQL URL, postgres://user:password@host:port/database (or CAIRN_DATABASE_URL).")
    var databaseURL: String?

    func url() throws -> String {
        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["CAIRN_DATABASE_URL"] else {
            throw ValidationError("Give --database-url postgres://… or set CAIRN_DATABASE_URL.")
        }
        return url
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serves sync requests (creates the tables it needs).")

    @OptionGroup var database: DatabaseOption
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on.") var port = 8080
    @Option(help: "The batches of each zone's feed kept; replicas further behind read the snapshot.")
    var keepBatches: Int64 = 100_000

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let server = try SyncServer(databaseURL: try database.url(), host: host, port: port, keepBatches: keepBatches)
        try await server.run { port in
            FileHandle.standardError.write(Data("cairn-sync-server listening on \(host):\(port)\n".utf8))
        }
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manages tokens.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Makes a token for a user and prints it once (the server keeps only its hash).")

        @OptionGroup var database: DatabaseOption
        @Option(help: "The user the token is for: it reaches this user's zones.") var user: String
        @Option(help: "Limit the token to this one zone.") var zone: String?

        func run() async throws {
            guard !user.isEmpty, user.utf8.count <= 200 else { throw ValidationError("--user takes 1 to 200 bytes.") }
            if let zone, !SyncZoneName.isValid(zone) { throw ValidationError(SyncZoneName.rule(zone)) }
            let token = try await withDatabase(try database.url()) { database in
                try await database.createTables()
                return try await database.createToken(user: user, zone: zone)
            }
            print(token)
        }
    }
}

struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drops each zone's batches but the newest; replicas further behind read the snapshot.")

    @OptionGroup var database: DatabaseOption
    @Option(help: "The batches of each zone kept.") var keepBatches: Int64 = 100_000

    func run() async throws {
        let removed = try await withDatabase(try database.url()) { database in
            try await database.compact(keepingNewest: keepBatches)
        }
        print("\(removed) batches removed")
    }
}

/// Runs `body` with a database whose client runs meanwhile.
func withDatabase<T: Sendable>(_ url: String, _ body: @escaping @Sendable (ServerDatabase) async throws -> T) async throws -> T {
    let logger = Logger(label: "cairn-sync-server")
    let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await client.run()
            return nil
        }
        group.addTask { try await body(ServerDatabase(client: client, logger: logger)) }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let result { return result }
        }
        throw ServerError("The database client stopped.")
    }
}

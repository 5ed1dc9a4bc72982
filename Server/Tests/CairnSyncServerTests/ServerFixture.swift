import Cairn
import CairnSync
import CairnSyncServer
import Foundation
import Logging
import PostgresNIO
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The PostgreSQL database the server tests use: `CAIRN_SYNC_TEST_DATABASE_URL` (`Scripts/test`
/// starts a private PostgreSQL and sets it).
enum TestDatabase {
    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["CAIRN_SYNC_TEST_DATABASE_URL"] else {
                throw ServerError(
                    "Set CAIRN_SYNC_TEST_DATABASE_URL to a PostgreSQL database the tests may write to "
                        + "(./Scripts/test starts one), e.g. postgres://cairn:cairn@127.0.0.1:5432/cairn_sync_test")
            }
            return url
        }
    }
}

/// Server processes for one test: `count` servers on the test database, each on a port of its
/// own, stopped when `body` returns.
func withServers<T: Sendable>(
    _ count: Int = 1, _ body: @escaping @Sendable ([URL]) async throws -> T
) async throws -> T {
    let url = try TestDatabase.url
    let ports = PortBox()
    return try await withThrowingTaskGroup(of: T?.self) { group in
        for _ in 0..<count {
            let server = try SyncServer(databaseURL: url, host: "127.0.0.1", port: 0, logger: Logger(label: "test-server"))
            group.addTask {
                try await server.run { port in await ports.add(port) }
                return nil
            }
        }
        group.addTask {
            let servers = try await ports.wait(for: count).map { URL(string: "http://127.0.0.1:\($0)")! }
            return try await body(servers)
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let result { return result }
        }
        throw ServerError("The servers stopped before the test ended.")
    }
}

actor PortBox {
    private var ports: [Int] = []

    func add(_ port: Int) { ports.append(port) }

    func wait(for count: Int) async throws -> [Int] {
        for _ in 0..<600 where ports.count < count { try await Task.sleep(for: .milliseconds(50)) }
        guard ports.count >= count else { throw ServerError("The servers did not start within 30 s.") }
        return ports
    }
}

/// Makes a token on the test database for a new user (a name no other test run uses).
func makeToken(user: String = "user-\(UUID().uuidString.prefix(8))", zone: String? = nil) async throws -> String {
    let url = try TestDatabase.url
    let logger = Logger(label: "test-tokens")
    let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask {
            await client.run()
            return nil
        }
        group.addTask {
            let database = ServerDatabase(client: client, logger: logger)
            try await database.createTables()
            return try await database.createToken(user: user, zone: zone)
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let token = result { return token }
        }
        throw ServerError("No token was made.")
    }
}

@Model final class ServerNote {
    var text: String
    var rank: Int
    var folder: ServerFolder?

    init(text: String, rank: Int = 0, folder: ServerFolder? = nil) {
        self.text = text
        self.rank = rank
        self.folder = folder
    }
}

@Model final class ServerFolder {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \ServerNote.folder) var notes: [ServerNote] = []

    init(name: String) { self.name = name }
}

/// A replica of the test models syncing through `server` with `token`.
struct ServerReplica: Sendable {
    let container: ModelContainer
    let engine: SyncEngine
    let directory: URL

    init(server: URL, token: String, zone: String = "default") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try ModelContainer(
            for: ServerNote.self, ServerFolder.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("Notes.store")))
        engine = try SyncEngine(container: container, configuration: SyncConfiguration(server: server, token: token, zone: zone))
    }

    func change(_ body: (ModelContext) throws -> Void) throws {
        let context = ModelContext(container)
        try body(context)
        try context.save()
    }

    /// The notes as `text|rank|folder`, and the folders as `name|note count`.
    func contents() throws -> [String] {
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<ServerNote>()).map { "\($0.text)|\($0.rank)|\($0.folder?.name ?? "-")" }
        let folders = try context.fetch(FetchDescriptor<ServerFolder>()).map { "\($0.name)|\($0.notes.count)" }
        return (notes + folders).sorted()
    }
}

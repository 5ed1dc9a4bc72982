import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the end-to-end sync tests run against: the real `cairn-sync-server` executable
/// (`CAIRN_SYNC_SERVER`) on a real PostgreSQL database (`CAIRN_SYNC_TEST_DATABASE_URL`).
/// `./Scripts/test` builds the one and starts the other (`Scripts/with-postgres`), which also
/// names a command that restarts that PostgreSQL (`CAIRN_SYNC_TEST_POSTGRES_RESTART`).
enum SyncServerEnvironment {
    private static var variables: [String: String] { ProcessInfo.processInfo.environment }

    static var executable: String? { variables["CAIRN_SYNC_SERVER"] }
    static var databaseURL: String? { variables["CAIRN_SYNC_TEST_DATABASE_URL"] }
    static var postgresRestart: String? { variables["CAIRN_SYNC_TEST_POSTGRES_RESTART"] }

    /// True when both the server and its database are there.
    static var available: Bool { executable != nil && databaseURL != nil }

    /// Runs `cairn-sync-server` with `arguments` to its end and returns what it printed.
    static func run(_ arguments: [String]) throws -> String {
        guard let executable, let databaseURL else { throw ServerTestError("CAIRN_SYNC_SERVER is not set") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = variables.merging(["CAIRN_DATABASE_URL": databaseURL]) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerTestError("cairn-sync-server \(arguments.joined(separator: " ")) failed: \(String(decoding: complaint, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every row of the test database, as `pg_dump --data-only` writes it (`bytea` as hex):
    /// what a scan for plaintext reads. PostgreSQL's own `pg_dump`, from its installation's
    /// directory when there is one.
    static func databaseDump() throws -> Data {
        guard let databaseURL else { throw ServerTestError("CAIRN_SYNC_TEST_DATABASE_URL is not set") }
        let installed = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let tool =
            installed.sorted().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
            .last { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/env"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = (tool == "/usr/bin/env" ? ["pg_dump"] : []) + ["--data-only", "--dbname", databaseURL]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let dump = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !dump.isEmpty else { throw ServerTestError("pg_dump failed") }
        return dump
    }

    /// A token from `cairn-sync-server token create` for a user no other test uses.
    static func makeToken(user: String = "user-\(UUID().uuidString.prefix(8))", zone: String? = nil) throws -> String {
        try run(["token", "create", "--user", user] + (zone.map { ["--zone", $0] } ?? []))
    }

    /// Restarts the tests' PostgreSQL (fast shutdown: open connections are cut).
    static func restartPostgres() throws {
        guard let command = postgresRestart else { throw ServerTestError("CAIRN_SYNC_TEST_POSTGRES_RESTART is not set") }
        // posix_spawn and waitpid rather than Foundation's Process, which takes a child's exit
        // from the end of a descriptor the child inherits, and so waits for the new postmaster
        // that inherits it too.
        var pid: pid_t = 0
        let spawned = command.withCString { path in
            var arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
            defer { free(arguments[0]) }
            return posix_spawn(&pid, path, nil, nil, &arguments, environ)
        }
        guard spawned == 0 else { throw ServerTestError("\(command) could not start: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw ServerTestError("\(command) failed: status \(status)") }
    }
}

struct ServerTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One `cairn-sync-server serve` process, its log in a file of its own.
final class SyncServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let log: TemporaryDirectory

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a server on `port` (any free port when nil) and waits until it listens.
    init(port: Int? = nil, keepBatches: Int = 100_000) throws {
        guard let executable = SyncServerEnvironment.executable, let database = SyncServerEnvironment.databaseURL else {
            throw ServerTestError("CAIRN_SYNC_SERVER or CAIRN_SYNC_TEST_DATABASE_URL is not set")
        }
        log = TemporaryDirectory()
        let logFile = log.child("server.log")
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "serve", "--database-url", database, "--host", "127.0.0.1", "--port", String(port ?? 0),
            "--keep-batches", String(keepBatches),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try process.run()
        self.port = try Self.listeningPort(logFile, process: process)
    }

    /// The port from the server's "listening on 127.0.0.1:N" line, read within 30 s.
    private static func listeningPort(_ logFile: String, process: Process) throws -> Int {
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on 127.0.0.1:") }),
                let port = Int(line.split(separator: ":").last ?? "")
            {
                return port
            }
            guard process.isRunning else { throw ServerTestError("cairn-sync-server stopped: \(text)") }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw ServerTestError("cairn-sync-server did not listen within 30 s")
    }

    /// The server's log so far.
    var logText: String { (try? String(contentsOfFile: log.child("server.log"), encoding: .utf8)) ?? "" }

    /// Ends the process with `signal` (SIGKILL: no chance to finish a request) and waits.
    func stop(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    deinit { stop(signal: SIGKILL) }
}

/// Servers for one test, stopped when `body` returns.
func withServerProcesses<T>(_ count: Int = 1, _ body: ([SyncServerProcess]) async throws -> T) async throws -> T {
    let servers = try (0..<count).map { _ in try SyncServerProcess() }
    defer { for server in servers { server.stop() } }
    return try await body(servers)
}

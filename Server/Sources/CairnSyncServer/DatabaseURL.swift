import Foundation
import PostgresNIO

/// A PostgreSQL connection URL, `postgres://user:password@host:port/database`, as the server's
/// `--database-url` takes it. `?host=/path` connects through the Unix socket in that directory;
/// `?sslmode=require` asks for TLS.
///
/// ```swift
/// let configuration = try DatabaseURL.configuration("postgres://cairn:secret@localhost:5432/cairn")
/// ```
public enum DatabaseURL {
    /// The client configuration `text` describes.
    ///
    /// - Throws: ``ServerError`` when it is not a PostgreSQL URL.
    public static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "")
        else {
            throw ServerError("'\(text.prefix(80))' is not a PostgreSQL URL: use postgres://user:password@host:port/database")
        }
        let user = components.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let database = components.path.split(separator: "/").first.map(String.init)
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let port = components.port ?? 5432
            return PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: components.password,
                database: database)
        }
        let tls: PostgresClient.Configuration.TLS =
            query["sslmode"] == "require" ? .require(.makeClientConfiguration()) : .disable
        return PostgresClient.Configuration(
            host: components.host ?? "localhost", port: components.port ?? 5432, username: user,
            password: components.password, database: database, tls: tls)
    }
}

/// A failure of the server's own setup (its arguments, its database), said plainly.
///
/// ```swift
/// throw ServerError("The database has no cairn_zones table: run serve once to create it.")
/// ```
public struct ServerError: Error, CustomStringConvertible {
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

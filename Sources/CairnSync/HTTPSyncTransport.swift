import CairnSyncProtocol
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport to a `cairn-sync-server` over HTTP(S): JSON bodies, the token as a bearer
/// token, the routes of `Docs/Sync.md` ("Protocol"). Put the server behind a reverse proxy that
/// ends TLS, and give its `https` URL.
///
/// ```swift
/// let transport = HTTPSyncTransport(server: URL(string: "https://sync.example.com")!, token: token)
/// ```
public struct HTTPSyncTransport: SyncTransport {
    let server: URL
    let token: String
    let session: URLSession

    /// A transport to `server`, sending `token`.
    ///
    /// ```swift
    /// let transport = HTTPSyncTransport(server: url, token: token)
    /// ```
    public init(server: URL, token: String, session: URLSession = .shared) {
        self.server = server
        self.token = token
        self.session = session
    }

    public func push(_ batch: ChangeBatch, zone: String) async throws -> PushResult {
        var request = try request(zone: zone, path: "batches", query: [])
        request.httpMethod = "POST"
        request.setValue(SyncWire.contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(SyncWire.encode(batch))
        return try await send(request)
    }

    public func changes(zone: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage {
        var query = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "limit", value: String(limit))]
        if let wait { query.append(URLQueryItem(name: "wait", value: String(wait.components.seconds))) }
        var request = try request(zone: zone, path: "changes", query: query)
        if let wait { request.timeoutInterval = Double(wait.components.seconds) + 30 }
        return try await send(request)
    }

    public func snapshot(zone: String, after: SyncID?, limit: Int) async throws -> SnapshotPage {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let after { query.append(URLQueryItem(name: "after", value: after.description)) }
        return try await send(try request(zone: zone, path: "snapshot", query: query))
    }

    private func request(zone: String, path: String, query: [URLQueryItem]) throws -> URLRequest {
        guard SyncZoneName.isValid(zone) else {
            throw SyncProtocolError(code: .badRequest, message: SyncZoneName.rule(zone))
        }
        var components = URLComponents(
            url: server.appendingPathComponent("v1/zones/\(zone)/\(path)"), resolvingAgainstBaseURL: false)
        components?.queryItems = query.isEmpty ? nil : query
        guard let url = components?.url else {
            throw SyncProtocolError(code: .badRequest, message: "The server URL \(server) cannot take a path.")
        }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private func send<Answer: SyncWireCodable>(_ request: URLRequest) async throws -> Answer {
        // The request runs in a task of its own, which the caller's cancellation does not reach:
        // on Linux, cancelling a task awaiting `URLSession.data(for:)` while the answer arrives
        // deadlocks (the cancellation holds the task's lock and waits for the session's queue,
        // whose completion waits for that lock). A cancelled sync ends when the request does.
        let session = session
        let (data, response) = try await Task.detached { try await session.data(for: request) }.value
        guard let status = (response as? HTTPURLResponse)?.statusCode else {
            throw SyncProtocolError(code: .unavailable, message: "The server's answer was not HTTP.")
        }
        guard (200..<300).contains(status) else {
            if let refusal = try? JSONDecoder().decode(SyncProtocolError.self, from: data) { throw refusal }
            throw SyncProtocolError(
                code: status >= 500 ? .unavailable : .badRequest, message: "The server answered \(status).")
        }
        return try SyncWire.decode(Answer.self, from: data)
    }
}

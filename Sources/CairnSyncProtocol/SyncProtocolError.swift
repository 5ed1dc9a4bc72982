/// What a server refused and why, as the body of its 4xx and 5xx answers and as the error a
/// transport throws for them.
///
/// ```swift
/// do {
///     _ = try await transport.push(batch, zone: "default")
/// } catch let error as SyncProtocolError where error.code == .unauthorized {
///     print(error.message)
/// }
/// ```
public struct SyncProtocolError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Kinds of refusal.
    public enum Code: String, Hashable, Sendable, Codable {
        /// The request is malformed, too large, or refers to what it may not (`400`).
        case badRequest
        /// No token, or one the server does not know (`401`).
        case unauthorized
        /// The token does not reach the zone (`403`).
        case forbidden
        /// The position asked after is before the feed's compacted start: read the snapshot (`410`).
        case positionExpired
        /// The body is larger than the server accepts (`413`).
        case tooLarge
        /// The server could not do it now; try again (`503` and other 5xx answers).
        case unavailable
    }

    /// The kind.
    public var code: Code
    /// What failed and how to fix it.
    public var message: String

    /// An error.
    ///
    /// ```swift
    /// throw SyncProtocolError(code: .badRequest, message: "row 3 has no entity")
    /// ```
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The HTTP status a server answers with for `code`.
    ///
    /// ```swift
    /// SyncProtocolError.Code.forbidden.status   // 403
    /// ```
    public var status: Int {
        switch code {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .positionExpired: 410
        case .tooLarge: 413
        case .unavailable: 503
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

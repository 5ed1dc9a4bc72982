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
        /// The zone is end-to-end encrypted and the batch's values are in clear: a replica
        /// without the zone's key (`409`; `Docs/Sync.md`, "End-to-end encrypted zones").
        case zoneEncrypted
        /// The zone is not encrypted and the batch's values are sealed (`409`).
        case zoneNotEncrypted
        /// The batch's values are sealed with another key than the zone's (`409`).
        case wrongZoneKey
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
        case .zoneEncrypted, .zoneNotEncrypted, .wrongZoneKey: 409
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The refusal of a batch sealed as `batch` says to a zone sealed as `zone` says, or `nil`
    /// when the two agree.
    ///
    /// ```swift
    /// if let refusal = SyncProtocolError.sealing(batch: try batch.sealing(), zone: kept, name: "family") { throw refusal }
    /// ```
    public static func sealing(batch: ZoneSealing, zone: ZoneSealing, name: String) -> SyncProtocolError? {
        switch (zone, batch) {
        case (.clear, .clear): return nil
        case (.sealed(let kept), .sealed(let sent)) where kept == sent: return nil
        case (.sealed, .clear):
            return SyncProtocolError(
                code: .zoneEncrypted,
                message: "Zone '\(name)' is end-to-end encrypted, and this batch's values are in clear. Give the "
                    + "replica the zone's key (SyncConfiguration.encryption).")
        case (.clear, .sealed):
            return SyncProtocolError(
                code: .zoneNotEncrypted,
                message: "Zone '\(name)' is not encrypted, and this batch's values are sealed with a zone key. A zone "
                    + "is encrypted from its first push or not at all: sync the encrypted replicas into a new zone.")
        case (.sealed, .sealed):
            return SyncProtocolError(
                code: .wrongZoneKey,
                message: "Zone '\(name)''s values are sealed with another key than this batch's. Give the replica "
                    + "the key (or passphrase) the zone's other replicas use.")
        }
    }
}

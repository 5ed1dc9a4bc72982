import Cairn
import Foundation

/// Where and what a ``SyncEngine`` syncs: the server, the token that lets this user in, the
/// zone (a set of rows the server keeps apart; every replica of one zone converges to the same
/// rows), and the models to sync.
///
/// ```swift
/// let configuration = SyncConfiguration(
///     server: URL(string: "https://sync.example.com")!, token: token, zone: "family")
/// let engine = try SyncEngine(container: container, configuration: configuration)
/// ```
// `@unchecked Sendable`: the model classes are metatypes, which nothing mutates.
public struct SyncConfiguration: @unchecked Sendable {
    /// The server's base URL.
    public var server: URL
    /// The token `cairn-sync-server token create` printed for this user.
    public var token: String
    /// The zone to sync.
    public var zone: String
    /// The model classes to sync; `nil` (the default) syncs every model of the schema.
    public var models: [any PersistentModel.Type]?
    /// The zone's key, for an end-to-end encrypted zone: every value is sealed before it leaves
    /// the device and opened only by replicas given the same key or passphrase, so the server
    /// (and whoever reads its database) holds ciphertext. Give every replica of the zone the same
    /// secret; a zone is encrypted from its first push or not at all (`nil`, the default).
    ///
    /// ```swift
    /// configuration.encryption = .key(zoneKeyFromKeychain)   // or .passphrase(familyPassphrase)
    /// ```
    public var encryption: ModelConfiguration.Encryption?
    /// The most rows pushed in one batch.
    public var batchSize: Int = 500
    /// How long a request for new changes waits on the server for one to arrive, when syncing
    /// automatically (``SyncEngine/start()``).
    public var waitForChanges: Duration = .seconds(25)

    /// The resolvers set with ``resolveConflicts(of:with:)`` and ``resolveDeletions(of:with:)``.
    package private(set) var resolvers = SyncResolvers()

    /// Decides, for the attributes of `model`, between two writes of one attribute made on two
    /// replicas where the later one was made without the earlier one (``SyncConflict``); without
    /// a resolver the later write wins. Relationships are not asked about (their later write wins);
    /// deletions against edits go to ``resolveDeletions(of:with:)`` (`Docs/Sync.md`).
    ///
    /// ```swift
    /// configuration.resolveConflicts(of: Counter.self) { conflict in
    ///     guard let (earlier, later) = conflict.values(as: Int.self) else { return .keepLater }
    ///     return earlier > later ? .keepEarlier : .keepLater   // the highest count stays
    /// }
    /// ```
    public mutating func resolveConflicts(
        of model: any PersistentModel.Type, with resolver: @escaping SyncConflictResolver
    ) {
        resolvers.conflicts[Schema.entityName(of: model)] = resolver
    }

    /// Decides, for `model`, whether a model deleted on one replica and edited on another, where
    /// the deletion did not see the edits, stays deleted (``SyncDeletion``); without a resolver
    /// the deletion wins. Keeping it makes the edited model a new synced row on every replica.
    ///
    /// ```swift
    /// configuration.resolveDeletions(of: Note.self) { _ in .keepEdited }   // edits bring a note back
    /// ```
    public mutating func resolveDeletions(
        of model: any PersistentModel.Type, with resolver: @escaping SyncDeletionResolver
    ) {
        resolvers.deletions[Schema.entityName(of: model)] = resolver
    }

    /// A configuration.
    ///
    /// ```swift
    /// var configuration = SyncConfiguration(server: url, token: token)
    /// configuration.models = [Note.self, Folder.self]
    /// ```
    public init(
        server: URL, token: String, zone: String = "default", models: [any PersistentModel.Type]? = nil,
        encryption: ModelConfiguration.Encryption? = nil
    ) {
        self.server = server
        self.token = token
        self.zone = zone
        self.models = models
        self.encryption = encryption
    }
}

/// What one ``SyncEngine/sync()`` did.
///
/// ```swift
/// let report = try await engine.sync()
/// print("pushed \(report.pushed), pulled \(report.pulled), \(report.conflictsResolved) conflicts")
/// ```
public struct SyncReport: Sendable, Equatable {
    /// Rows pushed to the server.
    public var pushed = 0
    /// Rows pulled from the server and applied.
    public var pulled = 0
    /// Incoming writes of a field that met a write made here since: the later one kept.
    public var conflictsResolved = 0

    /// An empty report.
    ///
    /// ```swift
    /// var total = SyncReport()
    /// ```
    public init(pushed: Int = 0, pulled: Int = 0, conflictsResolved: Int = 0) {
        self.pushed = pushed
        self.pulled = pulled
        self.conflictsResolved = conflictsResolved
    }
}

/// Where a ``SyncEngine`` is.
///
/// ```swift
/// for await status in await engine.statusUpdates() {
///     if case .failed(let error) = status { show(error) }
/// }
/// ```
public enum SyncStatus: Sendable, Equatable {
    /// Not syncing: everything known was exchanged, or the engine was not started.
    case idle
    /// Pushing or pulling.
    case syncing
    /// The server cannot be reached; the engine tries again, waiting longer each time.
    case offline
    /// The server refused (a token it does not know, a zone the token does not reach) or the
    /// store failed; automatic sync stops until ``SyncEngine/start()`` is called again.
    case failed(SyncError)
}

/// Why syncing failed.
///
/// ```swift
/// do { try await engine.sync() } catch let error as SyncError { print(error.message) }
/// ```
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Kinds of failure.
    public enum Code: String, Sendable, Equatable {
        /// The server could not be reached, or did not answer in time.
        case offline
        /// The server refused the token, or the zone.
        case unauthorized
        /// The server refused a request as malformed.
        case rejected
        /// The store could not be read or written.
        case store
        /// Rows changed here hold more than a push can carry (``SyncLimits/maximumRowBytes``);
        /// they stay unsynced until they are made smaller, and everything else syncs.
        case tooLarge
        /// The zone is end-to-end encrypted and the configuration has no key for it
        /// (``SyncConfiguration/encryption``).
        case zoneKeyRequired
        /// The zone's values are sealed with another key than the configuration's.
        case wrongZoneKey
        /// The configuration has a key, but the zone is not encrypted, or a value of it arrived
        /// in clear.
        case zoneNotEncrypted
        /// A sealed value did not open with the zone's key: it was changed, or moved to another
        /// row or field, on its way. Nothing of the page that held it was applied.
        case tampered
    }

    /// The kind.
    public var code: Code
    /// What failed and how to fix it.
    public var message: String

    public var description: String { message }
}

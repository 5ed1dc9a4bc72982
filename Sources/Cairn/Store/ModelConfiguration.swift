import Foundation

/// Where and how a container stores its models, as in SwiftData.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(fileURLWithPath: "/var/lib/app/Library.store"))
/// let preview = ModelConfiguration(isStoredInMemoryOnly: true)
/// let container = try ModelContainer(for: Book.self, configurations: onDisk)
/// ```
public struct ModelConfiguration: Hashable, Sendable {
    /// The configuration's name; also the default store's file name.
    ///
    /// ```swift
    /// ModelConfiguration("Library").name   // "Library"
    /// ```
    public let name: String
    /// The models this configuration stores, or `nil` for the container's whole schema.
    ///
    /// ```swift
    /// ModelConfiguration(schema: Schema([Book.self])).schema?.entities.count   // 1
    /// ```
    public internal(set) var schema: Schema?
    /// The store's location: a directory holding its files.
    ///
    /// ```swift
    /// configuration.url.path   // "/home/ada/.local/share/default.store"
    /// ```
    public let url: URL
    /// Whether the store lives only as long as the container (in a private temporary
    /// directory, removed when the container goes away). Its saves are never flushed to disk,
    /// whatever ``durability`` says: nothing would ever read them after a crash.
    ///
    /// ```swift
    /// ModelConfiguration(isStoredInMemoryOnly: true).isStoredInMemoryOnly   // true
    /// ```
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save; `false` opens the store read-only.
    ///
    /// ```swift
    /// ModelConfiguration(url: archive, allowsSave: false)
    /// ```
    public let allowsSave: Bool
    /// How a save reaches the disk. ``Durability/full`` (the default) flushes every save to the
    /// drive; ``Durability/powerLossSafe`` also makes Apple devices' drives write their caches
    /// out before a save returns. An in-memory store (``isStoredInMemoryOnly``) never flushes.
    /// The Reliability article says what each mode guarantees and costs.
    ///
    /// ```swift
    /// var configuration = ModelConfiguration(url: ledgerURL)
    /// configuration.durability = .powerLossSafe
    /// ```
    public var durability: Durability = .full
    /// The largest the store may grow, in bytes; a save that needs more fails with
    /// `StorageError.Code.maximumSizeReached`.
    ///
    /// ```swift
    /// configuration.maximumSize = 64 << 30
    /// ```
    public var maximumSize: Int = 1 << 40
    /// How long a fetch may take before Cairn logs it (at `notice`, through the `cairn` logger)
    /// with its plan, so that a missing index shows in the logs; `nil` logs none.
    ///
    /// ```swift
    /// configuration.slowFetchThreshold = .milliseconds(50)
    /// ```
    public var slowFetchThreshold: Duration? = .milliseconds(250)
    /// How many times in a row one relationship may be loaded model by model before Cairn logs a
    /// warning (through the `cairn` logger) about the N+1 pattern, naming the relationship and the
    /// `relationshipKeyPathsForPrefetching` key path that loads it with the fetch instead; `nil`
    /// for never. 100 in debug builds, `nil` in release builds.
    ///
    /// A *fault storm* is what a loop over fetched models does when each reads a relationship the
    /// fetch did not load: one read of the store per model (`for book in books { book.author }`).
    /// Loads of the same relationship with no pause longer than a quarter of a second between
    /// them count as one storm; each relationship is reported once per container.
    ///
    /// ```swift
    /// var configuration = ModelConfiguration()
    /// configuration.faultStormThreshold = 20     // warn sooner
    /// // Logged once a loop reads `book.author` for the 21st book in a row:
    /// // "Fault storm (N+1): Book.author was loaded for one Book at a time, 21 times in 3 ms, …
    /// //  descriptor.relationshipKeyPathsForPrefetching = [\Book.author]. …"
    /// ```
    public var faultStormThreshold: Int? = Self.defaultFaultStormThreshold

    #if DEBUG
    static let defaultFaultStormThreshold: Int? = 100
    #else
    static let defaultFaultStormThreshold: Int? = nil
    #endif
    /// The app group whose shared directory holds the default store, as in SwiftData.
    /// ``GroupContainer/automatic`` and ``GroupContainer/none`` use the app's own directory.
    ///
    /// ```swift
    /// ModelConfiguration(groupContainer: .identifier("group.org.example.shared"))
    /// ```
    public let groupContainer: GroupContainer
    /// The CloudKit database SwiftData would sync the store with. Cairn stores are local:
    /// ``CloudKitDatabase/automatic`` and ``CloudKitDatabase/none`` mean no sync, and a named
    /// database (``CloudKitDatabase/private(_:)``) makes the container refuse to open with
    /// `StorageError.Code.unsupported`, rather than run without the sync it asks for.
    ///
    /// ```swift
    /// ModelConfiguration(cloudKitDatabase: .none)
    /// ```
    public let cloudKitDatabase: CloudKitDatabase

    /// The app group identifier of ``groupContainer``, if it names one (SwiftData's name).
    ///
    /// ```swift
    /// configuration.groupAppContainerIdentifier   // "group.org.example.shared"
    /// ```
    public var groupAppContainerIdentifier: String? {
        if case .identifier(let identifier) = groupContainer { identifier } else { nil }
    }

    /// The CloudKit container identifier of ``cloudKitDatabase``, if it names one (SwiftData's name).
    ///
    /// ```swift
    /// ModelConfiguration(cloudKitDatabase: .none).cloudKitContainerIdentifier   // nil
    /// ```
    public var cloudKitContainerIdentifier: String? {
        if case .private(let identifier) = cloudKitDatabase { identifier } else { nil }
    }

    /// Where the default store goes when it is shared with other apps of a group, as in SwiftData.
    ///
    /// ```swift
    /// ModelConfiguration(groupContainer: .identifier("group.org.example.shared"))
    /// ```
    public enum GroupContainer: Hashable, Sendable {
        /// The app's own directory (where SwiftData would pick the app's group from its
        /// entitlements, a Cairn store has no entitlements to read).
        case automatic
        /// The app's own directory.
        case none
        /// The shared directory of the app group `identifier`: its container on Apple platforms,
        /// a directory of that name beside the default stores elsewhere.
        case identifier(String)
    }

    /// The CloudKit database SwiftData would sync with. Cairn does not sync; see
    /// ``ModelConfiguration/cloudKitDatabase``.
    ///
    /// ```swift
    /// ModelConfiguration(cloudKitDatabase: .none)
    /// ```
    public enum CloudKitDatabase: Hashable, Sendable {
        /// No sync (SwiftData would sync when the app has the entitlement; Cairn never does).
        case automatic
        /// No sync.
        case none
        /// Sync with the private database of CloudKit container `identifier`: not available, the
        /// container refuses to open.
        case `private`(String)
    }

    /// How a save reaches the disk: what survives a crash of the app, of the system, or a loss of
    /// power, and what each save costs for it.
    ///
    /// ```swift
    /// configuration.durability = .powerLossSafe
    /// ```
    public enum Durability: Hashable, Sendable {
        /// Every save reaches the drive's stable storage before it returns, on every platform: a
        /// crash or a loss of power never undoes a save that returned. On Apple platforms each
        /// save ends with `F_FULLFSYNC`, which makes the drive write its cache out (a few
        /// milliseconds or more per save); on Linux it costs what ``full`` costs.
        ///
        /// ```swift
        /// configuration.durability = .powerLossSafe
        /// ```
        case powerLossSafe
        /// Every save is flushed to the drive, data and metadata, before it returns (`fsync`). A
        /// crash of the app or the system never undoes a returned save, and on Linux neither does
        /// a loss of power. On Apple platforms the drive may still hold the last saves in its
        /// cache, and write them out in any order: a loss of power can undo them, and rarely
        /// leave the store damaged (opening then says so, see the Reliability article). The
        /// default: it is SQLite's (`PRAGMA fullfsync` off), under SwiftData and Core Data.
        ///
        /// ```swift
        /// configuration.durability = .full
        /// ```
        case full
        /// Data is flushed at each save, the metadata page at the next one: a system crash may
        /// undo the last save but never damages the store.
        ///
        /// ```swift
        /// configuration.durability = .noMetaSync
        /// ```
        case noMetaSync
    }

    /// The key or passphrase the store is encrypted with, or `nil` for a plaintext store.
    ///
    /// A store created with one is encrypted: every record, external value, history entry and
    /// sync state is sealed with AES-256-GCM under a random data key that this secret wraps (see
    /// the "Encrypting a store" article for what stays readable). An existing store must be
    /// opened with the secret it was encrypted with: `StorageError.Code.encryptionKeyRequired`
    /// without one, `.wrongEncryptionKey` with another, `.notEncrypted` for a plaintext store.
    ///
    /// ```swift
    /// var configuration = ModelConfiguration(url: url)
    /// configuration.encryption = .key(keyFromKeychain)
    /// ```
    public var encryption: Encryption?

    /// The secret an encrypted store is opened with.
    ///
    /// ```swift
    /// let configuration = ModelConfiguration(url: url, encryption: .passphrase(passphrase))
    /// ```
    public enum Encryption: Hashable, Sendable, CustomStringConvertible {
        /// A 32-byte key (`SymmetricKey(size: .bits256)`, kept in the keychain), used as it is.
        ///
        /// ```swift
        /// let configuration = ModelConfiguration(url: url, encryption: .key(keyData))
        /// ```
        case key(Data)
        /// A passphrase, stretched into a key with scrypt (N = 2¹⁵, r = 8, p = 1: about 32 MiB
        /// and a tenth of a second at each open) and a random salt the store keeps.
        ///
        /// ```swift
        /// let configuration = ModelConfiguration(url: url, encryption: .passphrase(passphrase))
        /// ```
        case passphrase(String)

        /// The kind of secret, never the secret itself.
        ///
        /// ```swift
        /// print(ModelConfiguration.Encryption.key(keyData))   // "key"
        /// ```
        public var description: String {
            switch self {
            case .key: "key"
            case .passphrase: "passphrase"
            }
        }

        /// The same secret for the storage layer.
        package var secret: StoreEncryption {
            switch self {
            case .key(let key): .key(Array(key))
            case .passphrase(let passphrase): .passphrase(passphrase)
            }
        }
    }

    /// A configuration for a store in the default location (the application-support directory,
    /// or the app group's, named after the configuration), or in memory.
    ///
    /// ```swift
    /// let configuration = ModelConfiguration("Library")
    /// ```
    /// - Parameters:
    ///   - name: The configuration's name; `"default"` when `nil`.
    ///   - schema: The models to store; the container's schema when `nil`.
    ///   - isStoredInMemoryOnly: Whether the store lives only as long as the container.
    ///   - allowsSave: Whether contexts may save.
    ///   - groupContainer: The app group whose directory holds the store.
    ///   - cloudKitDatabase: `.automatic` or `.none`: Cairn stores do not sync (see ``cloudKitDatabase``).
    ///   - encryption: The key or passphrase of an encrypted store (see ``encryption``).
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic,
        encryption: Encryption? = nil
    ) {
        self.encryption = encryption
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.url =
            isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : Self.directory(for: groupContainer).appendingPathComponent("\(name).store", isDirectory: true)
    }

    /// A configuration for the given models, in the default location or in memory (SwiftData's
    /// `init(for:isStoredInMemoryOnly:)`).
    ///
    /// ```swift
    /// let preview = ModelConfiguration(for: Book.self, Author.self, isStoredInMemoryOnly: true)
    /// ```
    /// - Parameters:
    ///   - forTypes: The models to store, with those they reach through relationships.
    ///   - isStoredInMemoryOnly: Whether the store lives only as long as the container.
    // Disfavoured: with no types, `ModelConfiguration()` would match it as well as the first.
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for a store at `url`.
    ///
    /// ```swift
    /// let configuration = ModelConfiguration(url: URL(fileURLWithPath: "/srv/data/Library.store"))
    /// ```
    /// - Parameters:
    ///   - name: The configuration's name; the URL's last path component when `nil`.
    ///   - schema: The models to store; the container's schema when `nil`.
    ///   - url: The store's directory. It is created if it does not exist.
    ///   - allowsSave: Whether contexts may save.
    ///   - cloudKitDatabase: `.automatic` or `.none`: Cairn stores do not sync (see ``cloudKitDatabase``).
    ///   - encryption: The key or passphrase of an encrypted store (see ``encryption``).
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic, encryption: Encryption? = nil
    ) {
        self.encryption = encryption
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// The directory that holds default stores of `group`.
    static func directory(for group: GroupContainer) -> URL {
        guard case .identifier(let identifier) = group else { return defaultDirectory }
        #if canImport(Darwin)
        if let shared = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier) {
            return shared.appendingPathComponent("Library/Application Support", isDirectory: true)
        }
        #endif
        return defaultDirectory.appendingPathComponent(identifier, isDirectory: true)
    }

    /// Where stores go by default: the user's application-support directory.
    static var defaultDirectory: URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }
}

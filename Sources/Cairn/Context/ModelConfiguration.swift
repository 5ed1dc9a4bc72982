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
    public let schema: Schema?
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
    /// How a save reaches the disk. ``Durability/full`` (the default) flushes every save. An
    /// in-memory store (``isStoredInMemoryOnly``) never flushes.
    ///
    /// ```swift
    /// var configuration = ModelConfiguration()
    /// configuration.durability = .noMetaSync
    /// ```
    public var durability: Durability = .full
    /// The largest the store may grow, in bytes; a save that needs more fails with
    /// ``StorageError/Code-swift.struct/maximumSizeReached``.
    ///
    /// ```swift
    /// configuration.maximumSize = 64 << 30
    /// ```
    public var maximumSize: Int = 1 << 40

    /// How a save reaches the disk.
    ///
    /// ```swift
    /// configuration.durability = .full
    /// ```
    public enum Durability: Hashable, Sendable {
        /// Every save is flushed to disk, data and metadata, before it returns.
        case full
        /// Data is flushed at each save, the metadata page at the next one: a system crash may
        /// undo the last save but never damages the store.
        case noMetaSync
    }

    /// A configuration for a store in the default location (the application-support directory,
    /// named after the configuration), or in memory.
    ///
    /// ```swift
    /// let configuration = ModelConfiguration("Library")
    /// ```
    /// - Parameters:
    ///   - name: The configuration's name; `"default"` when `nil`.
    ///   - schema: The models to store; the container's schema when `nil`.
    ///   - isStoredInMemoryOnly: Whether the store lives only as long as the container.
    ///   - allowsSave: Whether contexts may save.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.url =
            isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : Self.defaultDirectory.appendingPathComponent("\(name).store", isDirectory: true)
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
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
    }

    /// Where stores go by default: the user's application-support directory.
    static var defaultDirectory: URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }
}

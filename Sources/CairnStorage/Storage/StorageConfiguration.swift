/// How a store's files are opened: where, how large, how durable.
///
/// ```swift
/// var configuration = StorageConfiguration(path: "/var/lib/app/Library.cairn")
/// configuration.maximumMapSize = 64 << 30
/// let environment = try LMDBEnvironment.openOrCreate(configuration)
/// ```
package struct StorageConfiguration: Sendable, Hashable {
    /// The store's directory. It holds `data.mdb` and `lock.mdb`.
    ///
    /// ```swift
    /// configuration.path = "/var/lib/app/Library.cairn"
    /// ```
    package var path: String

    /// The memory map's size when the store is created or opened, in bytes. The map grows by
    /// doubling whenever a write needs more room, up to ``maximumMapSize``.
    ///
    /// ```swift
    /// configuration.initialMapSize = 64 << 20
    /// ```
    package var initialMapSize: Int = 1 << 20

    /// The largest the map (and so the data file) may grow, in bytes. A write that needs more
    /// fails with ``StorageError/Code-swift.struct/maximumSizeReached``.
    ///
    /// ```swift
    /// configuration.maximumMapSize = 8 << 30
    /// ```
    package var maximumMapSize: Int = 1 << 40

    /// The most named tables the store may hold.
    ///
    /// ```swift
    /// configuration.maximumTables = 4096
    /// ```
    package var maximumTables: Int = 1024

    /// The most concurrent read transactions across all processes using the store.
    ///
    /// ```swift
    /// configuration.maximumReaders = 512
    /// ```
    package var maximumReaders: Int = 126

    /// How a commit reaches the disk.
    ///
    /// ```swift
    /// configuration.durability = .noMetaSync
    /// ```
    package var durability: Durability = .full

    /// Stores up to this size, in bytes, have every page checked when they open; larger ones have
    /// their free list and table catalogue checked (see `Docs/Reliability.md` for what each
    /// costs). `0` checks only the catalogue; `Int.max` checks every store fully.
    ///
    /// ```swift
    /// configuration.fullCheckLimit = 4 << 30
    /// ```
    package var fullCheckLimit: Int = 64 << 20

    /// How long, in nanoseconds, a read transaction may wait unused in the pool still open on
    /// its snapshot (parked) before it is reset: about the longest this process holds back the
    /// reuse of pages that writers in other processes free (up to twice it, see `ReaderPool`). A
    /// burst of reads with nothing committed in between shares one snapshot instead of renewing a
    /// transaction for each.
    ///
    /// ```swift
    /// configuration.readParkingLimit = 5_000_000   // 5 ms
    /// ```
    package var readParkingLimit: UInt64 = 20_000_000

    /// Whether the store is opened for reading only.
    ///
    /// ```swift
    /// configuration.isReadOnly = true
    /// ```
    package var isReadOnly: Bool = false

    /// The secret of an encrypted store, or `nil` for a plaintext one. A new store created with
    /// one is encrypted; an existing store must have been encrypted with it (see ``KeyEnvelope``).
    ///
    /// ```swift
    /// configuration.encryption = .passphrase(passphrase)
    /// ```
    package var encryption: StoreEncryption?

    /// Which tables' values an encrypted store seals (``ValueCipher``). The layer above decides;
    /// a plaintext store seals nothing whatever this says.
    ///
    /// ```swift
    /// configuration.sealedTables = SealedTables(prefixes: ["e/"], names: ["meta"])
    /// ```
    package var sealedTables = SealedTables()

    /// Creates a configuration for the store directory at `path`, with durable defaults.
    ///
    /// ```swift
    /// let configuration = StorageConfiguration(path: "/tmp/Library.cairn")
    /// ```
    package init(path: String) {
        self.path = path
    }
}

/// How a commit reaches the disk.
///
/// For a store on disk nothing is weaker than ``noMetaSync``: LMDB's `MDB_NOSYNC`,
/// `MDB_MAPASYNC` and `MDB_WRITEMAP` can lose or corrupt committed data, and a full disk under
/// `MDB_WRITEMAP` kills the process. ``unsynced`` is for files that die with the process.
///
/// ```swift
/// configuration.durability = .noMetaSync
/// ```
package enum Durability: Sendable, Hashable {
    /// Every commit reaches the drive's stable storage before it returns, also on Apple
    /// platforms, where `fsync` leaves it in the drive's cache: LMDB flushes the data pages and
    /// writes the meta page (`MDB_NOMETASYNC`), then Cairn flushes the file with `F_FULLFSYNC`
    /// (`fdatasync` on Linux, where that already reaches stable storage).
    case powerLossSafe
    /// Every commit is flushed to disk, data and meta page, before it returns, with `fdatasync`
    /// and a synchronous write (`fsync` and `O_DSYNC` on Apple platforms).
    case full
    /// Data pages are flushed at commit, the meta page only at the next commit: a crash (of the
    /// system, not the process) may undo the last transaction but never corrupts the store.
    case noMetaSync
    /// Commits are written but never flushed (`MDB_NOSYNC`, still without `MDB_WRITEMAP`, so a
    /// full disk is a thrown error). Only for an in-memory store, whose temporary files are
    /// removed with its container: a system crash may leave them damaged, and no one reads them
    /// again.
    case unsynced
}

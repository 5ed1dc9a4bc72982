import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data files this process has walked page by page and found intact, each with the version
/// of the file it walked, so that opening the same, unchanged file again skips the walk.
///
/// Opening a store walks every page of its data file (``DataFileValidator``), which reads the
/// whole file: about a twentieth of the time of reading a 100,000-row store through once. A
/// process that opens the same store again (another container, a context per scene, a store
/// closed and reopened) pays that again although nothing changed.
///
/// A file's version is its device, inode, size, modification time and status-change time
/// (`st_ctime`). Every write to a file — `write`, a write through a shared mapping, a truncation,
/// LMDB's own commits — sets `st_ctime` to the current time, and no call sets it back. So when a
/// file's version is unchanged, no byte of it was written since it was walked, provided the walk
/// began clearly after the file's last change: file systems stamp times with a clock that ticks
/// every few milliseconds (or every second), and a write in the same tick as the stamp would
/// leave it unchanged. A walk is remembered only when the file's `st_ctime` is older than the
/// walk's start by more than a tick (``margin(after:)``), and only when the walk found nothing
/// to repair.
///
/// What this does not cover, as it does not for a file walked once and kept open: a write to
/// the disk device under the file system, and memory the kernel holds for the file changing
/// unseen. Each process walks a file at least once.
///
/// ```swift
/// if let summary = WalkedFiles.shared.summary(of: path) { return summary }   // unchanged since walked
/// ```
final class WalkedFiles: @unchecked Sendable {
    /// The file a walk read, as `stat` describes it.
    struct Version: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec
        let changed: timespec

        /// The version of the file at `path` now, or `nil` when it cannot be read.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = info.st_mtimespec
            changed = info.st_ctimespec
            #else
            modified = info.st_mtim
            changed = info.st_ctim
            #endif
        }

        static func == (lhs: Version, rhs: Version) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// How much older than a walk's start a file's last change must be for the walk to be
    /// remembered, on a file system that stamps whole seconds (or two, as FAT does): more than
    /// its tick.
    static let margin: Double = 2

    /// The same on a file system whose stamps carry fractions of a second (ext4, XFS, Btrfs,
    /// tmpfs, APFS): their clock ticks at least every 10 ms (the kernel's coarse clock, one
    /// scheduler tick; APFS stamps nanoseconds), so 50 ms is more than a tick. A store written
    /// and opened again within two seconds (a second container, a store reopened after a save)
    /// skipped no walk with the whole-second margin.
    static let fineMargin: Double = 0.05

    /// The margin for a file whose last change was stamped `changed`: a stamp with a fraction of
    /// a second comes from a file system that keeps fractions (one that does not leaves it zero;
    /// the one stamp in a billion that is whole on a fine file system gets the wider margin).
    static func margin(after changed: timespec) -> Double { changed.tv_nsec != 0 ? fineMargin : margin }

    /// Whether a walk that began at `start` (wall-clock seconds) began clearly after a change
    /// stamped `changed`, so that any later write stamps the file differently.
    static func isSettled(changed: timespec, walkStarted start: Double) -> Bool {
        Double(changed.tv_sec) + Double(changed.tv_nsec) / 1e9 < start - margin(after: changed)
    }

    static let shared = WalkedFiles()

    private let lock = NSLock()
    /// Only touched under `lock`.
    private var walked: [String: (version: Version, summary: DataFileValidator.Summary)] = [:]
    /// How many opens skipped the walk of each file, for tests. Only touched under `lock`.
    private var skipped: [String: Int] = [:]

    /// How many opens in this process skipped the walk of the data file at `path` (unchanged).
    ///
    /// ```swift
    /// let skipped = WalkedFiles.shared.skippedWalks(of: StoreFiles.dataFile(in: directory))
    /// ```
    package func skippedWalks(of path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return skipped[path] ?? 0
    }

    /// What the walk of the file at `path` found, when the file is unchanged since; `nil`
    /// otherwise (it must be walked).
    func summary(of path: String) -> DataFileValidator.Summary? {
        lock.lock()
        let entry = walked[path]
        lock.unlock()
        guard let entry, let now = Version(path: path), now == entry.version else { return nil }
        lock.lock()
        skipped[path, default: 0] += 1
        lock.unlock()
        return entry.summary
    }

    /// The wall-clock time now, in seconds since 1970: the clock file times are stamped from.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Remembers a walk of the file at `path` that began at `start` (wall-clock seconds) and found
    /// `summary` with nothing repaired, when the file's version was `before` at the start and is
    /// the same now, and its last change was settled before the start (``isSettled(changed:walkStarted:)``).
    func remember(
        _ summary: DataFileValidator.Summary, of path: String, before: Version, walkStarted start: Double
    ) {
        guard summary.recovery == nil, summary.walkWhenPinned == nil, let after = Version(path: path),
            after == before
        else { return forget(path) }
        guard Self.isSettled(changed: before.changed, walkStarted: start) else { return forget(path) }
        lock.lock()
        if walked.count >= 256 { (walked, skipped) = ([:], [:]) }
        walked[path] = (before, summary)
        lock.unlock()
    }

    /// Forgets the walk of the file at `path`, if any.
    func forget(_ path: String) {
        lock.lock()
        walked[path] = nil
        lock.unlock()
    }
}

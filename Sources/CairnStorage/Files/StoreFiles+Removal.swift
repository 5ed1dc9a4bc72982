#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreFiles {
    /// The prefix of the scratch directories new stores are built in (see `LMDBEnvironment.create`).
    static let scratchPrefix = ".cairn-creating-"

    /// Removes a directory Cairn made (a scratch directory, a failed backup, an in-memory store's
    /// files) and the files directly inside it, without following a symbolic link anywhere: the
    /// directory is opened with `O_NOFOLLOW`, must belong to this process's user, and its entries
    /// are unlinked relative to its descriptor, so a link planted in its place or inside it is at
    /// most removed itself, never what it points to. Stores have no subdirectories; one found
    /// inside is left, and so is the directory then.
    ///
    /// ```swift
    /// StoreFiles.removeDirectory("/tmp/cairn-rehearsal-5E0C…")
    /// ```
    package static func removeDirectory(_ path: String) {
        let parent = open(parent(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        defer { closeDescriptor(parent) }
        removeDirectory(named: lastComponent(of: path), in: parent)
    }

    /// Removes the directory `name` inside the directory open as `parent` (see above).
    @discardableResult
    static func removeDirectory(named name: String, in parent: Int32) -> Bool {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else {
            closeDescriptor(fd)
            return false
        }
        for entry in names(inDirectory: fd) where FileEntry(named: entry, in: fd) != .directory {
            unlinkat(fd, entry, 0)
        }
        closeDescriptor(fd)
        return unlinkat(parent, name, AT_REMOVEDIR) == 0
    }

    /// Removes scratch directories in `parent` left by processes that died while creating a
    /// store (or compacting one, with its own `prefix`). A scratch directory is named
    /// `<prefix><pid>` or `<prefix><pid>-<random>`; only real directories (not links) of this
    /// process's user whose process no longer exists are removed (``removeDirectory(named:in:)``).
    static func removeAbandonedScratchDirectories(in parent: String, prefix: String = scratchPrefix) {
        let fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { closeDescriptor(fd) }
        for name in names(inDirectory: fd) where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0 else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { removeDirectory(named: name, in: fd) }
        }
    }

    /// The names in the directory open as `directory` (without `.` and `..`); the descriptor
    /// stays open and its own read position is left alone.
    static func names(inDirectory directory: Int32) -> [String] {
        let listing = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0 else { return [] }
        guard let stream = fdopendir(listing) else {
            closeDescriptor(listing)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

import Foundation

extension ModelContainer {
    /// Writes a copy of the store to `url`, consistent while this and other processes go on
    /// saving, and verified before it returns.
    ///
    /// ```swift
    /// let name = "Library-\(Date.now.formatted(.iso8601.year().month().day())).store"
    /// try container.backup(to: backups.appendingPathComponent(name))
    /// // later, to restore: open the copy as any store
    /// let restored = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: copyURL))
    /// ```
    ///
    /// The copy is one snapshot of the store: every save committed before it began, and none of a
    /// save that commits while it is taken (a writer killed meanwhile loses nothing the copy
    /// holds). It is written to a private temporary file, flushed to disk and moved into place in
    /// a new private directory, then opened read-only and checked with ``verify()``; a copy that
    /// does not verify is removed and the backup throws. A compacted copy leaves out the free
    /// pages, so it is often much smaller than the store; `compact: false` copies page by page,
    /// faster on large stores.
    ///
    /// - Parameters:
    ///   - url: Where the copy's store directory goes; nothing may exist there yet.
    ///   - compact: Whether to leave out free pages (the default) or copy the data file as it is.
    /// - Throws: `StorageError` `.alreadyExists` when something is at `url`, `.diskFull` or
    ///   `.ioError` when the copy cannot be written, `.damaged` when it does not verify; nothing
    ///   is left at `url` then.
    /// - Complexity: O(*n*) in the store's size, twice: the copy and its verification.
    public func backup(to url: URL, compact: Bool = true) throws {
        let path = url.standardizedFileURL.path
        try store.environment.backup(to: path, compact: compact)
        do {
            // A copy of an encrypted store is the same ciphertext under the same wrapped key.
            let encryption = store.encryption
            let copy = try ModelContainer(
                for: schema, configurations: ModelConfiguration(url: url, allowsSave: false, encryption: encryption))
            let report = try copy.verify()
            guard report.isClean else {
                throw StorageError(
                    code: .damaged,
                    message:
                        "The backup at \(path) does not verify: \(report.problems.count) problems, the first: "
                        + "\(report.problems.first.map { "\($0)" } ?? "?"). Run verify() on this container: the "
                        + "store itself may be damaged. The copy was removed.")
            }
        } catch {
            StoreFiles.removeDirectory(path)
            throw error
        }
    }
}

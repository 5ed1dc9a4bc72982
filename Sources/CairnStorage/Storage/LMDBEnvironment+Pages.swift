internal import CLMDB

/// A check of every page of the store, as ``PageWalker`` does it before a store opens, on the
/// snapshot a read transaction holds, so that no writer (in any process) reuses its pages meanwhile.
extension LMDBEnvironment {
    /// What a walk of every page found.
    ///
    /// ```swift
    /// let pages = try environment.checkPages()
    /// for problem in pages.problems { print(problem) }
    /// ```
    package struct PageCheck: Sendable {
        /// The transaction (commit) whose snapshot was walked.
        var transactionID: UInt64
        /// Problems found, each naming its tree (and table) and page; empty when every page is sound.
        package var problems: [PageWalker.Problem]
    }

    /// Walks every page of the newest snapshot without LMDB: never crashes on damage, which it
    /// reports as problems.
    ///
    /// ```swift
    /// let pages = try environment.checkPages()
    /// print(pages.transactionID, pages.problems.isEmpty)
    /// ```
    /// - Throws: ``StorageError`` when the data file cannot be read at all.
    /// - Complexity: O(*p*) in the pages of the store.
    package func checkPages() throws -> PageCheck {
        for _ in 0..<8 {
            let check: PageCheck? = try read { txn in
                let walked = try PinnedSnapshot.walk(
                    txn.handle.pointer, of: try state.environment(), pageSize: state.pageSize, path: path,
                    scope: .everything, stopAtFirstProblem: false)
                return walked.map { id, summary in PageCheck(transactionID: id, problems: summary.problems) }
            }
            if let check { return check }
        }
        throw PinnedSnapshot.busy(path)
    }
}

/// The walk of the snapshot an open read transaction pins.
enum PinnedSnapshot {
    /// Walks the snapshot that `transaction`, a read transaction of `environment`, sees, through
    /// LMDB's own descriptor of the data file (the file the store really uses, even if its path
    /// changed).
    ///
    /// - Returns: the snapshot's transaction id and what the walk found, or `nil` when its meta
    ///   page was rewritten meanwhile (two commits later), so the caller looks again.
    static func walk(
        _ transaction: OpaquePointer, of environment: OpaquePointer, pageSize: Int, path: String,
        scope: PageWalker.Scope, stopAtFirstProblem: Bool
    ) throws(StorageError) -> (UInt64, PageWalker.Summary)? {
        let id = UInt64(truncatingIfNeeded: mdb_txn_id(transaction))
        var descriptor: Int32 = -1
        guard mdb_env_get_fd(environment, &descriptor) == MDB_SUCCESS else {
            throw StorageError(
                code: .other,
                message: "The store's data file is not open, so its pages cannot be checked. Open the container again.",
                path: path)
        }
        let file = try MappedDataFile(duplicating: descriptor, path: StoreFiles.dataFile(in: path))
        // LMDB reads the snapshot of commit t from meta page t % 2; it may have been rewritten
        // two commits later, when the caller looks again.
        let index = Int(id % 2)
        guard let view = try? file.bytes(at: index * pageSize, count: pageSize, for: "a meta page"),
            let meta = try? MetaPage(index: index, view: view), meta.transactionID == id
        else { return nil }
        var walker = PageWalker(file: file, pageSize: pageSize, lastPage: meta.lastPage)
        return (id, try walker.walk(meta, scope: scope, stopAtFirstProblem: stopAtFirstProblem))
    }

    static func busy(_ path: String) -> StorageError {
        StorageError(
            code: .other,
            message: "The pages could not be checked: the meta page of the snapshot being read kept changing (other "
                + "processes committing) or does not name that snapshot (a damaged meta page). Try again; if it "
                + "persists, close the store in every process and open it again.",
            path: path)
    }
}

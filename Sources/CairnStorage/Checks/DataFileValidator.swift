#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks an existing LMDB data file without LMDB, before LMDB maps it, and chooses the snapshot
/// to open.
///
/// LMDB 0.9.24 keeps no page checksums and trusts what it reads: a zero page size divides by zero
/// (`SIGFPE`), a page past the end of the file faults when touched (`SIGBUS`), a page of the wrong
/// kind aborts on an assertion, and a zero-length file is taken for a new store. So before
/// `mdb_env_open` sees a file, this:
///
/// 1. reads both meta pages and does what `mdb_env_read_header` does: a page without the meta
///    flag, LMDB's magic number or its data version makes LMDB refuse the file;
/// 2. takes the meta page LMDB would select (the newer transaction id; page 0 on a tie) and checks
///    it field by field (``MetaPage``), walks the snapshot it names (``PageWalker``: every page
///    of a store up to ``StorageConfiguration/fullCheckLimit``, the free list and the table
///    catalogue of a larger one), and checks that its main tree holds the commit marker of that
///    very transaction (``CommitMarker``), which catches a root moved to another valid page;
/// 3. if that fails, does the same for the other meta page: LMDB never reuses the pages of the
///    previous commit before the next one, so that snapshot is intact unless the file was damaged
///    there too. If it passes, the store opens at that older commit: the damaged meta page is
///    rewritten as a retired copy of the good one, which is what LMDB's own recovery
///    (`MDB_PREVSNAPSHOT`, not in 0.9.24) amounts to, and ``Summary/recovery`` says what was
///    skipped. Rewriting needs a writable store that no other process has open.
///
/// The meta page LMDB does not select is never held against the store: after a failed meta
/// write, LMDB writes that page back with the new roots but the old transaction id so that it is
/// never selected, and those roots may be garbage.
///
/// Another process may commit while the file is read; a walk that fails while the meta pages
/// changed under it is repeated rather than reported.
struct DataFileValidator {
    /// What was chosen, for sizing the map and for reporting.
    struct Summary {
        var pageSize: Int
        var lastPage: UInt64
        var transactionID: UInt64
        var mapSize: UInt64
        var fileSize: Int
        /// Set when a damaged meta page was rewritten.
        var recovery: StoreRecovery?
        /// Set when another process had the store open, so its pages could change under a walk
        /// without LMDB: they are walked once LMDB has opened the store and a read transaction
        /// pins the snapshot, to this depth.
        var walkWhenPinned: PageWalker.Scope?
    }

    typealias Offset = MetaPage.Offset

    /// The data file.
    let path: String
    /// The lock file beside it, locked while a damaged meta page is rewritten.
    let lockPath: String
    /// Stores up to this size are walked page by page; larger ones have their free list and
    /// table catalogue walked.
    let fullCheckLimit: Int
    /// Whether a damaged meta page may be rewritten (the store is opened writable).
    let mayRepair: Bool

    init(directory: String, fullCheckLimit: Int, mayRepair: Bool) {
        path = StoreFiles.dataFile(in: directory)
        lockPath = StoreFiles.lockFile(in: directory)
        self.fullCheckLimit = fullCheckLimit
        self.mayRepair = mayRepair
    }

    /// A validator of the data file at `path` alone, which no process has open (a copy being made).
    init(dataFile path: String) {
        self.path = path
        lockPath = path + ".lock"
        fullCheckLimit = Int.max
        mayRepair = true
    }

    /// Validates the file and repairs a damaged meta page when an intact snapshot remains.
    ///
    /// - Throws: ``StorageError`` `.notFound` when there is no file, `.damaged` for a zero-length,
    ///   truncated or damaged file whose snapshots are both unusable (or that cannot be repaired
    ///   now, saying why), `.versionMismatch` for another LMDB data version.
    func validate() throws(StorageError) -> Summary {
        // A file this process walked and found intact, unchanged since (no byte written: its
        // status-change time is the same), is not walked again (see `WalkedFiles`). Not while
        // another process has the store open: it may commit between this check and LMDB's open.
        let version = WalkedFiles.Version(path: path)
        if version != nil, let summary = WalkedFiles.shared.summary(of: path), !othersHaveTheStoreOpen() {
            return summary
        }
        let start = WalkedFiles.now()
        var attempt = 0
        while true {
            attempt += 1
            let file = try MappedDataFile(path: path)
            let before = transactionIDs()
            do {
                let summary = try validate(file)
                if let version {
                    WalkedFiles.shared.remember(summary, of: path, before: version, walkStarted: start)
                }
                return summary
            } catch  where error.code == .damaged && attempt < 8 && transactionIDs() != before {
                usleep(2000)  // another process committed meanwhile: look again
            } catch {
                WalkedFiles.shared.forget(path)
                throw error
            }
        }
    }

    private func validate(_ file: MappedDataFile) throws(StorageError) -> Summary {
        if file.fileSize > 0 && othersHaveTheStoreOpen() { return try validateInUse(file) }
        guard file.fileSize > 0 else {
            throw damaged(
                "the data file is empty (0 bytes). An empty file is never treated as a new store: "
                    + "if it was being created, delete the store directory and create it again; "
                    + "otherwise restore it from a backup.")
        }
        let (pageSize, metas) = try readMetaPages(file)
        try checkDataVersion(metas)
        // A newer commit the other page leads to, under an id that hides it (see below).
        var unfinished: (page: MetaPage, transaction: UInt64)?
        // LMDB's choice first (the newer transaction id, page 0 on a tie). The other is checked
        // when that fails, or when its id is odd for its slot: a damaged id may hide the newest
        // commit behind an older one.
        let preferred = Self.lmdbChoice(metas)
        let other = metas[1 - preferred.index]
        var checks: [Int: SnapshotCheck] = [:]
        for meta in [preferred, other] {
            // LMDB writes commit t to slot t % 2, so its two pages hold ids one apart (both 0 in a
            // file nobody has written to). An id that breaks that is damage, and the snapshot's
            // own commit marker then tells the page's true id.
            let neighbour = metas[1 - meta.index].transactionID
            let suspect =
                !meta.hasSlotParity
                || (meta.transactionID != 0 || neighbour != 0)
                    && meta.transactionID &+ 1 != neighbour && neighbour &+ 1 != meta.transactionID
            if meta.index == other.index, let first = checks[preferred.index], first.problem == nil,
                first.restoredTransactionID == nil, !suspect
            {
                // LMDB's choice is sound and the other page looks like what LMDB leaves. But it may
                // lead to a newer commit than the chosen one, in its slot, under the id below the
                // chosen page's (41 read as 39 beside 40). LMDB writes exactly that when a meta
                // page's write fails (it puts the slot's old id back over the failed commit), and a
                // damaged id can read the same: the two cannot be told apart, so the newer commit
                // is not opened (a failed save must never come back), but the open says so.
                // Only the main tree is read for that, a few pages.
                if let marker = otherMarker(other, chosen: preferred, pageSize: pageSize, in: file),
                    marker > preferred.transactionID, Int(marker % 2) == other.index
                {
                    unfinished = (other, marker)
                }
                break
            }
            checks[meta.index] = checkSnapshot(meta, pageSize: pageSize, suspectID: suspect, in: file)
        }
        // Another program's environment: sound trees, no marker in the newest (nor in the other,
        // whose id may be too low for a marker to be required).
        if checks[preferred.index]?.isForeign == true, let otherCheck = checks[other.index],
            otherCheck.isForeign || (otherCheck.problem == nil && otherCheck.marker == nil)
        {
            throw notACairnStore()
        }
        let sound = [preferred, other].filter { checks[$0.index].map { $0.problem == nil } ?? false }
        guard let chosen = sound.max(by: { checks[$0.index]!.transactionID($0) < checks[$1.index]!.transactionID($1) })
        else {
            let problems = [preferred, other].map {
                "meta page \($0.index) (transaction \($0.transactionID)): \(checks[$0.index]!.problem!)"
            }
            throw damaged(
                "no meta page leads to a consistent snapshot. " + problems.joined(separator: "; ")
                    + ". Restore the store from a backup.")
        }
        var summary = try choose(chosen, metas: metas, checks: checks, file: file)
        if let unfinished, summary.recovery == nil, chosen.index == preferred.index {
            summary.recovery = StoreRecovery(
                openedTransaction: summary.transactionID, skippedTransaction: unfinished.transaction,
                reason:
                    "meta page \(unfinished.page.index) names transaction \(unfinished.page.transactionID) but leads to "
                    + "the snapshot of transaction \(unfinished.transaction): that commit did not finish (its save "
                    + "reported an error), or the page is damaged")
        }
        return summary
    }

    /// Refuses a store whose meta pages agree on an LMDB data version this build does not read.
    private func checkDataVersion(_ metas: [MetaPage]) throws(StorageError) {
        guard let newer = metas.first, metas.allSatisfy({ $0.magic == MetaPage.magic && $0.version == newer.version }),
            newer.version != MetaPage.dataVersion
        else { return }
        throw StorageError(
            code: .versionMismatch,
            message: "The store has LMDB data version \(newer.version); this build reads version "
                + "\(MetaPage.dataVersion). Open the store with the release that wrote it.",
            path: path)
    }

    /// The checks that are sound while another process has the store open and may be committing:
    /// the meta page LMDB will select, field by field, and what LMDB reads of the other. The
    /// snapshot's pages are walked after LMDB opens the store (``Summary/walkWhenPinned``). No
    /// repair is possible now: the other process uses the meta pages.
    private func validateInUse(_ file: MappedDataFile) throws(StorageError) -> Summary {
        let (pageSize, metas) = try readMetaPages(file)
        let preferred = Self.lmdbChoice(metas)
        let other = metas[1 - preferred.index]
        let problem =
            preferred.problem(pageSize: pageSize)
            ?? (!preferred.hasCanonicalHeader || !preferred.hasSlotParity || !other.isAcceptedByLMDB
                || (other.index == 0 && other.pageSize != pageSize)
                ? "a meta page's header is damaged" : nil)
        if let problem {
            throw damaged(
                "meta page \(preferred.index) (transaction \(preferred.transactionID)): \(problem). Another process "
                    + "has the store open; close it in every process, then open it again to recover the last intact "
                    + "commit, or restore the store from a backup.")
        }
        return Summary(
            pageSize: pageSize, lastPage: preferred.lastPage, transactionID: preferred.transactionID,
            mapSize: preferred.mapSize, fileSize: file.fileSize,
            walkWhenPinned: scope(of: file))
    }

    /// The meta page LMDB selects (`mdb_env_pick_meta`): the newer transaction id, page 0 on a tie.
    private static func lmdbChoice(_ metas: [MetaPage]) -> MetaPage {
        metas[1].transactionID > metas[0].transactionID ? metas[1] : metas[0]
    }

    /// How much of a snapshot in `file` is walked: every page up to ``fullCheckLimit``.
    private func scope(of file: MappedDataFile) -> PageWalker.Scope {
        file.fileSize <= fullCheckLimit ? .everything : .catalogue
    }

    /// Whether another process has the store open: each holds LMDB's lock on the lock file's
    /// first byte (shared once open), so an exclusive lock there would conflict. Only asks
    /// (`F_GETLK`); takes nothing.
    func othersHaveTheStoreOpen() -> Bool {
        guard let fd = try? StoreFiles.openRegularFile(lockPath, flags: O_RDWR, role: "lock file") else { return false }
        defer { close(fd) }
        var lock = Self.exclusiveLock
        return fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    /// LMDB's exclusive lock on the lock file's first byte (`mdb_env_excl_lock`): the first
    /// process to open a store takes it, and every process that has it open holds it shared.
    static var exclusiveLock: flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        return lock
    }

    /// Reads both meta pages. The page size comes from page 0, or, when page 0's is damaged,
    /// from page 1 at the system page size.
    func readMetaPages(_ file: MappedDataFile) throws(StorageError) -> (pageSize: Int, metas: [MetaPage]) {
        guard file.fileSize >= 2 * 512 else {
            throw damaged(
                "the data file is \(file.fileSize) bytes, too short to hold LMDB's two meta pages. "
                    + "It is truncated or not a store; restore it from a backup.")
        }
        func pageSize(at offset: Int) -> Int? {
            guard let view = try? file.bytes(at: offset + Offset.freeDB, count: 4, for: "a meta page"),
                let size = try? Int(view.u32(0)), size >= 512, size <= 65536, size & (size - 1) == 0
            else { return nil }
            return size
        }
        let system = LMDBEnvironment.systemPageSize
        guard let size = pageSize(at: 0) ?? (pageSize(at: system) == system ? system : nil) else {
            throw damaged(
                "neither meta page gives a page size that is a power of two between 512 and 65536. "
                    + "Restore the store from a backup.")
        }
        guard file.fileSize >= 2 * size else {
            throw damaged(
                "the data file is \(file.fileSize) bytes, shorter than its two \(size)-byte meta pages. "
                    + "It is truncated; restore it from a backup.")
        }
        let metas = try [0, 1].map { (index: Int) throws(StorageError) -> MetaPage in
            let view = try file.bytes(at: index * size, count: size, for: "meta page \(index)")
            do {
                return try MetaPage(index: index, view: view)
            } catch {
                throw damaged("meta page \(index) is too short. Restore the store from a backup.")
            }
        }
        return (size, metas)
    }

    /// What checking one meta page and its snapshot found.
    struct SnapshotCheck {
        /// Why the snapshot cannot be opened, or `nil` when it can.
        var problem: String?
        /// The commit marker the snapshot holds, when its trees could be walked.
        var marker: UInt64?
        /// The page's true transaction id, taken from the marker, when the id on the page is damaged.
        var restoredTransactionID: UInt64?
        /// Whether the snapshot is a sound LMDB tree without Cairn's commit marker: what another
        /// program's environment looks like.
        var isForeign = false

        func transactionID(_ meta: MetaPage) -> UInt64 { restoredTransactionID ?? meta.transactionID }
    }

    /// The commit marker of the snapshot the page LMDB did not choose leads to, when its header
    /// is sound and its main tree reads; `nil` otherwise (the chosen page stands, as before).
    private func otherMarker(_ other: MetaPage, chosen: MetaPage, pageSize: Int, in file: MappedDataFile) -> UInt64? {
        guard other.problem(pageSize: pageSize) == nil, other.transactionID < chosen.transactionID else { return nil }
        var walker = PageWalker(file: file, pageSize: other.pageSize, lastPage: other.lastPage)
        return try? walker.marker(of: other)
    }

    private func checkSnapshot(
        _ meta: MetaPage, pageSize: Int, suspectID: Bool, in file: MappedDataFile
    ) -> SnapshotCheck {
        if let problem = meta.problem(pageSize: pageSize) { return SnapshotCheck(problem: problem) }
        var walker = PageWalker(file: file, pageSize: meta.pageSize, lastPage: meta.lastPage)
        let summary: PageWalker.Summary
        do {
            summary = try walker.walk(
                meta, scope: scope(of: file), stopAtFirstProblem: true)
        } catch {
            return SnapshotCheck(problem: error.message)
        }
        // Every commit Cairn makes records its own id in the main tree; a compacted copy restarts
        // LMDB's ids at 1 and keeps the old marker until its next write.
        guard meta.transactionID > 1 || suspectID else { return SnapshotCheck(marker: summary.marker) }
        guard let marker = summary.marker else {
            return SnapshotCheck(
                problem: "its main tree lacks the commit marker every Cairn commit writes: its root is damaged, "
                    + "or another program wrote the store",
                isForeign: true)
        }
        // An id LMDB never writes there (a failed meta write keeps the slot's old id, one below
        // the other page's) is damage, so the snapshot's own marker tells the true id.
        if suspectID && marker != meta.transactionID {
            guard marker > 1, Int(marker % 2) == meta.index else {
                return SnapshotCheck(
                    problem: "it holds transaction \(meta.transactionID), which belongs in the other meta page",
                    marker: marker)
            }
            return SnapshotCheck(marker: marker, restoredTransactionID: marker)
        }
        guard marker == meta.transactionID else {
            return SnapshotCheck(
                problem: "it names transaction \(meta.transactionID), but the snapshot it leads to was committed as "
                    + "transaction \(marker)",
                marker: marker)
        }
        return SnapshotCheck(marker: marker)
    }

    /// Opens at `chosen`, first restoring its header constants when they are damaged and
    /// retiring the other meta page when LMDB would not choose the same.
    private func choose(
        _ chosen: MetaPage, metas: [MetaPage], checks: [Int: SnapshotCheck], file: MappedDataFile
    ) throws(StorageError) -> Summary {
        let chosenID = checks[chosen.index]!.transactionID(chosen)
        var summary = Summary(
            pageSize: chosen.pageSize, lastPage: chosen.lastPage, transactionID: chosenID,
            mapSize: chosen.mapSize, fileSize: file.fileSize)
        let other = metas[1 - chosen.index]
        // LMDB reads commit t from slot t % 2 (mdb_txn_renew0 uses me_metas[txnid & 1]), so the
        // chosen commit must sit there, whole, and the other slot must hold an older commit LMDB
        // accepts. LMDB finds page 1 at page 0's page size; page 1's own is read only if selected.
        let targetSlot = Int(chosenID % 2)
        let inOtherSlot = metas[1 - targetSlot]
        let chosenIsWhole =
            chosen.index == targetSlot && chosen.hasCanonicalHeader && chosenID == chosen.transactionID
        let otherSlotIsFine =
            chosen.index == targetSlot && inOtherSlot.isAcceptedByLMDB
            && (inOtherSlot.index != 0 || inOtherSlot.pageSize == chosen.pageSize)
            && (inOtherSlot.transactionID < chosenID || (inOtherSlot.transactionID == chosenID && targetSlot == 0))
        guard !chosenIsWhole || !otherSlotIsFine else { return summary }

        let otherCheck = checks[other.index]
        let loss = loss(
            opening: chosenID, pageSize: chosen.pageSize, other: other, marker: otherCheck?.marker, file: file)
        let skipped = loss?.transaction
        let reason =
            otherCheck?.problem.map { "meta page \(other.index) (transaction \(other.transactionID)): \($0)" }
            ?? (chosenIsWhole
                ? "meta page \(other.index)'s header (meta flag, magic number, data version or page size) is damaged, "
                    + "so LMDB would refuse or misread the file"
                : "meta page \(chosen.index)'s header (page number, meta flag, magic number, data version, "
                    + "transaction id or slot) is damaged")
        // Never "recover" to a snapshot without data while a later commit is claimed: a compacted
        // copy's page 0 is an empty tree, and opening it would start a new, empty store over the
        // data that is still in the file.
        if skipped != nil && (chosenID == 0 || chosen.mainTree.isEmpty) {
            throw damaged(
                "\(reason). The only intact meta page names an empty store, so nothing can be recovered by "
                    + "opening it. Restore the store from a backup.")
        }
        guard mayRepair else {
            throw damaged(
                "\(reason). "
                    + (loss.map { $0.isCertain ? "Commit \($0.transaction) is lost, " : "A newer commit may be lost, " }
                        ?? "No commit is lost: ")
                    + "commit \(chosenID) is intact, and opening the store writable (with no other process "
                    + "using it) recovers it. Open it writable once, or restore it from a backup.")
        }
        let analysed = metas.map(\.transactionID)
        try withExclusiveLock { () throws(StorageError) in
            // Another process may have opened and committed since the analysis: look again.
            guard transactionIDs() == analysed else {
                throw damaged("the store changed while its meta pages were checked. Open it again.")
            }
            if !chosenIsWhole {
                try write(
                    chosen.canonicalBytes(slot: targetSlot, transactionID: chosenID), at: targetSlot * chosen.pageSize)
            }
            // The retired page takes the id just below the chosen one, in its own slot's parity, so
            // LMDB selects the chosen page and its next commit overwrites this one.
            if !otherSlotIsFine {
                let retiredID = chosenID == 0 ? 0 : chosenID - 1
                try write(
                    chosen.canonicalBytes(slot: 1 - targetSlot, transactionID: retiredID),
                    at: (1 - targetSlot) * chosen.pageSize)
            }
        }
        summary.recovery = StoreRecovery(
            openedTransaction: chosenID, skippedTransaction: skipped, lossIsCertain: loss?.isCertain ?? false,
            reason: reason)
        return summary
    }

    /// What opening at commit `chosen` loses, judged from the other meta page: `nil` when it is
    /// known to have held an older commit. A commit marker newer than `chosen` in the tree the page
    /// leads to proves a newer commit, and an older one that equals the page's id an older page;
    /// without a marker, the page's id proves what it held when its header is intact and the id
    /// fits LMDB's pattern (the commit just before or after, in its own slot). A page that tells
    /// neither (zeroed, overwritten, an id that fits nothing) may have held the next commit.
    private func loss(
        opening chosen: UInt64, pageSize chosenPageSize: Int, other: MetaPage, marker: UInt64?, file: MappedDataFile
    ) -> (transaction: UInt64, isCertain: Bool)? {
        // The page may be garbage: the file's own page size, and no page past the file's end.
        let pageSize = max(512, chosenPageSize)
        let pagesInFile = UInt64(file.fileSize / pageSize)
        var walker = PageWalker(file: file, pageSize: pageSize, lastPage: min(other.lastPage, pagesInFile &- 1))
        // A damaged root may lead to an older tree, and a damaged id may name a newer commit: an
        // older marker proves the page old only when its id agrees, and a disagreement proves nothing.
        if let held = marker ?? (try? walker.marker(of: other)) ?? nil {
            if held > chosen { return (held, true) }
            return held == other.transactionID ? nil : (chosen &+ 1, false)
        }
        if other.hasCanonicalHeader && other.hasSlotParity {
            if other.transactionID &+ 1 == chosen || other.transactionID == 0 && chosen == 0 { return nil }
            if other.transactionID == chosen &+ 1 { return (other.transactionID, true) }
        }
        return (chosen &+ 1, false)
    }

    /// Runs `body` holding LMDB's exclusive lock on the store (the lock file's first byte), which
    /// every process with the store open holds shared: so no other process has it open meanwhile.
    private func withExclusiveLock(_ body: () throws(StorageError) -> Void) throws(StorageError) {
        let fd: Int32
        do throws(StorageError) {
            fd = try StoreFiles.openRegularFile(lockPath, flags: O_RDWR, role: "lock file")
        } catch where error.code == .notFound {
            return try body()  // no process has opened the store since it was made
        }
        // Closing any descriptor of the file drops this process's locks on it: the registry
        // guarantees no environment of this process has the store open now.
        defer { close(fd) }
        var lock = Self.exclusiveLock
        guard fcntl(fd, F_SETLK, &lock) == 0 else {
            throw damaged(
                "a meta page is damaged and must be rewritten before the store can be opened, but another process "
                    + "has the store open. Close the store in every other process, then open it again.")
        }
        defer {
            lock.l_type = Int16(F_UNLCK)
            _ = fcntl(fd, F_SETLK, &lock)
        }
        try body()
        // The lock file still records the retired commit (`mti_txnid`). An opener that waited for
        // this lock gets the store shared and would trust that record; an empty lock file makes
        // it fail and try again instead, and the next exclusive opener rebuilds it from the meta
        // pages as they are now.
        _ = ftruncate(fd, 0)
    }

    func write(_ bytes: [UInt8], at offset: Int) throws(StorageError) {
        let fd = try StoreFiles.openRegularFile(path, flags: O_RDWR, role: "data file")
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else {
            let code = written < 0 ? errno : EIO
            throw LMDBError(code).storageError(operation: "Rewriting a damaged meta page", path: path)
        }
        guard fdatasync(fd) == 0 else {
            throw LMDBError(errno).storageError(operation: "Flushing a repaired meta page", path: path)
        }
    }

    /// Both meta pages' transaction ids, read afresh, to tell damage from a concurrent commit.
    func transactionIDs() -> [UInt64] {
        guard let fd = try? StoreFiles.openRegularFile(path, flags: O_RDONLY, role: "data file") else { return [] }
        defer { close(fd) }
        var page0 = [UInt8](repeating: 0, count: Offset.end)
        guard page0.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, 0) }) == Offset.end else { return [] }
        let size = Int(page0.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: Offset.freeDB, as: UInt32.self) })
        var page1 = [UInt8](repeating: 0, count: Offset.end)
        let offset = size >= 512 && size <= 65536 ? size : LMDBEnvironment.systemPageSize
        guard page1.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, off_t(offset)) }) == Offset.end
        else { return [] }
        return [page0, page1].map { page in
            UInt64(
                littleEndian: page.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: Offset.transactionID, as: UInt64.self)
                })
        }
    }

    /// Both snapshots are sound LMDB trees, and neither was committed by Cairn.
    private func notACairnStore() -> StorageError {
        StorageError(
            code: .notAStore,
            message: "This is not a Cairn store: it is an LMDB environment that another program wrote (none of its "
                + "commits carries Cairn's commit marker). Nothing was changed. Open the program that owns it, or "
                + "choose another path for the store.",
            path: path)
    }

    private func damaged(_ reason: String) -> StorageError {
        StorageError(code: .damaged, message: "The store cannot be opened: \(reason)", path: path)
    }
}

import Foundation

/// The public history of a store: its `h` entries (``ChangeLog``) read as
/// ``DefaultHistoryTransaction``s, and deleted. What ``ModelContext/fetchHistory(_:)`` and
/// ``ModelContext/deleteHistory(_:)`` stand on.
///
/// An entry names its rows by an entity of their hierarchy (an edge by its relationship's
/// destination); the row id names the class (`Store+Hierarchy.swift`), so each change is of the
/// model's own class. The changed fields are stored by name, so a history written by an older
/// schema reads with the names the current one still has.
///
/// ```swift
/// let log = HistoryLog(store: store)
/// let transactions = try log.transactions(matching: descriptor)
/// ```
struct HistoryLog {
    let store: Store

    /// The commits a predicate's conditions on the token allow (`$0.token > t` and the like,
    /// joined with `&&`), and the oldest commit whose entry must still exist for the answer to
    /// be whole.
    struct Bounds {
        var lower: KeyRange.Bound?
        /// The newest commit allowed, and whether it is itself.
        var upper: (commit: UInt64, inclusive: Bool)?
        /// The first commit after the token of a lower bound: the history must hold every entry
        /// from it on (`history.floor` at most this), or the token expired.
        var firstNeeded: UInt64?

        /// The bounds `predicate`'s conditions on ``DefaultHistoryTransaction/token`` state.
        ///
        /// - Throws: ``SwiftDataError/invalidTransactionFetchRequest`` for a token of another store.
        init(_ predicate: Predicate<DefaultHistoryTransaction>?, store: String) throws {
            guard let predicate else { return }
            for part in PredicatePlanner.parts(of: predicate.expression) {
                let (keyPath, kind, value): (AnyKeyPath, PredicatePlanner.Condition.Kind, Any)
                switch part.form {
                case .equal(let path, let operand): (keyPath, kind, value) = (path, .equal, operand)
                case .compare(let path, let bound, let operand): (keyPath, kind, value) = (path, bound, operand)
                case .contains, .isA, .other: continue
                }
                guard keyPath == \DefaultHistoryTransaction.token, let token = value as? DefaultHistoryToken else {
                    continue
                }
                guard token.storeIdentifier == store else {
                    throw SwiftDataError.invalidTransactionFetchRequest.with(
                        message:
                            "The history token belongs to store \(token.storeIdentifier), not to this one (\(store)). "
                            + "Keep a token per store, and use with each store only the tokens of its own transactions."
                    )
                }
                let key = EntryLayout.historyKey(commit: token.transaction)
                switch kind {
                case .equal:
                    tighten(lower: .inclusive(key), first: token.transaction)
                    tighten(upper: (token.transaction, true))
                case .lower(let inclusive):
                    tighten(
                        lower: inclusive ? .inclusive(key) : .exclusive(key),
                        first: inclusive ? token.transaction : token.transaction &+ 1)
                case .upper(let inclusive): tighten(upper: (token.transaction, inclusive))
                case .oneOf: continue
                }
            }
        }

        private mutating func tighten(lower bound: KeyRange.Bound, first: UInt64) {
            if let needed = firstNeeded, needed >= first { return }
            lower = bound
            firstNeeded = first
        }

        private mutating func tighten(upper bound: (commit: UInt64, inclusive: Bool)) {
            if let upper, upper.commit < bound.commit || (upper.commit == bound.commit && !upper.inclusive) { return }
            upper = bound
        }

        var range: KeyRange {
            KeyRange(
                from: lower,
                to: upper.map { upper in
                    let key = EntryLayout.historyKey(commit: upper.commit)
                    return upper.inclusive ? .inclusive(key) : .exclusive(key)
                })
        }
    }

    /// The transactions `descriptor` asks for, in its order (commit order when it gives none).
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the history after the predicate's
    ///   token was deleted; ``SwiftDataError/invalidTransactionFetchRequest`` when the predicate
    ///   throws or names another store's token; `StorageError` when the store cannot be read or
    ///   an entry in the range is damaged.
    /// - Complexity: O(*k*) entries decoded for the *k* in the range the token conditions allow.
    func transactions(
        matching descriptor: HistoryDescriptor<DefaultHistoryTransaction>
    ) throws -> [DefaultHistoryTransaction] {
        let bounds = try Bounds(descriptor.predicate, store: store.identifier)
        guard let table = store.history else { return [] }
        let limit =
            descriptor.fetchLimit == 0 || !descriptor.sortBy.isEmpty ? Int.max : Int(clamping: descriptor.fetchLimit)
        var found: [DefaultHistoryTransaction] = []
        try store.read { txn in
            try checkNotExpired(bounds, txn: txn)
            try ChangeLog.scan(table, bounds.range, txn: txn) { stored in
                let transaction = try decode(stored)
                // A save that changed nothing visible (an insert deleted before it was saved) is
                // not a transaction to report.
                if !transaction.changes.isEmpty, try matches(transaction, descriptor.predicate) {
                    found.append(transaction)
                }
                return found.count < limit
            }
        }
        if !descriptor.sortBy.isEmpty {
            found.sort(using: descriptor.sortBy)
            if descriptor.fetchLimit > 0 { found = Array(found.prefix(Int(clamping: descriptor.fetchLimit))) }
        }
        return found
    }

    /// The newest commit, and how many of the transactions after `commit` up to it `accepts`:
    /// what a ``HistoryObserver`` counts. A damaged entry is counted (it cannot say what it
    /// changed); an empty one (a save that changed nothing visible) is not offered.
    ///
    /// - Complexity: O(*k*) entries decoded for the *k* commits after `commit`.
    func count(
        after commit: UInt64, accepts: (EntryLayout.HistoryEntry) -> Bool
    ) throws -> (newest: UInt64, accepted: Int) {
        guard let table = store.history else {
            return (UInt64(truncatingIfNeeded: store.lastCommittedTransactionID), 0)
        }
        return try store.read { txn in
            guard txn.id > commit else { return (txn.id, 0) }
            var accepted = 0
            let range = KeyRange(
                from: .exclusive(EntryLayout.historyKey(commit: commit)),
                to: .inclusive(EntryLayout.historyKey(commit: txn.id)))
            try ChangeLog.scan(table, range, txn: txn) { stored in
                switch stored {
                case .entry(_, let entry): if !entry.groups.isEmpty, accepts(entry) { accepted += 1 }
                case .damagedEntry, .damagedKey: accepted += 1
                }
                return true
            }
            return (txn.id, accepted)
        }
    }

    /// Deletes the transactions `descriptor`'s predicate accepts (its order and limit do not
    /// apply), and moves the history's floor past the newest one deleted: tokens before it
    /// expire, and contexts that had not seen it refresh everything they hold. An entry in the
    /// range that is damaged cannot be read to match: it is deleted too.
    ///
    /// - Returns: The commit of the deletion, or `nil` when nothing was deleted.
    /// - Throws: As ``transactions(matching:)``, except for expired tokens: deleting before an
    ///   expired token deletes what is left.
    func delete(matching descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> UInt64? {
        let bounds = try Bounds(descriptor.predicate, store: store.identifier)
        guard let table = store.history else { return nil }
        return try store.write(expectedBytes: 64 * 1_024) { txn -> UInt64? in
            var doomed: [UInt64] = []
            var newest: UInt64 = 0
            try ChangeLog.scan(table, bounds.range, txn: txn) { stored in
                let commit: UInt64
                switch stored {
                case .entry(let entryCommit, _), .damagedEntry(let entryCommit): commit = entryCommit
                case .damagedKey(let error): throw error
                }
                let transaction = try? decode(stored)
                if try transaction.map({ try matches($0, descriptor.predicate) }) ?? true {
                    doomed.append(commit)
                    newest = max(newest, commit)
                }
                return true
            }
            guard !doomed.isEmpty else { return nil }
            for commit in doomed { _ = try txn.delete(EntryLayout.historyKey(commit: commit), in: table) }
            let floor = (try? ChangeLog.floor(meta: store.meta, txn: txn)) ?? 0
            if newest &+ 1 > floor {
                try txn.put(
                    EntryLayout.counter(newest &+ 1, key: StoreLayout.historyFloorKey),
                    for: StoreLayout.historyFloorKey, in: store.meta)
            }
            return txn.id
        }
    }

    /// Throws when the entries a lower bound needs were deleted.
    private func checkNotExpired(_ bounds: Bounds, txn: borrowing ReadTransaction) throws {
        guard let needed = bounds.firstNeeded,
            try !ChangeLog.keepsEntries(after: needed &- 1, meta: store.meta, txn: txn)
        else { return }
        let floor = try ChangeLog.floor(meta: store.meta, txn: txn)
        throw SwiftDataError.historyTokenExpired.with(
            message:
                "The history after transaction \(needed &- 1) was deleted (the oldest transaction kept follows "
                + "\(floor &- 1)), so the transactions after the token cannot all be listed. Discard the token, fetch "
                + "the history without one (or fetch the models themselves), and keep the newest token from then on.")
    }

    private func matches(
        _ transaction: DefaultHistoryTransaction, _ predicate: Predicate<DefaultHistoryTransaction>?
    ) throws -> Bool {
        guard let predicate else { return true }
        do {
            return try predicate.evaluate(transaction)
        } catch {
            throw SwiftDataError.invalidTransactionFetchRequest.with(
                message:
                    "The history predicate threw on transaction \(transaction.transactionIdentifier): \(ErrorText.describing(error)). "
                    + "Check its force unwraps and casts.")
        }
    }

    /// The transaction of a stored entry.
    private func decode(_ stored: ChangeLog.StoredEntry) throws -> DefaultHistoryTransaction {
        switch stored {
        case .entry(let commit, let entry):
            return HistoryChanges(store: store, commit: commit, entry: entry).transaction()
        case .damagedKey(let error):
            throw error
        case .damagedEntry(let commit):
            throw StorageError(
                code: .damagedRecord,
                message:
                    "The history entry of transaction \(commit) is damaged and cannot be read. Delete it (context."
                    + "deleteHistory with a predicate on its token, or the history up to it) and fetch again; the "
                    + "models themselves are not affected.")
        }
    }
}

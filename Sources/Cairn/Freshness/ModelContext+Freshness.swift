import Foundation

extension ModelContext {
    /// Takes into account what other contexts and processes committed since this context last
    /// looked (see ``Refresher``); cheap when nothing was committed (one read of the lock file's
    /// counter).
    func refreshIfNeeded() {
        // The id comes from the data file's meta page as LMDB's size_t: a damaged page can make
        // it negative as an Int, which must not trap here (any change makes the context look).
        let lastCommit = UInt64(truncatingIfNeeded: store.lastCommittedTransactionID)
        guard commits.hasUnseen(upTo: lastCommit) else { return }
        var invalidated: [PersistentIdentifier]?
        if let floorDamage = Refresher(store: store, rows: rows).catchUp(&commits, invalidated: &invalidated) {
            rows.failures.recordStoreDamage(floorDamage, what: "The store's history floor")
        }
        // The history could not say what changed (the store was erased): observers learn that
        // every model the context held was invalidated.
        if let invalidated { SaveNotifier.postInvalidation(for: self, identifiers: invalidated) }
    }
}

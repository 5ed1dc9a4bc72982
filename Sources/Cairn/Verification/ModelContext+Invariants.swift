import Foundation

extension ModelContext {
    /// Checks, in debug builds, that the store and the context agree after a save; logs the list
    /// of violations if they do not, never stopping the process (see ``InvariantChecker``). Release builds skip it, and
    /// so do larger stores and runs with `CAIRN_CHECK_INVARIANTS=0`.
    func checkInvariantsAfterSave() {
        #if DEBUG
        InvariantChecker(store: store, rows: rows).reportIfViolated()
        #endif
    }

    /// Everything that is inconsistent between the store's tables and the context's identity map
    /// (see ``InvariantChecker/violations()``); empty when the store is larger than
    /// ``InvariantChecker/rowLimit`` rows.
    func invariantViolations() throws -> [String] {
        try InvariantChecker(store: store, rows: rows).violations()
    }
}

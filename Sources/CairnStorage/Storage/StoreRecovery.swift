/// What opening a store had to repair: a damaged meta page, and the commit it cost, if any.
///
/// LMDB keeps two meta pages and opens the snapshot named by the one with the newer transaction
/// id. When that page, or the tree it leads to, is damaged while the previous commit is intact,
/// Cairn opens the store at the previous commit instead of refusing it, rewrites the damaged meta
/// page so LMDB agrees, and reports it here: the newest commit is lost, everything before it is
/// there. When only the older meta page was damaged, it is rewritten and nothing is lost.
///
/// ```swift
/// let container = try ModelContainer(for: Book.self, configurations: configuration)
/// if let recovery = container.recovery {
///     log("Opened \(recovery.openedTransaction); lost \(recovery.skippedTransaction.map(String.init) ?? "nothing"): \(recovery.reason)")
/// }
/// ```
public struct StoreRecovery: Sendable, Hashable, CustomStringConvertible {
    /// The storage transaction (commit) the store was opened at.
    ///
    /// ```swift
    /// print(recovery.openedTransaction)   // 41
    /// ```
    public let openedTransaction: UInt64
    /// The newer commit that was damaged and skipped, or `nil` when no commit was lost.
    ///
    /// ```swift
    /// if let lost = recovery.skippedTransaction { print("commit \(lost) was lost") }
    /// ```
    public let skippedTransaction: UInt64?
    /// What was damaged, in a sentence.
    ///
    /// ```swift
    /// print(recovery.reason)   // "meta page 0 … leads to a page used twice"
    /// ```
    public let reason: String

    /// Creates a report.
    ///
    /// ```swift
    /// let recovery = StoreRecovery(openedTransaction: 41, skippedTransaction: 42, reason: "…")
    /// ```
    public init(openedTransaction: UInt64, skippedTransaction: UInt64?, reason: String) {
        self.openedTransaction = openedTransaction
        self.skippedTransaction = skippedTransaction
        self.reason = reason
    }

    /// The report on one line.
    ///
    /// ```swift
    /// print(recovery)   // "Opened at commit 41; commit 42 was damaged and skipped: …"
    /// ```
    public var description: String {
        if let skippedTransaction {
            return
                "Opened at commit \(openedTransaction); commit \(skippedTransaction) was damaged and skipped: \(reason)"
        }
        return "Opened at commit \(openedTransaction), losing nothing; a damaged meta page was rewritten: \(reason)"
    }
}

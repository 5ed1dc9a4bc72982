/// What opening a store had to repair: a damaged meta page, and the commit it cost, if any.
///
/// LMDB keeps two meta pages and opens the snapshot named by the one with the newer transaction
/// id. When that page, or the tree it leads to, is damaged while the previous commit is intact,
/// Cairn opens the store at the previous commit instead of refusing it, rewrites the damaged meta
/// page so LMDB agrees, and reports it here: the newest commit is lost, everything before it is
/// there. When only the older meta page was damaged, it is rewritten and nothing is lost. When
/// the damaged page cannot be read at all, nobody can tell which of the two was newer: the report
/// then says that a newer commit may have been lost (``lossIsCertain`` is `false`).
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
    /// The newer commit that was damaged and skipped, or may have been (see ``lossIsCertain``);
    /// `nil` only when Cairn knows that no commit was lost.
    ///
    /// ```swift
    /// if let lost = recovery.skippedTransaction { print("commit \(lost) was or may have been lost") }
    /// ```
    public let skippedTransaction: UInt64?
    /// Whether ``skippedTransaction`` is known to have been committed (its meta page or its
    /// snapshot says so), or only may have been: when the page that could have named it is
    /// unreadable (zeroed, overwritten), nothing tells whether it held a newer commit or an older
    /// one, and Cairn never says that nothing was lost unless it knows.
    ///
    /// ```swift
    /// if recovery.skippedTransaction != nil && !recovery.lossIsCertain { print("the last save may be missing") }
    /// ```
    public let lossIsCertain: Bool
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
    public init(openedTransaction: UInt64, skippedTransaction: UInt64?, lossIsCertain: Bool = true, reason: String) {
        self.openedTransaction = openedTransaction
        self.skippedTransaction = skippedTransaction
        self.lossIsCertain = skippedTransaction != nil && lossIsCertain
        self.reason = reason
    }

    /// The report on one line.
    ///
    /// ```swift
    /// print(recovery)   // "Opened at commit 41; commit 42 was damaged and skipped: …"
    /// ```
    public var description: String {
        guard let skippedTransaction else {
            return "Opened at commit \(openedTransaction), losing nothing; a damaged meta page was rewritten: \(reason)"
        }
        if lossIsCertain {
            return
                "Opened at commit \(openedTransaction); commit \(skippedTransaction) was damaged and skipped: \(reason)"
        }
        return "Opened at commit \(openedTransaction); a newer commit (\(skippedTransaction)) may have been lost, since the "
            + "damaged meta page cannot tell whether it held a newer commit or an older one: \(reason)"
    }
}

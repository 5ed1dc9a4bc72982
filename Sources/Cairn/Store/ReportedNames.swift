import Synchronization

/// Names reported once for a whole container, whichever of its contexts reports them first (the
/// fault-storm warnings: one per relationship).
///
/// ```swift
/// if store.faultStormReports.claim("Author.books") { logger.warning("…") }
/// ```
final class ReportedNames: Sendable {
    private let reported = Mutex<Set<String>>([])

    /// Whether `name` had not been reported yet; it is now.
    func claim(_ name: String) -> Bool { reported.withLock { $0.insert(name).inserted } }
}

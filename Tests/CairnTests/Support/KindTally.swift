import Foundation

/// The kinds of something a property test met (access paths, aggregate methods), collected from
/// its concurrent cases, so it can check that every kind was reached.
///
/// ```swift
/// let tally = KindTally()
/// tally.record("fullScan")
/// #expect(tally.kinds == ["fullScan"])
/// ```
final class KindTally: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<String> = []

    func record(_ kind: String) { lock.withLock { _ = seen.insert(kind) } }

    var kinds: Set<String> { lock.withLock { seen } }
}

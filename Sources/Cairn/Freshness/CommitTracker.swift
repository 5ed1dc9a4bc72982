/// Which commits a context has taken into account (pull-based freshness, ARCHITECTURE §5): the
/// newest commit whose changes it has seen, and the commits it made itself beyond that, which
/// are not other contexts' changes and need no refresh.
struct CommitTracker {
    /// The newest commit whose changes the context has taken into account.
    private(set) var lastSeen: UInt64
    /// Commits the context made itself that are newer than `lastSeen`.
    private var own: Set<UInt64> = []

    init(lastSeen: UInt64) {
        self.lastSeen = lastSeen
    }

    /// Records a commit the context made. The commit right after `lastSeen` moves it on, and so
    /// do own commits that then follow without a gap: no other writer committed in between.
    mutating func noteOwn(_ commit: UInt64) {
        guard commit > lastSeen else { return }
        own.insert(commit)
        absorbOwn()
    }

    /// Whether the store holds commits the context has not taken into account, given the
    /// store's newest commit.
    func hasUnseen(upTo newest: UInt64) -> Bool { newest > lastSeen }

    /// Whether `commit` is one the context made itself.
    func isOwn(_ commit: UInt64) -> Bool { own.contains(commit) }

    /// Marks every commit up to `current` as taken into account, and the own commits that follow
    /// it without a gap.
    mutating func advance(to current: UInt64) {
        guard current > lastSeen else { return }
        lastSeen = current
        own = own.filter { $0 > current }
        absorbOwn()
    }

    private mutating func absorbOwn() {
        while own.remove(lastSeen + 1) != nil { lastSeen += 1 }
    }
}

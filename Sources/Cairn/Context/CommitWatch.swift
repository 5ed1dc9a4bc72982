import Foundation

/// Something brought up to date after the store's commits (a live query, a results or history
/// observer), on the executor its ``CommitWatch`` was given.
protocol CommitRefreshing: AnyObject {
    func refresh()
}

/// Calls a target's ``CommitRefreshing/refresh()`` on an executor after the store's commits,
/// once per burst of commits, for as long as the watch lives: the one way live queries, results
/// observers and history observers follow the store.
///
/// ```swift
/// watch = CommitWatch(feed: context.store.commitFeed, place: .mainActor, target: self)
/// ```
final class CommitWatch: Sendable {
    private let feed: CommitFeed
    private let subscription: Int

    init(feed: CommitFeed, place: ExecutorPlace, target: any CommitRefreshing) {
        self.feed = feed
        let ticket = CommitTicket(target)
        subscription = feed.subscribe { ticket.schedule(on: place) }
    }

    deinit { feed.unsubscribe(subscription) }
}

/// Takes a commit's notice to the target's executor, once per burst of commits, and refreshes
/// the target there if it still exists.
///
/// `@unchecked Sendable`: `target` is read only on the target's executor (in ``run()``), and
/// `isScheduled` only under `lock`.
private final class CommitTicket: @unchecked Sendable {
    private weak var target: (any CommitRefreshing)?
    private let lock = NSLock()
    private var isScheduled = false

    init(_ target: any CommitRefreshing) {
        self.target = target
    }

    func schedule(on place: ExecutorPlace) {
        let schedules = lock.withLock { () -> Bool in
            guard !isScheduled else { return false }
            isScheduled = true
            return true
        }
        guard schedules else { return }
        place.schedule { self.run() }
    }

    private func run() {
        lock.withLock { isScheduled = false }
        target?.refresh()
    }
}

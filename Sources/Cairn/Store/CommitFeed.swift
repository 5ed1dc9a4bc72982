import Foundation

/// Tells whoever waits that a store has new commits: live queries and live result streams
/// (``LiveQuery``, ``ModelContext/liveResults(for:)``).
///
/// Commits of this container arrive at once (``committed()``, after each write transaction of
/// the store commits). Commits of other processes, and of other containers on the same files, are
/// found by polling every ``pollInterval``, only while someone waits. A commit is announced once
/// a read begun then sees it (``LMDBEnvironment/readableTransactionID``), so whoever reads when
/// told finds it; a parked read transaction makes each poll cheap while nothing changes.
///
/// ```swift
/// let subscription = store.commitFeed.subscribe { print("the store changed") }
/// store.commitFeed.unsubscribe(subscription)
/// ```
///
/// `@unchecked Sendable`: every property is read and written under `lock`; the callbacks run
/// outside it.
final class CommitFeed: @unchecked Sendable {
    /// How often another process's commits are looked for while someone waits.
    static let pollInterval: DispatchTimeInterval = .milliseconds(20)

    private let lock = NSLock()
    private let newestCommit: @Sendable () -> UInt64
    private var subscribers: [Int: @Sendable () -> Void] = [:]
    private var waiters: [Int: (after: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var nextIdentifier = 0
    private var timer: DispatchSourceTimer?
    /// The newest commit the subscribers were told of.
    private var announced: UInt64

    /// A feed of the commits `newestCommit` reads (the store's last committed transaction).
    init(newestCommit: @escaping @Sendable () -> UInt64) {
        self.newestCommit = newestCommit
        announced = newestCommit()
    }

    deinit { timer?.cancel() }

    /// Calls `callback`, from any thread, after each commit from now on (several commits may
    /// come as one call). Returns what ``unsubscribe(_:)`` takes.
    func subscribe(_ callback: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            nextIdentifier += 1
            subscribers[nextIdentifier] = callback
            startPollingIfNeeded()
            return nextIdentifier
        }
    }

    /// Stops the calls of a subscription.
    func unsubscribe(_ identifier: Int) {
        lock.withLock {
            subscribers[identifier] = nil
            stopPollingIfIdle()
        }
    }

    /// Returns once the store has a commit newer than `commit`, or the task is cancelled.
    func commit(after commit: UInt64) async {
        let identifier = lock.withLock {
            nextIdentifier += 1
            return nextIdentifier
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if Task.isCancelled || newestCommit() > commit { return true }
                    waiters[identifier] = (commit, continuation)
                    startPollingIfNeeded()
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                defer { stopPollingIfIdle() }
                return waiters.removeValue(forKey: identifier)?.continuation
            }
            waiter?.resume()
        }
    }

    /// Whether anyone waits: a commit with no one to tell costs a lock and nothing else.
    var isWatched: Bool { lock.withLock { !subscribers.isEmpty || !waiters.isEmpty } }

    /// Tells everyone waiting that the store has a new commit.
    func committed() {
        guard isWatched else { return }
        let newest = newestCommit()
        let (callbacks, ready) = lock.withLock { () -> ([@Sendable () -> Void], [CheckedContinuation<Void, Never>]) in
            guard !subscribers.isEmpty || !waiters.isEmpty else { return ([], []) }
            announced = max(announced, newest)
            let ready = waiters.filter { $0.value.after < newest }
            for key in ready.keys { waiters[key] = nil }
            stopPollingIfIdle()
            return (Array(subscribers.values), ready.values.map(\.continuation))
        }
        for continuation in ready { continuation.resume() }
        for callback in callbacks { callback() }
    }

    /// Looks for commits made elsewhere.
    private func poll() {
        let newest = newestCommit()
        let changed = lock.withLock { () -> Bool in
            guard newest != announced else { return false }
            return true
        }
        if changed { committed() }
    }

    /// Starts the timer if someone waits. Called under `lock`.
    private func startPollingIfNeeded() {
        guard timer == nil, !subscribers.isEmpty || !waiters.isEmpty else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval, leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.poll() }
        timer.resume()
        self.timer = timer
    }

    /// Stops the timer if no one waits. Called under `lock`.
    private func stopPollingIfIdle() {
        guard subscribers.isEmpty, waiters.isEmpty, let timer else { return }
        timer.cancel()
        self.timer = nil
    }
}

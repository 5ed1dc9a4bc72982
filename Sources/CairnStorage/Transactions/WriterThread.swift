import Foundation

/// One long-lived OS thread that runs an environment's asynchronous writes, one at a time.
///
/// LMDB requires a write transaction to begin and commit on the same thread, and Swift tasks may
/// resume on another thread after any `await`. Handing the whole synchronous transaction to this
/// thread keeps that rule without blocking the cooperative thread pool while writers queue up for
/// LMDB's writer lock.
final class WriterThread: @unchecked Sendable {
    // `jobs` and `stopped` are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        precondition(!stopped, "a write was submitted to an environment that is closing")
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish its queued jobs and exit.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job() }
        }
    }
}

internal import CLMDB
import Foundation

/// An environment's idle read transactions, kept for the next reads: parked (still open on their
/// snapshots) after a read, reset when a write begins, the map changes or they stay unused for
/// ``parkingLimit``. `EnvironmentState` begins and ends reads with it and decides whether a parked
/// transaction's snapshot can serve the next read.
///
/// Resetting a transaction and renewing it for the next read costs LMDB, with the renewal of its
/// cursors (each looks its table up in the catalogue again), about 1,500 instructions a read,
/// which a context that fetches one model at a time would pay at every fetch. A parked transaction keeps
/// its snapshot's pages from reuse, so it is reset before a write of this process
/// (``resetParked()``), before the map changes, and by a sweep once unused for ``parkingLimit``,
/// so that writers in other processes are held back for about that long (up to twice it: the
/// sweep runs every limit, and parking is timed with a clock that ticks every few milliseconds).
///
/// Thread-safe: every property is touched under its lock, and a transaction taken out of the pool
/// belongs to its reader alone until it is put back.
///
/// ```swift
/// let (handle, tables) = pool.take()
/// …
/// if !pool.park(handle) { mdb_txn_abort(handle.pointer) }
/// ```
final class ReaderPool: @unchecked Sendable {
    private let lock = NSLock()
    /// Only touched under `lock`: no runtime exclusivity checks (two per read).
    @exclusivity(unchecked) private var handles: [TransactionHandle] = []
    /// How many tables were opened after the environment (a read transaction begun before one
    /// was opened cannot use it).
    @exclusivity(unchecked) private var tablesOpened = 0
    /// Whether a sweep of parked transactions is scheduled.
    @exclusivity(unchecked) private var sweepScheduled = false
    private let capacity: Int
    /// How long, in nanoseconds, a parked transaction may keep its snapshot unused.
    let parkingLimit: UInt64

    init(capacity: Int, parkingLimit: UInt64) {
        self.capacity = capacity
        self.parkingLimit = parkingLimit
    }

    /// An idle transaction, if any, and how many tables have been opened: read in the same
    /// instant, before the transaction begins or is renewed, so that a table opened meanwhile is
    /// counted as unknown to it, never the other way round.
    func take() -> (handle: TransactionHandle?, tables: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (handles.popLast(), tablesOpened)
    }

    /// Keeps `handle`, open on its snapshot, for the next read; `false` when the pool is full
    /// (the caller aborts it).
    func park(_ handle: TransactionHandle) -> Bool {
        let snapshot = UInt64(truncatingIfNeeded: mdb_txn_id(handle.pointer))
        let now = Self.coarseNow()
        lock.lock()
        guard handles.count < capacity else {
            lock.unlock()
            return false
        }
        // Its cursors stay with it, for the next read in it or to be renewed with it.
        handle.parkedSnapshot = snapshot
        handle.parkedAt = now
        handles.append(handle)
        let schedule = !sweepScheduled
        sweepScheduled = true
        lock.unlock()
        if schedule { scheduleSweep() }
        return true
    }

    /// Notes a table opened: transactions begun before cannot read it.
    func noteTableOpened() {
        lock.lock()
        tablesOpened += 1
        lock.unlock()
    }

    /// How many transactions are parked now.
    var parkedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return handles.count { $0.parkedSnapshot != nil }
    }

    /// Resets every parked transaction: before a write in this process (which could otherwise
    /// not reuse the pages freed since their snapshots) and before the map changes (LMDB changes
    /// it only while no transaction of the process is open).
    func resetParked() { resetParked(olderThan: nil) }

    /// Resets the transactions parked before `limit` nanoseconds ago (all when `nil`); whether
    /// any is left parked. For a sweep (`sweeping`), notes under the same lock whether another
    /// sweep is needed.
    @discardableResult
    private func resetParked(olderThan limit: UInt64?, sweeping: Bool = false) -> Bool {
        let now = Self.coarseNow()
        var stillParked = false
        lock.lock()
        defer { lock.unlock() }
        for handle in handles where handle.parkedSnapshot != nil {
            if let limit, now &- handle.parkedAt < limit {
                stillParked = true
            } else {
                mdb_txn_reset(handle.pointer)
                handle.parkedSnapshot = nil
            }
        }
        if sweeping { sweepScheduled = stillParked }
        return stillParked
    }

    /// Schedules a sweep that resets the transactions parked longer than ``parkingLimit``, and
    /// schedules itself again while any is left parked.
    private func scheduleSweep() {
        let delay = DispatchTimeInterval.nanoseconds(Int(clamping: parkingLimit))
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            if self.resetParked(olderThan: self.parkingLimit, sweeping: true) { self.scheduleSweep() }
        }
    }

    /// Monotonic nanoseconds from the kernel's coarse clock, which it updates at each tick (a few
    /// milliseconds): what parking and sweeping compare, a limit of milliseconds apart. A read of
    /// it is a load from memory the kernel shares; the precise clock (`DispatchTime.now()`) read
    /// the time-stamp counter and converted it at every read a process made (2 percent of a
    /// fetch by id).
    static func coarseNow() -> UInt64 {
        #if canImport(Darwin)
        return clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        #endif
    }

    /// Aborts every idle transaction (the environment closes or reopens).
    func drain() {
        lock.lock()
        let pooled = handles
        handles.removeAll()
        lock.unlock()
        for handle in pooled {
            handle.closeKeptCursors()
            mdb_txn_abort(handle.pointer)
        }
    }
}

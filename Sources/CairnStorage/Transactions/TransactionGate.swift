import CAtomicWord
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets transactions run side by side and gives map changes the environment to themselves.
///
/// LMDB may change the memory map (`mdb_env_set_mapsize`, closing and reopening after
/// `MDB_PANIC`) only while no transaction of the process is active, because active transactions
/// hold pointers into the map. Every transaction holds the gate shared for its whole closure; a
/// map change takes it exclusively. Waiting exclusive entries block new shared entries, so a
/// steady stream of readers cannot starve growth.
///
/// A thread that already holds the gate shared enters again without waiting (a read nested in a
/// read or write on the same thread), because waiting there would deadlock against a pending
/// exclusive entry that waits for that very thread.
///
/// The state is one atomic word: the number of shared holders, and a bit each for "an exclusive
/// entry is active" and "one is waiting". A shared entry and exit are one atomic operation each
/// while no exclusive entry is around (every read and write passes the gate, some twice: a lock
/// and unlock of a condition at each entry and exit were four atomic operations and two calls
/// more). Waiting, in either direction, is on `condition`, whose lock guards the count of waiting
/// exclusive entries and is held whenever the exclusive bits change, so no wake-up is lost: a
/// shared holder that leaves last while an exclusive entry waits wakes it under that lock.
final class TransactionGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// Shared holders (the low 32 bits), ``active`` and ``waiting``.
    private let word: UnsafeMutablePointer<Int64>
    /// Exclusive entries waiting; guarded by `condition`'s lock.
    private var exclusiveWaiting = 0

    private static let active: Int64 = 1 << 61
    private static let waiting: Int64 = 1 << 62
    private static let holders: Int64 = (1 << 32) - 1

    init() {
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit { word.deallocate() }

    /// Whether a shared entry must wait in state `state`: an active exclusive holder is remapping
    /// or reopening right now; a waiting one is let past by a nested entry only.
    private static func blocks(_ state: Int64, nested: Bool) -> Bool {
        state & active != 0 || (!nested && state & waiting != 0)
    }

    /// Enters shared. `nested` is true when this thread already holds a gate shared.
    ///
    /// The entry without an exclusive entry around is inlined where a transaction begins: as a
    /// call, the gate was retained and released around it.
    @inline(__always)
    func enterShared(nested: Bool) {
        let state = cairn_atomic_load(word)
        if !Self.blocks(state, nested: nested) && cairn_atomic_compare_exchange(word, state, state + 1) { return }
        enterSharedWaiting(nested: nested)
    }

    /// ``enterShared(nested:)`` when its first try found the word blocked or changed.
    @inline(never)
    private func enterSharedWaiting(nested: Bool) {
        // A nested entry (this thread holds some gate shared) may pass a waiting exclusive entry,
        // which could be waiting for this thread; it must never pass an active one. An active
        // exclusive holder waits for nobody, so this cannot deadlock.
        var state = cairn_atomic_load(word)
        while !Self.blocks(state, nested: nested) {
            if cairn_atomic_compare_exchange(word, state, state + 1) { return }
            state = cairn_atomic_load(word)
        }
        condition.lock()
        while true {
            state = cairn_atomic_load(word)
            if Self.blocks(state, nested: nested) {
                condition.wait()
            } else if cairn_atomic_compare_exchange(word, state, state + 1) {
                break
            }
        }
        condition.unlock()
    }

    /// Leaves shared; inlined as ``enterShared(nested:)`` is.
    @inline(__always)
    func leaveShared() {
        let before = cairn_atomic_fetch_add(word, -1)
        precondition(before & Self.holders > 0, "TransactionGate.leaveShared() without a shared entry")
        // Only an exclusive entry waits for the shared ones to leave.
        if before & Self.holders == 1 && before & Self.waiting != 0 { wakeExclusive() }
    }

    /// Wakes the exclusive entries waiting for the shared holders to leave.
    @inline(never)
    private func wakeExclusive() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` while no shared holder is inside. The caller must not hold the gate itself.
    func withExclusive<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        condition.lock()
        exclusiveWaiting += 1
        _ = cairn_atomic_fetch_or(word, Self.waiting)
        // Active once no holder is inside, in one step with that check: a nested shared entry
        // may still come in while this one waits.
        while true {
            let state = cairn_atomic_load(word)
            if state & Self.active == 0 && state & Self.holders == 0 {
                if cairn_atomic_compare_exchange(word, state, state | Self.active) { break }
                continue
            }
            condition.wait()
        }
        exclusiveWaiting -= 1
        // No longer waiting, unless another exclusive entry is.
        if exclusiveWaiting == 0 { _ = cairn_atomic_fetch_and(word, ~Self.waiting) }
        condition.unlock()
        defer {
            condition.lock()
            _ = cairn_atomic_fetch_and(word, ~Self.active)
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}

/// How many Cairn transactions the current thread has open, across all environments.
///
/// Used to refuse the one nesting that would deadlock (a write inside another transaction on
/// the same thread, where growing the map waits for the thread's own transaction to end) and to
/// let nested reads enter the gate without waiting.
enum ThreadTransactionDepth {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        precondition(rc == 0, "pthread_key_create failed with \(rc)")
        return key
    }()

    static var current: Int {
        Int(bitPattern: pthread_getspecific(key))
    }

    static func enter() { set(current + 1) }
    static func leave() { set(current - 1) }

    private static func set(_ value: Int) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: value))
    }
}

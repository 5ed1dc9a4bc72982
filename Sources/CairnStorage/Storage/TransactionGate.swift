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
final class TransactionGate: @unchecked Sendable {
    // All fields are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var shared = 0
    private var exclusive = false
    private var exclusiveWaiting = 0

    /// Enters shared. `nested` is true when this thread already holds a gate shared.
    func enterShared(nested: Bool) {
        condition.lock()
        // A nested entry (this thread holds some gate shared) may pass a waiting exclusive entry,
        // which could be waiting for this thread; it must never pass an active one, which is
        // remapping or reopening right now. An active exclusive holder waits for nobody, so this
        // cannot deadlock.
        while exclusive || (!nested && exclusiveWaiting > 0) { condition.wait() }
        shared += 1
        condition.unlock()
    }

    func leaveShared() {
        condition.lock()
        shared -= 1
        // Only an exclusive entry waits for the shared ones to leave.
        if shared == 0 && exclusiveWaiting > 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Runs `body` while no shared holder is inside. The caller must not hold the gate itself.
    func withExclusive<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        condition.lock()
        exclusiveWaiting += 1
        while exclusive || shared > 0 { condition.wait() }
        exclusiveWaiting -= 1
        exclusive = true
        condition.unlock()
        defer {
            condition.lock()
            exclusive = false
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

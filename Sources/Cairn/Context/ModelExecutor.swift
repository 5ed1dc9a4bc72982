import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An object that owns a ``ModelContext`` and runs the work that uses it, as in SwiftData.
///
/// ```swift
/// let executor: any ModelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
/// ```
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context this executor owns; use it only from work the executor runs.
    ///
    /// ```swift
    /// let context = modelExecutor.modelContext
    /// ```
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that is also a serial executor, so an actor can run on it
/// (see ``ModelActor``).
///
/// ```swift
/// nonisolated var unownedExecutor: UnownedSerialExecutor {
///     (modelExecutor as! any SerialModelExecutor).asUnownedSerialExecutor()
/// }
/// ```
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The serial executor `@ModelActor` gives each model actor: its jobs run one at a time on a
/// private dispatch queue, so **a model actor never runs on the main thread**, even when it was
/// created there, and its context is only ever used by one thread at a time.
///
/// ```swift
/// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
/// ```
///
/// `@unchecked Sendable`: the context it holds is used only by the jobs it runs, serially.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context this executor owns.
    ///
    /// ```swift
    /// executor.modelContext.insert(book)   // from work the executor runs
    /// ```
    public let modelContext: ModelContext
    private let queue: DispatchQueue
    /// What the queue and the threads running the executor's jobs carry (see ``QueueMark``).
    private let mark: QueueMark
    /// Set on `queue`, so code can tell that it runs there, and on which executor's queue.
    private static let queueKey = DispatchSpecificKey<QueueMark>()

    /// What an executor's queue carries: the executor's identity and the queue itself, so that
    /// work running there can schedule more work after itself (an autosave). Not retained: the
    /// queue is alive while something runs on it. `@unchecked Sendable`: set before it is shared, then read only.
    private final class QueueMark: @unchecked Sendable {
        /// Set once, by the executor's `init`, before the mark is shared.
        var executor: ObjectIdentifier?
        unowned(unsafe) let queue: DispatchQueue

        init(queue: DispatchQueue) { self.queue = queue }
    }

    /// Creates an executor that owns `modelContext`. The context then checks, in debug builds,
    /// that it is used only from work this executor runs.
    ///
    /// ```swift
    /// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
    /// ```
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "Cairn.DefaultSerialModelExecutor", qos: .default)
        mark = QueueMark(queue: queue)
        mark.executor = ObjectIdentifier(self)
        queue.setSpecific(key: Self.queueKey, value: mark)
        modelContext.owner = .executor(ObjectIdentifier(self), queue)
    }

    /// Runs `job` on the executor's queue.
    ///
    /// ```swift
    /// executor.enqueue(job)   // the Swift runtime calls this; not for direct use
    /// ```
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let mark = self.mark
        queue.async {
            // The thread remembers whose job it runs, so that code the job runs inside another
            // queue's `sync` (where the queue's specific value is that queue's) is still known
            // to run on this executor.
            let outer = pthread_getspecific(Self.runningKey)
            pthread_setspecific(Self.runningKey, Unmanaged.passUnretained(mark).toOpaque())
            unowned.runSynchronously(on: executor)
            pthread_setspecific(Self.runningKey, outer)
        }
    }

    /// This executor, for the Swift runtime.
    ///
    /// ```swift
    /// let unowned = executor.asUnownedSerialExecutor()
    /// ```
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the process unless the calling code runs on this executor's queue.
    ///
    /// ```swift
    /// executor.checkIsolated()
    /// ```
    public func checkIsolated() {
        precondition(isCurrent, "Not running on the DefaultSerialModelExecutor that owns this model actor's context")
    }

    /// Whether the calling code runs on this executor.
    var isCurrent: Bool { Self.currentMark?.executor == ObjectIdentifier(self) }

    /// The executor whose work the calling code is, if any.
    static var current: ObjectIdentifier? { currentMark?.executor ?? nil }

    /// The queue of the executor whose work is running, if any.
    static var currentQueue: DispatchQueue? { currentMark?.queue }

    /// The mark of the executor whose work runs: the job the thread runs (also inside another
    /// queue's `sync`), else the queue's specific value (work put on the queue directly, such as
    /// an autosave).
    private static var currentMark: QueueMark? {
        if let running = pthread_getspecific(runningKey) {
            return Unmanaged<QueueMark>.fromOpaque(running).takeUnretainedValue()
        }
        return DispatchQueue.getSpecific(key: queueKey)
    }

    /// The thread-specific slot that holds the mark of the executor whose job the thread runs
    /// (not retained: the executor is alive while its job runs).
    private static let runningKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status)): the process has no thread keys left")
        return key
    }()
}

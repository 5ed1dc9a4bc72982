import Dispatch
import Foundation

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
    /// Set on `queue`, so code can tell that it runs there.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Creates an executor that owns `modelContext`. The context then checks, in debug builds,
    /// that it is used only from work this executor runs.
    ///
    /// ```swift
    /// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
    /// ```
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "Cairn.DefaultSerialModelExecutor", qos: .default)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        modelContext.owner = .executor(ObjectIdentifier(self))
    }

    /// Runs `job` on the executor's queue.
    ///
    /// ```swift
    /// executor.enqueue(job)   // the Swift runtime calls this; not for direct use
    /// ```
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unowned.runSynchronously(on: executor) }
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

    /// Whether the calling code runs on this executor's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    /// The executor whose queue the calling code runs on, if any.
    static var current: ObjectIdentifier? { DispatchQueue.getSpecific(key: queueKey) }
}

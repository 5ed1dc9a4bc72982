import Foundation

/// Who may use a context: checked in debug builds at every entry point (`Docs/Concurrency.md`,
/// "Who owns a context").
enum ContextOwner {
    /// A context you made yourself: Swift's `Sendable` checking keeps it on one task or actor.
    case unchecked
    /// `container.mainContext`: the main actor, which runs on the main thread.
    case mainActor
    /// A model actor's context: the ``DefaultSerialModelExecutor`` that owns it, and its queue.
    case executor(ObjectIdentifier, DispatchQueue)

    /// Whether the calling code may use the context.
    var permitsCaller: Bool {
        switch self {
        case .unchecked: true
        case .mainActor: Self.isOnMainActor
        case .executor(let executor, _): DefaultSerialModelExecutor.current == executor
        }
    }

    /// Stops with a message naming `operation` and the owner when the caller may not use the
    /// context.
    func check(_ operation: StaticString) {
        guard !permitsCaller else { return }
        preconditionFailure(Self.misuseMessage(operation, owner: description))
    }

    /// The owner, as the misuse message names it.
    private var description: String {
        switch self {
        case .unchecked: "no one in particular"
        case .mainActor: "the main actor (it is container.mainContext)"
        case .executor: "the model actor whose DefaultSerialModelExecutor owns it"
        }
    }

    static func misuseMessage(_ operation: StaticString, owner: String) -> String {
        "ModelContext misuse: \(operation) was called off the executor that owns this context: it belongs to "
            + "\(owner). A ModelContext and its models are not Sendable: use them only on the actor that owns them, "
            + "and pass PersistentIdentifiers to other actors, which fetch the models in their own context."
    }

    /// Marks the main dispatch queue, which runs the main actor's jobs.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the calling code runs on the main actor: on the main thread, or in a job of the
    /// main dispatch queue (which another thread may drain, as some test runners do). Marks the
    /// main queue the first time.
    static var isOnMainActor: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }
}

/// Where work for a context runs after the current turn of its executor: the main actor, or a
/// model actor's serial queue (``ModelContext/executorPlace``).
///
/// ```swift
/// context.executorPlace?.schedule { ticket.run() }
/// ```
enum ExecutorPlace {
    /// The main actor (`container.mainContext`, or a context used on the main thread).
    case mainActor
    /// A model actor's serial queue: after the job that is running.
    case queue(DispatchQueue)
    /// Any other actor: the isolation a results or history observer was made in.
    case actor(any Actor)

    /// Where an observer made in `isolation` updates: the executor that owns `context` if one
    /// does, else `isolation` (the caller's actor), else where the context is used now; `nil`
    /// when none of them is a serial executor.
    static func of(_ context: ModelContext, isolation: (any Actor)?) -> ExecutorPlace? {
        if case .unchecked = context.owner, let isolation { return of(isolation) }
        return context.executorPlace
    }

    /// An actor's place: the main actor's own case for it, else the actor.
    static func of(_ actor: any Actor) -> ExecutorPlace {
        actor === MainActor.shared ? .mainActor : .actor(actor)
    }

    /// Runs `work` there, after the current turn.
    func schedule(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .mainActor: Task { @MainActor in work() }
        case .queue(let queue): queue.async(execute: work)
        case .actor(let actor): Task { await Self.run(work, on: actor) }
        }
    }

    private static func run(_ work: @Sendable () -> Void, on actor: isolated any Actor) {
        work()
    }
}

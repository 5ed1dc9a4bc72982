/// What shows a context's unsaved changes and is told when they change: the results of
/// ``ResultsObserver``, ``LiveQuery`` and `@Query`, read through
/// `LiveResultsTracker.resultsWithPendingChanges()`.
protocol PendingChangeListening: AnyObject {
    /// The context inserted, deleted or first changed a model, rolled back, or processed its
    /// pending changes; `always` when whoever is told should hear it even if it was told before
    /// and has not read since.
    func contextDidChange(always: Bool)
}

/// The listeners of one context, held weakly: a listener that went away leaves the list when
/// another is added. The context tells them where it schedules its autosave, so a burst of
/// inserts costs a look at a short list each (a listener told once ignores the rest until it is
/// read), and nothing at all while none listens.
///
/// ```swift
/// context.pendingListeners.add(observer)
/// context.pendingListeners.tell()   // the context does this at each change
/// ```
final class PendingChangeListeners {
    private struct Entry {
        weak var listener: (any PendingChangeListening)?
    }

    private var entries: [Entry] = []

    /// Tells `listener` of the context's changes from now on, while it exists.
    func add(_ listener: any PendingChangeListening) {
        entries.removeAll { $0.listener == nil }
        entries.append(Entry(listener: listener))
    }

    /// Tells every listener that the context's unsaved changes changed.
    func tell(always: Bool = false) {
        for entry in entries { entry.listener?.contextDidChange(always: always) }
    }
}

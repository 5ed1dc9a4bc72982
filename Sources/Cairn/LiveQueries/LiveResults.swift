import Foundation

extension ModelContext {
    /// The results of `descriptor` as they change: first the current results, then the results
    /// after each save (of any context of the container, or of another process) that changes
    /// them. The sequence ends when the task consuming it is cancelled.
    ///
    /// ```swift
    /// @ModelActor actor Dashboard {
    ///     func watch() async {
    ///         let overdue = FetchDescriptor<Task>(predicate: #Predicate { $0.isOverdue })
    ///         for await tasks in modelContext.liveResults(for: overdue) {
    ///             print(tasks.count, "overdue")
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Consume it on the context's executor (the models are the context's). Each element is
    /// worked out incrementally, as ``LiveQuery``'s results are; commits that change nothing the
    /// results show produce no element, and commits that come while the consumer is busy are
    /// taken together.
    ///
    /// - Parameter descriptor: What to fetch.
    /// - Returns: The sequence of results.
    public func liveResults<Model: PersistentModel>(for descriptor: FetchDescriptor<Model>) -> LiveResults<Model> {
        LiveResults(descriptor: descriptor, context: self)
    }
}

/// The results of a fetch as they change (``ModelContext/liveResults(for:)``): an `AsyncSequence`
/// of `[Model]`, first the current results, then one element per save that changes them.
///
/// ```swift
/// for await authors in context.liveResults(for: FetchDescriptor<Author>(sortBy: [SortDescriptor(\.name)])) {
///     render(authors)
/// }
/// ```
public struct LiveResults<Model: PersistentModel>: AsyncSequence {
    /// The results after a change.
    public typealias Element = [Model]
    /// The sequence never fails: a failed fetch leaves the last results and waits for the next save.
    public typealias Failure = Never

    let descriptor: FetchDescriptor<Model>
    let context: ModelContext

    /// An iterator that fetches when it is first asked, then waits for changes.
    ///
    /// ```swift
    /// var iterator = context.liveResults(for: descriptor).makeAsyncIterator()
    /// let first = await iterator.next()
    /// ```
    public func makeAsyncIterator() -> Iterator { Iterator(descriptor: descriptor, context: context) }

    /// Produces the results: the current ones first, then the results after each change.
    ///
    /// ```swift
    /// while let results = await iterator.next() { render(results) }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        let descriptor: FetchDescriptor<Model>
        let context: ModelContext
        private var tracker: LiveResultsTracker<Model>?

        init(descriptor: FetchDescriptor<Model>, context: ModelContext) {
            self.descriptor = descriptor
            self.context = context
        }

        /// The next results, on the caller's actor; `nil` once the task is cancelled.
        ///
        /// ```swift
        /// let results = await iterator.next(isolation: #isolation)
        /// ```
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> [Model]? {
            guard !Task.isCancelled else { return nil }
            guard let tracker else {
                let tracker = LiveResultsTracker(descriptor, in: context)
                self.tracker = tracker
                return tracker.results
            }
            while true {
                await context.store.commitFeed.commit(after: tracker.commit)
                guard !Task.isCancelled else { return nil }
                if tracker.update() { return tracker.results }
            }
        }

        /// The next results; `nil` once the task is cancelled. `for await` calls
        /// ``next(isolation:)``, which stays on the consumer's actor.
        ///
        /// ```swift
        /// let results = await iterator.next()
        /// ```
        public mutating func next() async -> [Model]? {
            await next(isolation: nil)
        }
    }
}

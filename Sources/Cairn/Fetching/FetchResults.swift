import Foundation

/// The last step of every fetch: the executor's matches (erased models, `FetchRequest`) as the
/// descriptor's model type again, sorted by its sort descriptors, which need that type, then cut
/// to its offset and limit.
///
/// ```swift
/// let executor = FetchExecutor(FetchRequest(descriptor, tables: tables), in: context)
/// let books: [Book] = FetchResults.ordered(try executor.matches(), by: executor, descriptor)
/// ```
enum FetchResults {
    /// `matches` as the descriptor's models, sorted by it, after its offset and limit.
    static func ordered<T: PersistentModel>(
        _ matches: [any PersistentModel], by executor: FetchExecutor, _ descriptor: FetchDescriptor<T>
    ) -> [T] {
        var models = typed(matches, as: T.self)
        if descriptor.sortBy.count > 0 { models.sort(using: descriptor.sortBy) }  // by count: see `fetch(_:)`
        return executor.page(models)
    }

    /// Models read for a fetch of `T`, as `T`: the executor reads `T`'s entity's tables only and
    /// checks the type of pending models, so no cast can fail.
    static func typed<T: PersistentModel>(_ models: [any PersistentModel], as _: T.Type) -> [T] {
        // A loop, not `map`: unspecialized generic code pays metadata lookups per call made.
        var typed: [T] = []
        typed.reserveCapacity(models.count)
        for model in models { typed.append(unsafeDowncast(model as AnyObject, to: T.self)) }
        return typed
    }
}

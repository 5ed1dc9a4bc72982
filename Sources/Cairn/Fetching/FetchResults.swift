import Foundation

/// The last step of every fetch: the executor's matches sorted by the descriptor's sort
/// descriptors (through the request's sort, made where the model type is known), then cut to its
/// offset and limit; and erased models as the descriptor's model type again.
///
/// ```swift
/// let executor = FetchExecutor(FetchRequest(descriptor, tables: tables), in: context)
/// let books = FetchResults.typed(FetchResults.ordered(try executor.matches(), by: executor), as: Book.self)
/// ```
@usableFromInline
enum FetchResults {
    /// `matches` sorted by the request's sort descriptors, after its offset and limit.
    static func ordered(_ matches: [any PersistentModel], by executor: FetchExecutor) -> [any PersistentModel] {
        var models = matches
        executor.request.sort?(&models)
        return executor.page(models)
    }

    /// Models read for a fetch of `T`, as `T`: the executor reads `T`'s entity's tables only and
    /// checks the type of pending models, so no cast can fail. Inlinable, so that it runs
    /// specialized for `T` in the caller.
    @inlinable
    static func typed<T: PersistentModel>(_ models: [any PersistentModel], as _: T.Type) -> [T] {
        var typed: [T] = []
        typed.reserveCapacity(models.count)
        for model in models { typed.append(unsafeDowncast(model as AnyObject, to: T.self)) }
        return typed
    }
}

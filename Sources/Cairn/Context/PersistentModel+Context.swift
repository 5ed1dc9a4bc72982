// What a model knows of its context, here with the context rather than with the model protocol
// (Schema), which knows no context: the model's state holds a loader, and the context's hooks
// are one (ContextHooks.swift).

extension PersistentModel {
    /// The context the model belongs to, if any.
    ///
    /// ```swift
    /// book.modelContext === context   // true after context.insert(book)
    /// ```
    public var modelContext: ModelContext? {
        _$state.isDeleted ? nil : (_$state.loader as? ContextHooks)?.context
    }
}

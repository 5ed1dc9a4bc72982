/// What one save writes: a context's pending inserts, changes and deletes, each list read once,
/// and the author its history transaction names. The ``SavePlanner`` works from this and the
/// stored rows, not from the context.
///
/// ```swift
/// let changes = context.changeSet
/// changes.inserted.count   // the models inserted since the last save
/// ```
struct ChangeSet {
    /// The inserted models, in the order they were inserted.
    let inserted: [any PersistentModel]
    /// The stored models changed since they were loaded or last saved.
    let changed: [any PersistentModel]
    /// The models deleted, before the delete rules take others with them.
    let deleted: [any PersistentModel]
    /// Who makes the changes (``ModelContext/author``).
    let author: String?
}

extension ModelContext {
    /// The context's pending changes, for a save.
    var changeSet: ChangeSet {
        ChangeSet(inserted: insertedModelsArray, changed: changedModelsArray, deleted: deletedModelsArray, author: author)
    }
}

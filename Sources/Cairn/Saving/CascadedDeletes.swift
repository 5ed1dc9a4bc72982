/// The models a context's pending deletes take with them: the deleted models and, through every
/// `.cascade` relationship, the models they reach, as `save()` will delete them. A fetch with
/// pending changes leaves all of them out, so a cascade is visible before the save, as in
/// SwiftData; the save planner starts from the same list.
///
/// ```swift
/// let doomed = CascadedDeletes(context.deletedModelsArray, rows: context.rows)
/// let leftOut = doomed.identities   // what a fetch with pending changes leaves out
/// ```
struct CascadedDeletes {
    /// The deleted models, then those the cascades reach, each once.
    private(set) var models: [any PersistentModel] = []
    /// The same, by identity.
    private(set) var identities: Set<ObjectIdentifier> = []

    /// Expands the deletes of `deleted`, loading through `rows` (their context's loader) the
    /// cascading relationships that are not loaded yet.
    init(_ deleted: [any PersistentModel], rows: RowLoader) {
        guard !deleted.isEmpty else { return }
        var queue: [any PersistentModel] = []
        for model in deleted where identities.insert(ObjectIdentifier(model)).inserted {
            models.append(model)
            queue.append(model)
        }
        while let model = queue.popLast() {
            let entity = rows.store.entity(of: model.persistentModelID)
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index })
            where relationship.deleteRule == .cascade {
                for target in rows.loadedTargets(relationship, of: model)
                where identities.insert(ObjectIdentifier(target)).inserted {
                    models.append(target)
                    queue.append(target)
                }
            }
        }
    }
}

/// Deletes stored models by identifier in the store at once, through the one save pipeline, as
/// SwiftData's `delete(model:where:)` does: each part of the list is deleted by a context of its
/// own (faults, never loaded beyond what the delete rules read) that saves and goes, so memory
/// stays flat however many models match.
///
/// The parts are saved one after another, each save atomic. Where a `.deny` rule can stop the
/// delete (on the entity, or on one its cascades reach), the whole list is one save instead: a
/// deny blocks only while a related model survives, which only the whole list can tell, and a
/// refused delete must then delete nothing.
///
/// ```swift
/// try BatchDeleter(container: container).delete(ids, of: Book.self) { gone in print(gone.count) }
/// ```
struct BatchDeleter {
    let container: ModelContainer
    /// How many models each save deletes, when no deny rule is in reach.
    var partSize = 2_000

    /// Deletes the models `ids` name, all of entity `type`, applying their delete rules, and
    /// hands `deleted` the identifiers each save deleted (cascades included) as it goes.
    /// - Throws: ``SaveError`` as ``ModelContext/save()`` throws it; the parts saved before a
    ///   failed one stay deleted (none when a deny rule is in reach: one save).
    func delete(
        _ ids: [PersistentIdentifier], of type: any PersistentModel.Type, deleted: ([PersistentIdentifier]) -> Void
    ) throws {
        guard !ids.isEmpty else { return }
        let size = denyRuleInReach(of: type) ? ids.count : partSize
        var start = 0
        while start < ids.count {
            let part = ids[start..<min(start + size, ids.count)]
            let context = ModelContext(container)
            for id in part { context.delete(context.model(for: id)) }
            deleted(try context.saveChanges().deleted)
            start += size
        }
    }

    /// Whether deleting a model of `type` can meet a `.deny` rule: on its entity, or on an entity
    /// its cascades reach.
    private func denyRuleInReach(of type: any PersistentModel.Type) -> Bool {
        let store = container.store
        guard let start = store.entitiesByType[ObjectIdentifier(type)]?.entity else { return false }
        var pending = [start]
        var seen: Set<String> = [start.name]
        while let entity = pending.popLast() {
            // A model of a subclass is deleted by its own rules.
            for subentity in entity.subentities where seen.insert(subentity.name).inserted { pending.append(subentity) }
            for relationship in entity.relationships {
                if relationship.deleteRule == .deny { return true }
                if relationship.deleteRule == .cascade, seen.insert(relationship.destination).inserted {
                    pending.append(store.entity(named: relationship.destination))
                }
            }
        }
        return false
    }
}

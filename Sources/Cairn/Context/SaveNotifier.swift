import Foundation

/// Posts a context's ``ModelContext/willSave`` and ``ModelContext/didSave`` on the default
/// notification center, the save pipeline's first and last word (`Docs/Saving.md`): the context
/// is the notification's `object`, and the identifiers go under the ``ModelContext/NotificationKey``s.
///
/// ```swift
/// let notifier = SaveNotifier(context: context)
/// notifier.post(ModelContext.willSave, inserted: planned.newModels, updated: planned.updatedModels, deleted: deleted)
/// ```
struct SaveNotifier {
    /// The context that saves; it makes the notifier for one save.
    unowned let context: ModelContext

    /// Posts `name` for models about to be saved (inserted ones still have temporary identifiers).
    func post(
        _ name: Notification.Name, inserted: [any PersistentModel], updated: [any PersistentModel],
        deleted: [PersistentIdentifier]
    ) {
        post(
            name, insertedIDs: inserted.map(\.persistentModelID), updatedIDs: updated.map(\.persistentModelID),
            deleted: deleted)
    }

    /// Posts `name` with the given identifiers.
    func post(
        _ name: Notification.Name, insertedIDs: [PersistentIdentifier], updatedIDs: [PersistentIdentifier],
        deleted: [PersistentIdentifier]
    ) {
        NotificationCenter.default.post(
            name: name, object: context,
            userInfo: [
                ModelContext.NotificationKey.insertedIdentifiers.rawValue: insertedIDs,
                ModelContext.NotificationKey.updatedIdentifiers.rawValue: updatedIDs,
                ModelContext.NotificationKey.deletedIdentifiers.rawValue: deleted,
            ])
    }
}

import Foundation

/// Posts a context's ``ModelContext/willSave`` and ``ModelContext/didSave`` on the default
/// notification center, the save pipeline's first and last word (`Docs/Saving.md`): the context
/// is the notification's `object`, and the identifiers go under the ``ModelContext/NotificationKey``s.
///
/// ```swift
/// SaveNotifier.post(
///     ModelContext.willSave, for: context, inserted: planned.newModels, updated: planned.updatedModels,
///     deleted: deleted)
/// ```
enum SaveNotifier {
    /// Posts `name` for models about to be saved (inserted ones still have temporary identifiers).
    static func post(
        _ name: Notification.Name, for context: ModelContext, inserted: [any PersistentModel],
        updated: [any PersistentModel], deleted: [PersistentIdentifier]
    ) {
        post(
            name, for: context, insertedIDs: inserted.map(\.persistentModelID),
            updatedIDs: updated.map(\.persistentModelID), deleted: deleted)
    }

    /// Posts `name` for `context` with the given identifiers.
    static func post(
        _ name: Notification.Name, for context: ModelContext, insertedIDs: [PersistentIdentifier],
        updatedIDs: [PersistentIdentifier], deleted: [PersistentIdentifier]
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

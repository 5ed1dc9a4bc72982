import Foundation

/// Posts a context's ``ModelContext/willSave`` and ``ModelContext/didSave`` on the default
/// notification center, the save pipeline's first and last word (`Docs/Saving.md`): the context
/// is the notification's `object`, and the identifiers go under the ``ModelContext/NotificationKey``s.
///
/// ```swift
/// SaveNotifier.post(
///     ModelContext.willSave, for: context, insertedIDs: planned.newIdentifiers,
///     updatedIDs: planned.updatedIdentifiers, deleted: deleted)
/// ```
enum SaveNotifier {
    /// Posts `name` for `context` with the given identifiers, and the generation the save made
    /// (its transaction's token) when it made one.
    static func post(
        _ name: Notification.Name, for context: ModelContext, insertedIDs: [PersistentIdentifier],
        updatedIDs: [PersistentIdentifier], deleted: [PersistentIdentifier], generation: DefaultHistoryToken? = nil
    ) {
        var userInfo: [String: Any] = [
            ModelContext.NotificationKey.insertedIdentifiers.rawValue: insertedIDs,
            ModelContext.NotificationKey.updatedIdentifiers.rawValue: updatedIDs,
            ModelContext.NotificationKey.deletedIdentifiers.rawValue: deleted,
        ]
        if let generation { userInfo[ModelContext.NotificationKey.queryGeneration.rawValue] = generation }
        NotificationCenter.default.post(name: name, object: context, userInfo: userInfo)
    }

    /// Posts ``ModelContext/didSave`` for `context` with ``ModelContext/NotificationKey/invalidatedAllIdentifiers``:
    /// the store changed in a way its history cannot describe (it was erased, by this process or
    /// another), so every model the context held, `identifiers`, was refreshed or, its row gone,
    /// deleted. The other keys hold empty lists.
    static func postInvalidation(for context: ModelContext, identifiers: [PersistentIdentifier]) {
        NotificationCenter.default.post(
            name: ModelContext.didSave, object: context,
            userInfo: [
                ModelContext.NotificationKey.insertedIdentifiers.rawValue: [PersistentIdentifier](),
                ModelContext.NotificationKey.updatedIdentifiers.rawValue: [PersistentIdentifier](),
                ModelContext.NotificationKey.deletedIdentifiers.rawValue: [PersistentIdentifier](),
                ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue: identifiers,
            ])
    }
}

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
    // The user info is made as the `[AnyHashable: Any]` the center takes: a `[String: Any]` was
    // converted entry by entry, with a dynamic cast of each value (about 7,000 instructions a
    // notification, a sixth of a one-model save's).

    /// The user-info key of `key`.
    private static func key(_ key: ModelContext.NotificationKey) -> AnyHashable { AnyHashable(key.rawValue) }

    /// Posts `name` for `context` with the given identifiers, and the generation the save made
    /// (its transaction's token) when it made one.
    static func post(
        _ name: Notification.Name, for context: ModelContext, insertedIDs: [PersistentIdentifier],
        updatedIDs: [PersistentIdentifier], deleted: [PersistentIdentifier], generation: DefaultHistoryToken? = nil
    ) {
        // Room for four times the entries: the dictionary compares a new key with every key in
        // its probe run (an `AnyHashable` comparison is a dynamic cast, about 1,000 instructions),
        // and with the entries spread out most inserts compare with none.
        var userInfo: [AnyHashable: Any] = Dictionary(minimumCapacity: 16)
        userInfo[key(.insertedIdentifiers)] = insertedIDs
        userInfo[key(.updatedIdentifiers)] = updatedIDs
        userInfo[key(.deletedIdentifiers)] = deleted
        if let generation { userInfo[key(.queryGeneration)] = generation }
        NotificationCenter.default.post(name: name, object: context, userInfo: userInfo)
    }

    /// Posts ``ModelContext/didSave`` for `context` with ``ModelContext/NotificationKey/invalidatedAllIdentifiers``:
    /// the store changed in a way its history cannot describe (it was erased, by this process or
    /// another), so every model the context held, `identifiers`, was refreshed or, its row gone,
    /// deleted. The other keys hold empty lists.
    static func postInvalidation(for context: ModelContext, identifiers: [PersistentIdentifier]) {
        let userInfo: [AnyHashable: Any] = [
            key(.insertedIdentifiers): [PersistentIdentifier](), key(.updatedIdentifiers): [PersistentIdentifier](),
            key(.deletedIdentifiers): [PersistentIdentifier](), key(.invalidatedAllIdentifiers): identifiers,
        ]
        NotificationCenter.default.post(name: ModelContext.didSave, object: context, userInfo: userInfo)
    }
}

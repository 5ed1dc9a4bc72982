import Foundation

extension ModelContext {
    /// Posted on the default notification center just before a context saves; `object` is the
    /// context, `userInfo` holds the identifiers about to be saved under ``NotificationKey``s.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in … }
    /// ```
    public static let willSave = Notification.Name("Cairn.ModelContext.willSave")

    /// Posted on the default notification center after a context saved; `object` is the context,
    /// `userInfo` holds the saved identifiers (permanent ones for inserts) under ``NotificationKey``s.
    ///
    /// ```swift
    /// let saved = NotificationCenter.default.notifications(named: ModelContext.didSave)
    /// ```
    public static let didSave = Notification.Name("Cairn.ModelContext.didSave")

    /// The `userInfo` keys of ``willSave`` and ``didSave``; each value is a `[PersistentIdentifier]`.
    ///
    /// ```swift
    /// let inserted = notification.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
    /// ```
    public enum NotificationKey: String, Sendable {
        /// The inserted models that got new rows.
        case insertedIdentifiers
        /// The changed models, and inserted models that took over a stored row with the same
        /// unique values (an upsert: the row existed, its values changed).
        case updatedIdentifiers
        /// The deleted models, including those the delete rules cascaded to.
        case deletedIdentifiers
        /// Every model the context held, when the store changed in a way its history cannot
        /// describe (``ModelContainer/deleteAllData()`` or ``ModelContainer/erase()``, here or in
        /// another process): the context refreshed them all, and those whose rows are gone are
        /// deleted models. Posted with ``didSave`` when the context next looks at the store.
        ///
        /// ```swift
        /// if let all = notification.userInfo?[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue]
        ///     as? [PersistentIdentifier] { reloadEverything() }
        /// ```
        case invalidatedAllIdentifiers
        /// The generation of the store the save made: the ``DefaultHistoryToken`` of its
        /// transaction, in ``didSave`` (absent when the save wrote nothing). History fetched
        /// after this token (``HistoryDescriptor``) holds what other contexts saved since.
        ///
        /// ```swift
        /// let generation = notification.userInfo?[ModelContext.NotificationKey.queryGeneration.rawValue]
        ///     as? DefaultHistoryToken
        /// ```
        case queryGeneration
    }

    /// Runs `block`, then saves what it changed; if `block` throws, its changes are rolled back.
    ///
    /// ```swift
    /// try context.transaction {
    ///     context.insert(book)
    ///     author.books.append(book)
    /// }
    /// ```
    /// - Throws: What `block` throws (after rolling back), or what ``save()`` throws.
    public func transaction(block: () throws -> Void) throws {
        checkOwner()
        do {
            try block()
        } catch {
            rollback()
            throw error
        }
        try save()
    }
}

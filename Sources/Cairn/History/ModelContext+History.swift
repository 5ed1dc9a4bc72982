import Foundation

extension ModelContext {
    /// The transactions of the store's history that `descriptor` asks for: every save of every
    /// context, in this process and others, in commit order unless the descriptor sorts them.
    ///
    /// Keep the newest token you processed and fetch the transactions after it:
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// if let lastToken {
    ///     descriptor.predicate = #Predicate { $0.token > lastToken }
    /// }
    /// for transaction in try context.fetchHistory(descriptor) {
    ///     for change in transaction.changes {
    ///         if case .insert(let insert as DefaultHistoryInsert<Book>) = change {
    ///             print("new book", insert.changedPersistentIdentifier)
    ///         }
    ///     }
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// The history is kept until ``deleteHistory(_:)`` removes it. Conditions on the token bound
    /// the range read; the rest of the predicate (author, timestamp, changes) is evaluated on
    /// each transaction in that range.
    ///
    /// - Parameter descriptor: The transactions to fetch; `T` is ``DefaultHistoryTransaction``.
    /// - Returns: The transactions, oldest first unless `descriptor.sortBy` says otherwise.
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the history after the predicate's
    ///   token was deleted (discard the token); ``SwiftDataError/invalidTransactionFetchRequest``
    ///   when `T` is not ``DefaultHistoryTransaction``, the token is another store's, or the
    ///   predicate throws; `StorageError` when the store cannot be read or an entry in the
    ///   range is damaged.
    /// - Complexity: O(*k*) for the *k* transactions in the range the token conditions allow.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        checkOwner()
        let descriptor = try Self.defaultDescriptor(descriptor, operation: "fetchHistory")
        return try HistoryLog(store: store).transactions(matching: descriptor) as! [T]
    }

    /// Deletes the transactions of the store's history that `descriptor`'s predicate accepts
    /// (all of them without one), to reclaim their space once every reader has processed them.
    ///
    /// ```swift
    /// // Everything up to the token every device has processed:
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.token <= processedToken }))
    /// ```
    ///
    /// Tokens from before the newest deleted transaction expire: a fetch of the transactions
    /// after one throws ``SwiftDataError/historyTokenExpired``. Delete from the oldest up (by
    /// token or timestamp); deleting transactions in between (by author, say) expires every
    /// older token too. The models are not affected.
    ///
    /// - Parameter descriptor: The transactions to delete; its order and limit do not apply.
    /// - Throws: ``SwiftDataError/invalidTransactionFetchRequest`` when `T` is not
    ///   ``DefaultHistoryTransaction``, the token is another store's or the predicate throws;
    ///   `StorageError` when the store cannot be written.
    /// - Complexity: O(*k*) for the *k* transactions in the range the token conditions allow.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        checkOwner()
        let descriptor = try Self.defaultDescriptor(descriptor, operation: "deleteHistory")
        if let commit = try HistoryLog(store: store).delete(matching: descriptor) { commits.noteOwn(commit) }
    }

    private static func defaultDescriptor<T: HistoryTransaction>(
        _ descriptor: HistoryDescriptor<T>, operation: String
    ) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw SwiftDataError.invalidTransactionFetchRequest.with(
                message:
                    "ModelContext.\(operation) reads Cairn's own history, of DefaultHistoryTransaction; \(T.self) "
                    + "is another store's. Use HistoryDescriptor<DefaultHistoryTransaction>.")
        }
        return descriptor
    }
}

/// Writes that ride along with a save, in its write transaction: how sync records the rows it
/// applied and its position in the same commit as the changes (`Docs/Sync.md`), so each change
/// applies exactly once. Not for apps.
///
/// ```swift
/// try context.save(attaching: SaveAttachment { txn, saved in
///     for (temporary, row) in saved.inserted { try remember(temporary, row, txn) }
/// })
/// ```
package struct SaveAttachment {
    /// Called in the save's transaction after its rows, keys and edges are written and before
    /// its history entry. It may run again (after the map grows) and must write the same then.
    package let write: (borrowing WriteTransaction, SavedRows) throws -> Void

    /// An attachment.
    package init(_ write: @escaping (borrowing WriteTransaction, SavedRows) throws -> Void) {
        self.write = write
    }
}

/// What a save wrote, as a ``SaveAttachment`` sees it.
///
/// ```swift
/// let rowOfInsert = Dictionary(uniqueKeysWithValues: saved.inserted.map { ($0.temporary, $0.row) })
/// ```
package struct SavedRows {
    /// Each inserted model's temporary identifier and the row it was saved as.
    package let inserted: [(temporary: PersistentIdentifier, row: PersistentIdentifier)]
    /// The rows deleted, those the delete rules took included.
    package let deleted: [PersistentIdentifier]
}

import Foundation

/// Counts a descriptor's matches for ``ModelContext/fetchCount(_:)`` without keeping models:
/// without a predicate from the entity table's row count and the pending inserts and deletes,
/// else by running the executor over the candidates and the pending changes.
///
/// ```swift
/// let count = try FetchCounter(context: context).count(FetchDescriptor<Book>(), tables: tables)
/// ```
struct FetchCounter {
    /// The context whose pending changes count; it makes the counter for one call.
    unowned let context: ModelContext

    /// The number of models that match (the descriptor's limit and offset apply).
    func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, tables: Store.EntityTables) throws -> Int {
        let context = context
        let matching: Int
        if descriptor.predicate == nil {
            matching = try countWithoutPredicate(descriptor, tables: tables)
        } else {
            // Leaving unsaved changes out, the predicate sees the stored values.
            let images = StoredImages.unlessPendingChangesCount(descriptor, in: context)
            defer { images?.close() }
            let executor = try FetchExecutor(FetchRequest(descriptor, tables: tables), in: context, images: images)
            var stored = Set<ObjectIdentifier>()
            try executor.forEachStoredMatch(decoding: nil, stopAfter: nil) { chunk in
                stored.formUnion(chunk.map(ObjectIdentifier.init))
                return true
            }
            images?.addStatistics(to: context)
            try images?.throwLoadError()
            matching = stored.count + (try executor.pendingMatches(excluding: stored)).count
        }
        let afterOffset = max(matching - max(descriptor.fetchOffset ?? 0, 0), 0)
        return descriptor.fetchLimit.map { min(max($0, 0), afterOffset) } ?? afterOffset
    }

    /// The rows of `T`, adjusted for pending inserts and deletes, without loading any model.
    private func countWithoutPredicate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, tables: Store.EntityTables
    ) throws -> Int {
        let rows = try context.store.read { txn in try tables.rowCount(in: txn) }
        guard descriptor.includePendingChanges else { return rows }
        let inserted = context.insertedModelsArray.count { $0 is T }
        // Deleted models and those their cascades take (stored or inserted: each is counted once
        // among the rows or the inserts).
        let deleted = CascadedDeletes(context.deletedModelsArray, rows: context.rows).models.count { $0 is T }
        return rows + inserted - deleted
    }
}

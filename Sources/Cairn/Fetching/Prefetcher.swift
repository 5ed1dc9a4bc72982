import Foundation

/// Loads the relationships a fetch names in `relationshipKeyPathsForPrefetching` for all its
/// models at once: one relationship per read transaction, every owner's edges with one cursor,
/// and the records of the targets the context does not hold loaded as they are met (see
/// ``RelationshipReader``), instead of one read per model when each relationship is first read.
///
/// ```swift
/// let books = try context.fetch(FetchDescriptor<Book>())
/// try Prefetcher(store: context.store, rows: context.rows).prefetch([\Book.author], of: books)
/// ```
struct Prefetcher {
    let store: Store
    /// The context's row loader, which reads the edges and registers the targets.
    let rows: RowLoader

    /// Loads the given relationships of `models` that are not loaded yet. Targets become
    /// registered models (or are loaded into the ones registered), and each owner's relationship
    /// is set in its stored order.
    func prefetch(_ keyPaths: [AnyKeyPath], of models: [any PersistentModel], tables: Store.EntityTables) throws {
        for keyPath in keyPaths {
            guard let relationship = tables.entity.relationships.first(where: { $0.keyPath == keyPath }) else {
                continue
            }
            let owners = models.filter { $0.persistentModelID.rowID != nil && !relationship.access.isLoaded($0) }
            guard !owners.isEmpty else { continue }
            let targets = try rows.storedTargets(
                relationship, owners: owners.map { $0.persistentModelID.rowID! }, tables: tables, loadingRecords: true)
            for (owner, loaded) in zip(owners, targets) { relationship.access.load(owner, loaded) }
        }
    }
}

import Foundation

/// Answers fetches that leave the context's unsaved changes out (`includePendingChanges: false`
/// while the context has changes): the predicate and the sort are evaluated on images of the
/// stored rows (``StoredImages``), whose values — and whose related models' values — are the
/// stored ones; the results are the context's instances of the matching rows.
///
/// ```swift
/// var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.year > 2000 })
/// descriptor.includePendingChanges = false
/// let stored = try StoredOnlyFetcher(context: context).fetch(FetchRequest(descriptor, tables: tables))
/// ```
struct StoredOnlyFetcher {
    /// The context whose instances the results are; it makes the fetcher for one call.
    unowned let context: ModelContext

    /// The models that match, in the descriptor's order, as this context's instances: the
    /// instance it holds, or the image itself for a row it holds none of (its attributes are the
    /// stored values, read once). Prefetching is the caller's (`fetch(_:)` prefetches for either
    /// kind of page).
    func fetch(_ request: FetchRequest) throws -> [any PersistentModel] {
        let context = context
        let images = StoredImages(of: context)
        defer { images.close() }
        let executor = try FetchExecutor(request, in: context, images: images)
        let found = FetchResults.ordered(try executor.matches(), by: executor)
        images.addStatistics(to: context)
        try images.throwLoadError()
        var page: [any PersistentModel] = []
        page.reserveCapacity(found.count)
        for image in found {
            let row = image.persistentModelID.rowID!
            if let held = context.identity.model(entity: request.tables.ordinal, row: row) {
                page.append(held)
            } else {
                StoredImages.adopt(image, into: context)
                page.append(image)
            }
        }
        return page
    }
}

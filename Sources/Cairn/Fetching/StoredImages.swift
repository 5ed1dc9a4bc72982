import Foundation

/// Models that hold what the store holds, for a fetch that leaves its context's unsaved changes
/// out (`includePendingChanges: false`): the predicate and the sort are evaluated on these, never
/// on the context's instances, whose values may be unsaved.
///
/// They are not the context's models. They have an identity map of their own (one image per row),
/// their faults and relationships load through this object (a relationship's targets are more
/// images, as stored), and nothing they do reaches the context: no change is tracked, no inverse
/// maintained. A fetch makes the images it needs, evaluates, and lets them go; a match the context
/// holds no instance of yet becomes the context's (``adopt(_:into:)``), since its attributes are
/// the stored values the context would read anyway.
///
/// ```swift
/// let images = StoredImages(of: context)
/// defer { images.close() }
/// let executor = FetchExecutor(request, in: context, images: images)
/// ```
final class StoredImages: _ModelLoader {
    /// Reads rows into images, with the images' identity map.
    let rows: RowLoader
    /// What the images reach this object through (emptied by ``close()``).
    private let link: _ContextLink
    /// The first failure to load an image's property: the fetch fails with it, since a predicate
    /// evaluated on a placeholder could match what the store does not hold.
    private(set) var loadError: (any Error)?

    /// Images of the rows of `context`'s store, whose models' observation probe they share.
    init(of context: ModelContext) {
        link = _ContextLink(sharing: context.link.probe)
        rows = RowLoader(store: context.store, link: link)
        link.connect(self)
    }

    /// Images for a fetch with `descriptor` in `context` when it leaves unsaved changes out and
    /// the context has some; `nil` when the context's instances hold the values to evaluate on.
    static func unlessPendingChangesCount<T>(
        _ descriptor: FetchDescriptor<T>, in context: ModelContext
    ) -> StoredImages? {
        descriptor.includePendingChanges || !context.hasChanges ? nil : StoredImages(of: context)
    }

    /// Ends the images' link: an image kept past the fetch reads no more.
    func close() { link.disconnect() }

    /// Counts what reading the images read among the context's reads.
    func addStatistics(to context: ModelContext) {
        context.statistics.readTransactions += rows.statistics.readTransactions
        context.statistics.recordLoads += rows.statistics.recordLoads
        rows.statistics = RowLoader.Statistics()
    }

    /// Throws the first failure to load a property of an image, if any.
    func throwLoadError() throws {
        if let loadError { throw loadError }
    }

    /// Makes `image`, a stored row's image, the context's instance of that row: it keeps its
    /// attributes (the stored values), its relationships are unloaded (they held images), and it
    /// joins the context's identity map. The caller checked that the context holds no instance of
    /// the row.
    static func adopt(_ image: any PersistentModel, into context: ModelContext) {
        let state = image._$state
        guard let id = state.persistentIdentifier, let row = id.rowID,
            let tables = context.store.entitiesByName[id.entity]
        else { return }
        for relationship in tables.entity.relationships { relationship.access.unload(image) }
        state.attach(to: context.link, reporting: tables.keys.attributeMask)
        context.identity.register(image, entity: tables.ordinal, row: row)
    }

    // MARK: _ModelLoader

    /// Loads an image's property from the store. A failure leaves a placeholder for the getter
    /// and is kept for ``throwLoadError()``.
    func fulfill(_ model: any PersistentModel, _ index: Int) {
        let store = rows.store
        guard let id = model._$state.persistentIdentifier, let tables = store.entitiesByName[id.entity],
            let rowID = id.rowID
        else {
            preconditionFailure("StoredImages.fulfill: an image is always a stored row of the store's schema")
        }
        do {
            try rows.loadProperty(index, of: model, rowID: rowID, tables: tables)
        } catch {
            if loadError == nil { loadError = error }
            LoadFailures.fillPlaceholder(model, index, tables: tables)
        }
    }

    /// Images are read, never changed: nothing to track.
    func modelDidChange(_ model: any PersistentModel) {}

    /// Images are read, never changed: nothing to keep in step.
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel]
    ) {}

    /// Images are read, never changed: their lists hold what the store holds.
    func keepFirstOccurrences(_ model: any PersistentModel, _ index: Int) {}

    /// Loading a relationship sets it without reporting it.
    var isUpdatingInverses: Bool { true }
}

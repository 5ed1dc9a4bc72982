import Foundation

/// What a fetch reads, as GRDB's `DatabaseRegion` says of a request: the entities whose rows it
/// returns and the attributes its predicate and sort read. A change outside the region cannot
/// change the fetch's results, so a commit touches a live query only where it meets its region.
///
/// A predicate or sort that reads through a relationship reads other entities' rows: the region
/// then takes in every entity (``readsOtherEntities``).
///
/// ```swift
/// let region = FetchRegion(request)
/// if region.reads(entity: row.entity, fields: row.fields, inserted: row.inserted, unnamed: row.unnamed) { … }
/// ```
struct FetchRegion {
    /// The entities whose rows the fetch returns: the fetched one and those that inherit from it.
    let entities: Set<InternedName>
    /// The names of the fetched entity's attributes that the predicate and the sort read.
    let fields: Set<String>
    /// Whether the predicate or the sort reads other entities' properties (through a
    /// relationship), so that a change to any entity can change the results.
    let readsOtherEntities: Bool

    init(_ request: FetchRequest) {
        let tables = request.tables
        entities = Set(tables.descendants.map(\.entityName))
        var keyPaths = Set<AnyKeyPath>()
        if let expression = request.predicate?.expression {
            PredicatePlanner.collectKeyPaths(expression, into: &keyPaths)
        }
        let sortKeyPaths = request.sortBy.map(\.keyPath)
        keyPaths.formUnion(sortKeyPaths.compactMap { $0 })
        keyPaths.remove(tables.identifierKeyPath)
        let attributes = tables.entity.attributes.filter { keyPaths.contains($0.keyPath) }
        fields = Set(attributes.map(\.name))
        readsOtherEntities = attributes.count < keyPaths.count || sortKeyPaths.contains { $0 == nil }
    }

    /// Whether a change of a row of `entity` can change which models match and where they sort:
    /// a row of another entity when the fetch reads through relationships; a row of a fetched
    /// entity that is new, or changed in a field the region reads (or in fields the change does
    /// not name).
    func reads(entity: InternedName, fields changed: Set<String>, inserted: Bool, unnamed: Bool) -> Bool {
        guard entities.contains(entity) else { return readsOtherEntities }
        return inserted || unnamed || !changed.isDisjoint(with: fields)
    }

    /// Whether rows of `entity` are among those the fetch returns.
    func returns(_ entity: InternedName) -> Bool { entities.contains(entity) }
}

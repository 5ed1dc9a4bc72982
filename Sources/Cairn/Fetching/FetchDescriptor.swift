import Foundation

/// What to fetch: a model type, which of its instances, in what order, and how many, as in
/// SwiftData.
///
/// ```swift
/// var descriptor = FetchDescriptor<Book>(
///     predicate: #Predicate { $0.year >= 1800 },
///     sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)])
/// descriptor.fetchLimit = 10
/// let books = try context.fetch(descriptor)
/// ```
// Sendable, as SwiftData's is; unchecked because its predicate and sort descriptors are Sendable, and its
// key paths (`PartialKeyPath`, not marked Sendable) are immutable objects once made, so a
// descriptor built on one actor can be used on another.
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// Which models to fetch; all when `nil`.
    ///
    /// ```swift
    /// descriptor.predicate = #Predicate { $0.title.contains("Walden") }
    /// ```
    public var predicate: Predicate<T>?
    /// The order of the results, most significant first; the store's order when empty.
    ///
    /// ```swift
    /// descriptor.sortBy = [SortDescriptor(\.title, order: .reverse)]
    /// ```
    public var sortBy: [SortDescriptor<T>]
    /// The most results to return; all when `nil`.
    ///
    /// ```swift
    /// descriptor.fetchLimit = 20
    /// ```
    public var fetchLimit: Int?
    /// How many leading results to skip; none when `nil`.
    ///
    /// ```swift
    /// descriptor.fetchOffset = 40
    /// ```
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count (they do by default).
    ///
    /// ```swift
    /// descriptor.includePendingChanges = false   // only what is saved
    /// ```
    public var includePendingChanges = true
    /// The attributes to read into fetched models; all when empty. Others stay unloaded and are
    /// read from the store when first used (one read per model), so list what the code reads.
    /// Attributes the predicate or the sort descriptors use are read too; relationships are
    /// always read on first use (see ``relationshipKeyPathsForPrefetching``).
    ///
    /// ```swift
    /// descriptor.propertiesToFetch = [\.title, \.year]
    /// ```
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships to load for every fetched model in one read each: every model's edges with
    /// one cursor and the targets' records with them, instead of one read per model when each
    /// relationship is first used.
    ///
    /// ```swift
    /// descriptor.relationshipKeyPathsForPrefetching = [\.books]
    /// ```
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    ///
    /// ```swift
    /// let all = FetchDescriptor<Book>()
    /// ```
    @inlinable
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension Int {
    /// `self + other`, or `Int.max` when that overflows (a `fetchLimit` of `Int.max` after an offset).
    func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

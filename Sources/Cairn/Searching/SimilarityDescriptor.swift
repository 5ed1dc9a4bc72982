import Foundation

/// A search for the models whose vector (an `@Attribute(.vector(…))` attribute) is nearest a
/// given one, optionally narrowed by a predicate, nearest first.
///
/// The search goes through the attribute's approximate index (an HNSW graph) unless
/// ``isExact`` asks for every vector to be compared; ``searchEffort`` trades speed for recall.
///
/// ```swift
/// @Model final class Photo {
///     var album: String
///     @Attribute(.vector(dimensions: 512, metric: .cosine)) var embedding: [Float]
/// }
///
/// let descriptor = SimilarityDescriptor<Photo>(
///     nearest: queryEmbedding, in: \.embedding,
///     predicate: #Predicate { $0.album == "Holidays" },
///     fetchLimit: 10)
/// for result in try context.search(descriptor) {
///     print(result.model.album, result.distance)
/// }
/// ```
// Sendable for the reason `FetchDescriptor` is: its predicate is, and its key path is
// immutable once made.
public struct SimilarityDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// The vector to find the nearest of, as long as the attribute's declaration says.
    ///
    /// ```swift
    /// descriptor.vector = try embedder.embed("sunset over water")
    /// ```
    public var vector: [Float]
    /// The `.vector` attribute to compare; `nil` when the type has exactly one.
    ///
    /// ```swift
    /// descriptor.attribute = \Photo.embedding
    /// ```
    public var attribute: PartialKeyPath<T>?
    /// What the models found must also satisfy, evaluated on each model (its unsaved changes
    /// included), nearest first, until ``fetchLimit`` of them do.
    ///
    /// ```swift
    /// descriptor.predicate = #Predicate { !$0.isHidden }
    /// ```
    public var predicate: Predicate<T>?
    /// How many models to return (k): the nearest this many that satisfy the predicate.
    ///
    /// ```swift
    /// descriptor.fetchLimit = 20
    /// ```
    public var fetchLimit: Int
    /// Whether to compare every stored vector (exact, and as slow as the collection is large)
    /// instead of walking the approximate index (fast, and finding nearly all of the nearest:
    /// `Docs/Benchmarks.md` gives its recall).
    ///
    /// ```swift
    /// descriptor.isExact = true
    /// ```
    public var isExact: Bool
    /// How many candidates the approximate search keeps as it walks the graph (HNSW's *ef*);
    /// `nil` for 64, or ``fetchLimit`` when that is more. More finds more of the true nearest,
    /// more slowly. A predicate that few models satisfy makes the search widen by itself.
    ///
    /// ```swift
    /// descriptor.searchEffort = 200   // recall closer to 1
    /// ```
    public var searchEffort: Int?

    /// A search for the `fetchLimit` models nearest `vector` in `attribute` (the type's only
    /// `.vector` attribute when `nil`) that satisfy `predicate`.
    ///
    /// ```swift
    /// let descriptor = SimilarityDescriptor<Photo>(nearest: embedding, fetchLimit: 5)
    /// ```
    public init(
        nearest vector: [Float], in attribute: PartialKeyPath<T>? = nil, predicate: Predicate<T>? = nil,
        fetchLimit: Int = 10, isExact: Bool = false, searchEffort: Int? = nil
    ) {
        self.vector = vector
        self.attribute = attribute
        self.predicate = predicate
        self.fetchLimit = fetchLimit
        self.isExact = isExact
        self.searchEffort = searchEffort
    }
}

/// A model a similarity search found, with its distance from the vector sought.
///
/// ```swift
/// let nearest = try context.search(descriptor)[0]
/// print(nearest.model.album, nearest.distance)
/// ```
public struct SimilarityResult<T: PersistentModel> {
    /// The model found.
    ///
    /// ```swift
    /// print(result.model.album)
    /// ```
    public let model: T
    /// Its distance by the attribute's metric: for `.cosine`, 1 − the cosine similarity (0 to
    /// 2); for `.euclidean`, the straight-line distance.
    ///
    /// ```swift
    /// let similarity = 1 - result.distance   // a cosine index
    /// ```
    public let distance: Double
}

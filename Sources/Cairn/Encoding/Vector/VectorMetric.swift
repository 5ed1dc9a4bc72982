/// How a vector attribute's vectors are compared (``Schema/Attribute/Option/vector(dimensions:metric:)``).
///
/// ```swift
/// @Attribute(.vector(dimensions: 3, metric: .euclidean)) var position: [Float]
/// ```
public enum VectorMetric: String, Sendable, Hashable, CaseIterable, Codable {
    /// One minus the cosine of the angle between two vectors: 0 for the same direction, 1 at
    /// right angles, 2 for opposite ones; a vector's length does not count. What sentence and
    /// image embeddings are compared by.
    case cosine
    /// The straight-line distance between two points.
    case euclidean
}

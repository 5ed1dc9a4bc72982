/// The length and metric a vector attribute declares.
struct VectorShape: Hashable, Sendable {
    let dimensions: Int
    let metric: VectorMetric

    /// The most numbers a vector attribute may declare.
    static let maximumDimensions = 16_384
}

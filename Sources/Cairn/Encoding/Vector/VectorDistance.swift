/// How far apart two vectors of one index are, as the index compares them, and the form
/// vectors are kept and sought in.
///
/// A cosine index keeps unit vectors, so its distance is `1 − a·b`; a Euclidean one compares
/// squared distances (the same order, no square root) and reports their roots. Vectors are read
/// as little-endian `f32`s at any alignment (``VectorLayout``'s nodes, or a query's array). A NaN
/// (damaged bytes) counts as farther than everything.
///
/// ```swift
/// let distance = VectorDistance(metric: .cosine, dimensions: 384)
/// let query = distance.prepared(embedding)
/// let d = query.withUnsafeBytes { distance($0.baseAddress!, stored) }
/// ```
struct VectorDistance: Sendable {
    let metric: VectorMetric
    let dimensions: Int

    /// The distance the index orders by, between the vectors at `a` and `b`.
    @inline(__always)
    func callAsFunction(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Float {
        let distance: Float
        switch metric {
        case .cosine: distance = 1 - Self.dot(a, b, count: dimensions)
        case .euclidean: distance = Self.squaredDistance(a, b, count: dimensions)
        }
        return distance.isNaN ? .infinity : distance
    }

    /// The distance a user sees for one the index ordered by.
    func reported(_ distance: Float) -> Double {
        switch metric {
        case .cosine: Double(distance)
        case .euclidean: Double(distance).squareRoot()
        }
    }

    /// `vector` in the form the index keeps: of unit length for cosine (a zero vector stays
    /// zero, at distance 1 from every other), as it is for Euclidean.
    func prepared(_ vector: [Float]) -> [Float] {
        guard metric == .cosine else { return vector }
        let length = vector.withUnsafeBytes { Self.dot($0.baseAddress!, $0.baseAddress!, count: vector.count) }
            .squareRoot()
        guard length > 0, length.isFinite else { return vector }
        return vector.map { $0 / length }
    }

    static func dot(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var (first, second) = (SIMD8<Float>(), SIMD8<Float>())
        var index = 0
        while index + 16 <= count {
            first += load8(a, index) * load8(b, index)
            second += load8(a, index + 8) * load8(b, index + 8)
            index += 16
        }
        if index + 8 <= count {
            first += load8(a, index) * load8(b, index)
            index += 8
        }
        var sum = (first + second).sum()
        while index < count {
            sum += load(a, index) * load(b, index)
            index += 1
        }
        return sum
    }

    static func squaredDistance(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var (first, second) = (SIMD8<Float>(), SIMD8<Float>())
        var index = 0
        while index + 16 <= count {
            let near = load8(a, index) - load8(b, index)
            let far = load8(a, index + 8) - load8(b, index + 8)
            first += near * near
            second += far * far
            index += 16
        }
        if index + 8 <= count {
            let difference = load8(a, index) - load8(b, index)
            first += difference * difference
            index += 8
        }
        var sum = (first + second).sum()
        while index < count {
            let difference = load(a, index) - load(b, index)
            sum += difference * difference
            index += 1
        }
        return sum
    }

    // Little-endian hosts only (every platform Swift runs Cairn on): the stored bits are the
    // host's.
    @inline(__always)
    private static func load8(_ base: UnsafeRawPointer, _ index: Int) -> SIMD8<Float> {
        base.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func load(_ base: UnsafeRawPointer, _ index: Int) -> Float {
        base.loadUnaligned(fromByteOffset: index &* 4, as: Float.self)
    }
}

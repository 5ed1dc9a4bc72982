/// A small seeded random number generator (SplitMix64), so a failing randomized test can name the
/// seed that reproduces it.
///
/// (Passing the zero-sized `SystemRandomNumberGenerator` `inout` through generic code also trips
/// ThreadSanitizer's instrumentation in this toolchain; a generator with state does not.)
struct SeededGenerator: RandomNumberGenerator {
    private(set) var state: UInt64
    let seed: UInt64

    init(seed: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        self.seed = seed
        self.state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

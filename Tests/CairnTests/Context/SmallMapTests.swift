import Testing

@testable import Cairn

/// The small map of a schema's entities: found by comparing keys while there are few, by hashing
/// beyond that; the same answers either way.
@Suite struct SmallMapTests {
    @Test(arguments: [0, 1, 5, SmallMap<Int, String>.linearLimit, SmallMap<Int, String>.linearLimit + 1, 100])
    func everyKeyFindsItsValueAndNoOtherKeyFindsOne(count: Int) {
        let map = SmallMap((0..<count).map { ($0 * 7, "value \($0)") })
        for key in 0..<count { #expect(map[key * 7] == "value \(key)") }
        for absent in [-1, 1, count * 7, 3] where absent % 7 != 0 || absent >= count * 7 || absent < 0 {
            #expect(map[absent] == nil, "key \(absent) of \(count)")
        }
    }
}

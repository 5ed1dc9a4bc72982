import Foundation
import Testing

@testable import Cairn

@Suite struct PendingChangesTests {
    func codes(_ list: ModelList) -> [Int] { list.array.map { ($0 as! Gauge).code } }

    @Test func listsKeepChangeOrderAndEachModelOnce() {
        var pending = PendingChanges()
        let (a, b, c) = (Gauge(code: 1, reading: 0), Gauge(code: 2, reading: 0), Gauge(code: 3, reading: 0))
        #expect(!pending.hasChanges)
        pending.markChanged(c)
        pending.markChanged(a)
        pending.markChanged(c)
        pending.insert(b)
        #expect(codes(pending.changed) == [3, 1])
        #expect(codes(pending.inserted) == [2] && pending.hasChanges)
        #expect(pending.delete(a) && !pending.delete(a))
        #expect(pending.undelete(a) && !pending.undelete(a))
        pending.markKeyChanged(a)
        #expect(pending.keyChanged.contains(a) && !pending.changed.contains(b))
        pending.removeAll()
        #expect(!pending.hasChanges && pending.changed.isEmpty)
    }

    @Test func removalsKeepTheOrderOfWhatRemains() {
        var list = ModelList(slot: 0)
        let models = (0..<200).map { Gauge(code: $0, reading: 0) }
        for model in models { list.append(model) }
        for model in models where model.code % 3 != 0 {
            let removed = list.remove(model)
            #expect(removed)
        }
        #expect(list.count == 67)
        #expect(codes(list) == (0..<200).filter { $0 % 3 == 0 })
        list.append(models[1])
        #expect(list.array.last === models[1] && list.contains(models[1]))
    }

    @Test func anUnchangedListHandsOutItsOwnArrayAndARemovedPositionIsAHole() {
        var list = ModelList(slot: 1)
        let models = (0..<10).map { Gauge(code: $0, reading: 0) }
        for model in models { list.append(model) }
        let first = list.array.withUnsafeBufferPointer { $0.baseAddress }
        let second = list.array.withUnsafeBufferPointer { $0.baseAddress }
        #expect(first == second, "reading the list of a save's models copies nothing")
        let removed = list.remove(models[4])
        #expect(removed)
        #expect(list.model(at: 4) == nil && list.model(at: 5) === models[5] && list.endPosition == 10)
        #expect(codes(list) == [0, 1, 2, 3, 5, 6, 7, 8, 9] && Array(list).count == 9)
        let appended = list.append(models[4])
        #expect(appended && list.model(at: 10) === models[4] && list.model(at: 4) == nil)
    }

    @Test func aPositionLeftByADroppedListMeansNothing() {
        let models = (0..<5).map { Gauge(code: $0, reading: 0) }
        var first = ModelList(slot: 0)
        for model in models { first.append(model) }
        // A new list in the same slot: the models' states still hold the old positions.
        var second = ModelList(slot: 0)
        #expect(!second.contains(models[3]))
        #expect(second.append(models[3]) && !second.append(models[3]))
        #expect(second.contains(models[3]) && !second.contains(models[0]) && second.count == 1)
        #expect(second.remove(models[3]) && !second.remove(models[3]) && second.isEmpty)
        // The first list no longer finds the model whose position the second one overwrote, as
        // a list that was dropped should not; the others are still where it put them.
        #expect(!first.contains(models[3]) && first.contains(models[4]))
    }

    @Test func theListsKeepTheirModelsAlive() {
        var pending = PendingChanges()
        weak var released: Gauge?
        do {
            let gauge = Gauge(code: 1, reading: 0)
            released = gauge
            pending.markChanged(gauge)
        }
        #expect(released != nil, "a changed model lives until it is saved or rolled back")
        pending.removeAll()
        #expect(released == nil)
    }
}

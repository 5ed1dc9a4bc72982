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
        var list = ModelList()
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

import Foundation
import Testing

@testable import Cairn

@Suite struct StorageTransactionTests {
    @Test func putThenGetReturnsTheValueAndAbsentKeysAreNil() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in
            try txn.put([1, 2, 3], for: key(1), in: table)
            try txn.put([], for: key(2), in: table)
        }
        try store.environment.read { txn throws in
            #expect(try txn.get(key(1), in: table) == [1, 2, 3])
            #expect(try txn.get(key(2), in: table) == [])
            #expect(try txn.get(key(3), in: table) == nil)
            #expect(try txn.contains(key(1), in: table))
            #expect(try !txn.contains(key(3), in: table))
            #expect(try txn.withValue(for: key(1), in: table) { $0.count } == 3)
        }
    }

    @Test func putOptionsReportWhenTheyStopAPut() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in
            #expect(try txn.put([1], for: key(5), in: table, options: .noOverwrite))
            #expect(try !txn.put([2], for: key(5), in: table, options: .noOverwrite))
            #expect(try txn.put([3], for: key(6), in: table, options: .append))
            #expect(try !txn.put([4], for: key(1), in: table, options: .append))
            // A stopped put does not poison the transaction: later writes still commit.
            try txn.put([5], for: key(7), in: table)
        }
        try store.environment.read { txn throws in
            #expect(try txn.get(key(5), in: table) == [1])
            #expect(try txn.get(key(1), in: table) == nil)
            #expect(try txn.get(key(7), in: table) == [5])
        }
    }

    @Test func deleteRemovesKeysAndReportsAbsence() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in
            for n in 0..<10 { try txn.put([UInt8(n)], for: key(n), in: table) }
        }
        try store.environment.write { txn throws in
            #expect(try txn.delete(key(3), in: table))
            #expect(try !txn.delete(key(3), in: table))
            #expect(try txn.get(key(3), in: table) == nil)  // a write sees its own writes
        }
        try store.environment.read { txn throws in
            #expect(try txn.count(of: table) == 9)
            #expect(try txn.get(key(3), in: table) == nil)
        }
        try store.environment.write { txn throws in try txn.removeAll(from: table) }
        try store.environment.read { txn throws in #expect(try txn.count(of: table) == 0) }
    }

    @Test func duplicatesAreSortedCountedAndDeletedOneByOne() throws {
        let store = try TemporaryStore()
        let table = try store.table("d", flags: .duplicateSort)
        try store.environment.write { txn throws in
            for value in [5, 1, 3, 9, 7] { try txn.put(key(value), for: [0xAA], in: table) }
            try txn.put(key(1), for: [0xBB], in: table)
            #expect(try !txn.put(key(3), for: [0xAA], in: table, options: .noDuplicateData))
        }
        try store.environment.read { txn throws in
            var values: [Int] = []
            try txn.forEachDuplicate(of: [0xAA], in: table) {
                values.append(number($0)); return true
            }
            #expect(values == [1, 3, 5, 7, 9])
            #expect(try txn.duplicateCount(of: [0xAA], in: table) == 5)
            #expect(try txn.duplicateCount(of: [0xCC], in: table) == 0)
            #expect(try txn.count(of: table) == 6)
            #expect(try txn.get([0xAA], in: table) == key(1))
        }
        try store.environment.write { txn throws in
            #expect(try txn.delete([0xAA], value: key(5), in: table))
            #expect(try !txn.delete([0xAA], value: key(5), in: table))
        }
        try store.environment.read { txn throws in
            var values: [Int] = []
            try txn.forEachDuplicate(of: [0xAA], in: table) {
                values.append(number($0)); return values.count < 2
            }
            #expect(values == [1, 3])  // the closure stopped the walk
            #expect(try txn.duplicateCount(of: [0xAA], in: table) == 4)
        }
    }

    @Test func fixedSizeDuplicatesAreReadInPageSizedBatches() throws {
        let store = try TemporaryStore()
        let table = try store.table("f", flags: [.duplicateSort, .duplicateFixed])
        let count = 5000
        try store.environment.write { txn throws in
            for n in 0..<count { try txn.put(key(n), for: [7], in: table, options: .appendDuplicate) }
            try txn.put(key(1), for: [8], in: table)
        }
        try store.environment.read { txn throws in
            var values: [Int] = []
            var batches = 0
            try txn.forEachBatchOfFixedDuplicates(of: [7], in: table) { batch in
                batches += 1
                #expect(batch.count % 8 == 0)
                for offset in stride(from: 0, to: batch.count, by: 8) {
                    values.append(number(UnsafeRawBufferPointer(rebasing: batch[offset..<offset + 8])))
                }
                return true
            }
            #expect(values == Array(0..<count))
            #expect(batches > 1 && batches < count / 100)  // whole pages at a time, not one value per call
        }
    }

    @Test func aThrowInsideWriteAbortsEverythingAndRethrowsTheFirstError() throws {
        struct Stop: Error, Equatable { let n: Int }
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in try txn.put([1], for: key(1), in: table) }
        #expect(throws: Stop(n: 1)) {
            try store.environment.write { txn throws in
                try txn.put([2], for: key(1), in: table)
                try txn.put([2], for: key(2), in: table)
                try txn.removeAll(from: table)
                throw Stop(n: 1)
            }
        }
        try store.environment.read { txn throws in
            #expect(try txn.get(key(1), in: table) == [1])
            #expect(try txn.get(key(2), in: table) == nil)
            #expect(try txn.count(of: table) == 1)
        }
    }

    @Test func invalidKeysAreTypedErrorsThatDoNotPoisonTheTransaction() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in
            #expect { try txn.put([1], for: [], in: table) } throws: { ($0 as? StorageError)?.code == .invalidSize }
            #expect { try txn.put([1], for: [UInt8](repeating: 1, count: 512), in: table) } throws: {
                ($0 as? StorageError)?.code == .invalidSize
            }
            try txn.put([1], for: [UInt8](repeating: 1, count: 511), in: table)
        }
        try store.environment.read { txn throws in #expect(try txn.count(of: table) == 1) }
    }

    @Test func readsSeeASnapshotFromTheirStart() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in try txn.put([1], for: key(1), in: table) }
        try store.environment.read { txn throws in
            // Another thread commits while this snapshot is open; the snapshot does not change.
            let thread = Thread {
                _ = try! store.environment.write { txn throws in try txn.put([2], for: key(1), in: table) }
            }
            thread.start()
            while !thread.isFinished { usleep(1000) }
            #expect(try txn.get(key(1), in: table) == [1])
        }
        try store.environment.read { txn throws in #expect(try txn.get(key(1), in: table) == [2]) }
    }
}

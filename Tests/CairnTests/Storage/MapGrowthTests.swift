import Foundation
import Testing

@testable import Cairn

@Suite struct MapGrowthTests {
    @Test func aMillionRecordsFromAOneMebibyteMapLoseNothing() throws {
        let store = try TemporaryStore { $0.initialMapSize = 1 << 20 }
        let table = try store.table()
        let total = 1_000_000
        let perTransaction = 100_000
        #expect(store.environment.info.mapSize == 1 << 20)
        for start in stride(from: 0, to: total, by: perTransaction) {
            try store.environment.write { txn in
                for n in start..<start + perTransaction {
                    try txn.put(key(n &* 7919 % total), for: key(n), in: table, options: .append)
                }
            }
        }
        #expect(store.environment.info.mapSize >= 16 << 20, "the map grew by doubling from 1 MiB")
        try store.environment.read { txn throws in
            #expect(try txn.count(of: table) == total)
            var expected = 0
            try txn.scan(table) { key, value in
                guard number(key) == expected, number(value) == expected &* 7919 % total else { return false }
                expected += 1
                return true
            }
            #expect(expected == total, "every record is present, in order, with its value")
        }
    }

    @Test func theConfiguredMaximumIsATypedErrorAndEarlierCommitsSurvive() throws {
        let store = try TemporaryStore {
            $0.initialMapSize = 1 << 20
            $0.maximumMapSize = 4 << 20
        }
        let table = try store.table()
        let value = [UInt8](repeating: 0xAB, count: 1000)
        var committed = 0
        var failure: (any Error)?
        while failure == nil && committed < 10_000 {
            do {
                try store.environment.write { txn in
                    for n in committed..<committed + 100 { try txn.put(value, for: key(n), in: table) }
                }
                committed += 100
            } catch {
                failure = error
            }
        }
        let error = try #require(failure as? StorageError)
        #expect(error.code == .maximumSizeReached)
        #expect(error.message.contains("maximum size"))
        #expect(store.environment.info.mapSize == 4 << 20)
        try store.environment.read { txn throws in
            #expect(try txn.count(of: table) == committed)
            #expect(try txn.get(key(committed - 1), in: table) == value)
        }
        // Deleting data makes room again.
        try store.environment.write { txn in for n in 0..<committed / 2 { try txn.delete(key(n), in: table) } }
        try store.environment.write { txn in try txn.put(value, for: key(committed), in: table) }
    }

    @Test func aSecondProcessReadsWholeSnapshotsWhileThisOneGrowsTheMap() throws {
        let store = try TemporaryStore { $0.initialMapSize = 1 << 20 }
        let table = try store.table("g")
        _ = try store.table("t")
        let reader = try HelperProcess(["reader", store.path, "3"])
        let deadline = Date().addingTimeInterval(2.5)
        var count: UInt64 = 0
        let padding = [UInt8](repeating: 7, count: 200)
        while Date() < deadline && store.environment.info.mapSize < 64 << 20 {
            // The closure may run again after the map grows, so it changes nothing outside itself.
            let start = count
            try store.environment.write { txn in
                for n in start + 1...start + 2000 { try txn.put(padding, for: key(Int(n)), in: table) }
                try txn.put(
                    withUnsafeBytes(of: (start + 2000).bigEndian) { Array($0) }, for: Array("count".utf8), in: table)
            }
            count = start + 2000
        }
        let result = reader.waitForExit()
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        let words = result.output.split(separator: " ")
        #expect(words.first == "reads")
        let readerMap = words.count == 4 ? Int(words[3].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 : 0
        #expect(store.environment.info.mapSize > 8 << 20, "this process grew the map")
        #expect(readerMap > 1 << 20, "the reader absorbed the other process's growth")
    }
}

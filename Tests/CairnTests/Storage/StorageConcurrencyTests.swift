import Foundation
import Testing

@testable import Cairn

@Suite struct StorageConcurrencyTests {
    /// Each write moves amounts between accounts; a reader that saw part of a write would see
    /// another total.
    @Test(.timeLimit(.minutes(2)))
    func readersOnSeveralThreadsSeeOnlyWholeSnapshots() async throws {
        let store = try TemporaryStore { $0.initialMapSize = 1 << 20 }
        let table = try store.table()
        let accounts = 200
        let total = accounts * 1000
        try store.environment.write { txn in
            for account in 0..<accounts { try txn.put(key(1000), for: key(account), in: table) }
        }
        let environment = store.environment
        let stop = Flag()
        let readers = (0..<4).map { _ in
            TestThread.detached {
                var snapshots = 0
                var torn = 0
                while !stop.isSet {
                    let sum = try! environment.read { txn in
                        var sum = 0
                        try txn.scan(table) { _, value in
                            sum += number(value); return true
                        }
                        return sum
                    }
                    if sum != total { torn += 1 }
                    snapshots += 1
                }
                return (snapshots, torn)
            }
        }
        for round in 0..<300 {
            try environment.write { txn in
                for move in 0..<20 {
                    let from = (round * 31 + move * 7) % accounts, to = (round * 17 + move * 13 + 1) % accounts
                    guard from != to else { continue }
                    let a = number(try txn.get(key(from), in: table)!), b = number(try txn.get(key(to), in: table)!)
                    let amount = min(a, (round + move) % 50)
                    try txn.put(key(a - amount), for: key(from), in: table)
                    try txn.put(key(b + amount), for: key(to), in: table)
                }
            }
        }
        stop.set()
        for reader in readers {
            let (snapshots, torn) = reader.join()
            #expect(snapshots > 0)
            #expect(torn == 0)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func tenThousandWritesFromAHundredTasksFinishWithoutAHang() async throws {
        let store = try TemporaryStore()
        let table = try store.table()
        let environment = store.environment
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<100 {
                group.addTask {
                    for n in 0..<100 {
                        let id = task * 100 + n
                        try await environment.writeOnWriterThread { txn in
                            try txn.put(key(id), for: key(id), in: table)
                            // A read inside the write sees the write so far.
                            let seen = try txn.get(key(id), in: table)
                            precondition(seen == key(id))
                        }
                        if n % 10 == 0 {
                            _ = try environment.read { txn in try txn.get(key(id), in: table) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try environment.read { txn throws in
            #expect(try txn.count(of: table) == 10_000)
        }
        #expect(environment.info.lastTransactionID >= 10_000)
    }

    @Test func syncWritesFromManyThreadsAreSerialised() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        let environment = store.environment
        let threads = (0..<8).map { t in
            TestThread.detached {
                for n in 0..<200 {
                    try! environment.write { txn in
                        let current = try txn.get([0], in: table).map(number) ?? 0
                        try txn.put(key(current + 1), for: [0], in: table)
                        try txn.put([], for: key(t * 1000 + n), in: table)
                    }
                }
                return 0
            }
        }
        for thread in threads { _ = thread.join() }
        let counter = try environment.read { txn in try txn.get([0], in: table).map(number) }
        #expect(counter == 1600, "no lost update: each write saw the one before it")
    }
}

/// A flag set once, read from many threads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false  // guarded by lock
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A thread whose closure's result can be awaited with `join()`.
final class TestThread<Result: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result?  // written before `done` is signalled, read after

    static func detached(_ body: @escaping @Sendable () -> Result) -> TestThread<Result> {
        let thread = TestThread<Result>()
        Foundation.Thread {
            thread.result = body()
            thread.done.signal()
        }.start()
        return thread
    }

    func join() -> Result {
        done.wait()
        return result!
    }
}

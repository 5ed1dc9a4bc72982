import BenchmarkModels
import Cairn
import Foundation
import GRDB

// W11: a grouped sum over n sales in 20 regions (n = 1,000,000 for the figure): the sum
// of `amount` per `region`, computed
//
// - by Cairn's `aggregate(_:groupedBy:_:computing:)`: records read, no model made; and on a model
//   with the index `(region, amount)`, whose entries are read instead (`IndexedSale`);
// - by fetching every model and adding them up by hand, which is what SwiftData offers;
// - by GRDB's `SELECT region, SUM(amount) FROM sale GROUP BY region`, on a table without an
//   index and on one with the covering index `(region, amount)` a GRDB expert would add.
//
// Every store is seeded once, before the timed part, and each run checks its answer against the
// others'. Throughput is rows aggregated per second.
enum AggregateWorkload {
    /// The sums every system must find.
    static func expected(_ n: Int) -> [String: Int] {
        var sums: [String: Int] = [:]
        for number in 0..<n {
            let sale = SaleValues(number)
            sums[sale.region, default: 0] += sale.amount
        }
        return sums
    }

    static func cairnContainer(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Sale.self, IndexedSale.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("Sales.store")))
    }

    /// A Cairn store of n sales and n indexed sales, seeded in chunks of 100,000.
    static func seedCairn(_ n: Int, into directory: URL) throws {
        let container = try cairnContainer(directory)
        for start in stride(from: 0, to: n, by: 100_000) {
            let context = ModelContext(container)
            for number in start..<min(start + 100_000, n) {
                let sale = SaleValues(number)
                context.insert(Sale(region: sale.region, amount: sale.amount, day: sale.day))
                context.insert(IndexedSale(region: sale.region, amount: sale.amount, day: sale.day))
            }
            try context.save()
        }
    }

    /// A GRDB database of n sales, with or without the covering index.
    static func seedGRDB(_ n: Int, into directory: URL, coveringIndex: Bool) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(
            path: directory.appendingPathComponent("sales.sqlite").path, configuration: GRDBSystem.configuration(wal: true))
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE sale (id INTEGER PRIMARY KEY, region TEXT NOT NULL, amount INTEGER NOT NULL, day INTEGER NOT NULL)")
            let statement = try db.cachedStatement(sql: "INSERT INTO sale (region, amount, day) VALUES (?, ?, ?)")
            for number in 0..<n {
                let sale = SaleValues(number)
                statement.setUncheckedArguments([sale.region, sale.amount, sale.day])
                try statement.execute()
            }
            if coveringIndex { try db.execute(sql: "CREATE INDEX sale_region_amount ON sale (region, amount)") }
            try db.execute(sql: "ANALYZE")
        }
        return queue
    }

    /// Cairn: the grouped sum, from the records.
    static func cairnAggregate(_ container: ModelContainer) throws -> [String: Int] {
        let context = ModelContext(container)
        let groups = try context.aggregate(FetchDescriptor<Sale>(), groupedBy: \.region, computing: .sum(\.amount))
        return Dictionary(uniqueKeysWithValues: groups.map { ($0.key, $0.values) })
    }

    /// Cairn: the grouped sum, from the index `(region, amount)`.
    static func cairnIndexedAggregate(_ container: ModelContainer) throws -> [String: Int] {
        let context = ModelContext(container)
        let groups = try context.aggregate(FetchDescriptor<IndexedSale>(), groupedBy: \.region, computing: .sum(\.amount))
        return Dictionary(uniqueKeysWithValues: groups.map { ($0.key, $0.values) })
    }

    /// Cairn as SwiftData allows: every model fetched, the sums made by hand.
    static func cairnFetchAndSum(_ container: ModelContainer) throws -> [String: Int] {
        let context = ModelContext(container)
        var sums: [String: Int] = [:]
        for sale in try context.fetch(FetchDescriptor<Sale>()) { sums[sale.region, default: 0] += sale.amount }
        return sums
    }

    /// GRDB: SQL's GROUP BY.
    static func grdbGroupBy(_ queue: DatabaseQueue) throws -> [String: Int] {
        try queue.read { db in
            var sums: [String: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT region, SUM(amount) FROM sale GROUP BY region")
            while let row = try rows.next() { sums[row[0]] = row[1] }
            return sums
        }
    }

    /// The runs, each checking its answer.
    static func runs(_ n: Int) -> [Run] {
        let expected = expected(n)
        func checked(_ sums: [String: Int], _ system: String) -> Int {
            if sums != expected { FileHandle.standardError.write("W11 \(system): wrong sums\n".data(using: .utf8)!) }
            return n
        }
        var cairn: ModelContainer?
        var grdb: [Bool: DatabaseQueue] = [:]
        func cairnStore() throws -> ModelContainer {
            if let cairn { return cairn }
            let directory = scratchDirectory("w11-cairn")
            try seedCairn(n, into: directory)
            let container = try cairnContainer(directory)
            cairn = container
            return container
        }
        func grdbStore(covering: Bool) throws -> DatabaseQueue {
            if let queue = grdb[covering] { return queue }
            let queue = try seedGRDB(n, into: scratchDirectory("w11-grdb-\(covering)"), coveringIndex: covering)
            grdb[covering] = queue
            return queue
        }
        return [
            Run(workload: "W11", system: "Cairn aggregate, grouped sum") {
                let container = try cairnStore()
                return try measure { checked(try cairnAggregate(container), "Cairn aggregate") }
            },
            Run(workload: "W11", system: "Cairn aggregate, index (region, amount)") {
                let container = try cairnStore()
                return try measure { checked(try cairnIndexedAggregate(container), "Cairn aggregate, index") }
            },
            Run(workload: "W11", system: "Cairn fetch models, sum by hand (SwiftData)") {
                let container = try cairnStore()
                return try measure { checked(try cairnFetchAndSum(container), "Cairn fetch") }
            },
            Run(workload: "W11", system: "GRDB GROUP BY, no index (WAL)") {
                let queue = try grdbStore(covering: false)
                return try measure { checked(try grdbGroupBy(queue), "GRDB") }
            },
            Run(workload: "W11", system: "GRDB GROUP BY, covering index (WAL)") {
                let queue = try grdbStore(covering: true)
                return try measure { checked(try grdbGroupBy(queue), "GRDB covering") }
            },
        ]
    }
}

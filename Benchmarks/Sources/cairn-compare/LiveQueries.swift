import BenchmarkModels
import Cairn
import Foundation
import GRDB

// W7: 100 live queries over `authors` authors (query i: the authors whose score is in [i, i+1),
// by name: about authors/100 each) while `saves` single-author saves run from another context,
// each moving one author to another score (two queries change) or renaming one (its query
// reorders). After each save, the time from the save's return to every query holding the new
// results; and, on a copy of the store given the same saves, the time to fetch all 100 queries
// again instead (what an app without live queries, or GRDB's ValueObservation, which re-runs a
// query whose table changed, does).

struct LiveQueryFigures {
    /// Per save, microseconds from the save's return to every query being current.
    var live: [Double] = []
    /// Per save, microseconds to fetch every query again.
    var refetch: [Double] = []
    /// Per save, microseconds for GRDB to run every query again after its write.
    var grdb: [Double] = []
    /// Per save, microseconds for the save itself (Cairn).
    var save: [Double] = []
}

enum LiveQueryWorkload {
    static let queries = 100

    static func descriptor(_ bucket: Int) -> FetchDescriptor<Author> {
        let low = Double(bucket)
        let high = Double(bucket + 1)
        return FetchDescriptor(
            predicate: #Predicate { $0.score >= low && $0.score < high }, sortBy: [SortDescriptor(\.name)])
    }

    /// The change of save `k`: a new score (another bucket) or a new name.
    static func change(_ k: Int, authors: Int) -> (id: Int64, score: Double?, name: String?) {
        let id = Int64((k * 7_919) % authors)
        if k % 2 == 0 { return (id, Double((k * 37) % 1_000) / 10, nil) }
        return (id, nil, "Renamed \(k)")
    }

    static func run(authors: Int, saves: Int) throws -> LiveQueryFigures {
        var figures = LiveQueryFigures()
        let values = (0..<Int64(authors)).map { AuthorValues($0) }
        let liveDirectory = scratchDirectory("w7-live")
        let refetchDirectory = scratchDirectory("w7-refetch")
        _ = try CairnSystem.insertAndSave(values, into: CairnSystem.container(liveDirectory))
        _ = try CairnSystem.insertAndSave(values, into: CairnSystem.container(refetchDirectory))

        // Live: the queries in one context, the saves from another.
        let container = try CairnSystem.container(liveDirectory)
        let reader = ModelContext(container)
        let live = (0..<queries).map { LiveQuery(descriptor($0), in: reader) }
        let writer = ModelContext(container)
        for k in 0..<saves {
            try apply(change(k, authors: authors), in: writer)
            let start = DispatchTime.now().uptimeNanoseconds
            try writer.save()
            let saved = DispatchTime.now().uptimeNanoseconds
            for query in live { query.refresh() }
            let current = DispatchTime.now().uptimeNanoseconds
            figures.save.append(Double(saved - start) / 1_000)
            figures.live.append(Double(current - saved) / 1_000)
        }
        // Checked once at the end: the live results are what a fetch gives.
        for bucket in 0..<queries {
            let fetched = try ModelContext(container).fetch(descriptor(bucket)).map(\.persistentModelID)
            precondition(live[bucket].results.map(\.persistentModelID) == fetched, "W7: live query \(bucket) is wrong")
        }

        // Re-fetching every query after each save: the first `sampled` saves, which is enough for
        // its median (each re-fetch scans the 10,000 authors 100 times).
        let sampled = min(saves, 100)
        let other = try CairnSystem.container(refetchDirectory)
        let refetcher = ModelContext(other)
        let otherWriter = ModelContext(other)
        for k in 0..<sampled {
            try apply(change(k, authors: authors), in: otherWriter)
            try otherWriter.save()
            let saved = DispatchTime.now().uptimeNanoseconds
            for bucket in 0..<queries { _ = try refetcher.fetch(descriptor(bucket)) }
            figures.refetch.append(Double(DispatchTime.now().uptimeNanoseconds - saved) / 1_000)
        }

        // GRDB: the same saves, then every query again (an index on score, as Cairn has none).
        let grdbDirectory = scratchDirectory("w7-grdb")
        _ = try GRDBSystem.preparedInsert(values, into: grdbDirectory, wal: true)
        let queue = try GRDBSystem.queue(grdbDirectory, wal: true)
        try queue.write { db in try db.execute(sql: "CREATE INDEX IF NOT EXISTS author_score ON author(score)") }
        for k in 0..<sampled {
            let change = change(k, authors: authors)
            try queue.write { db in
                if let score = change.score {
                    try db.execute(sql: "UPDATE author SET score = ? WHERE id = ?", arguments: [score, change.id])
                } else {
                    try db.execute(sql: "UPDATE author SET name = ? WHERE id = ?", arguments: [change.name, change.id])
                }
            }
            let saved = DispatchTime.now().uptimeNanoseconds
            try queue.read { db in
                let statement = try db.cachedStatement(
                    sql:
                        "SELECT id, name, email, score, createdAt FROM author WHERE score >= ? AND score < ? ORDER BY name"
                )
                for bucket in 0..<queries {
                    _ = try Row.fetchAll(statement, arguments: [Double(bucket), Double(bucket + 1)])
                }
            }
            figures.grdb.append(Double(DispatchTime.now().uptimeNanoseconds - saved) / 1_000)
        }
        return figures
    }

    private static func apply(_ change: (id: Int64, score: Double?, name: String?), in context: ModelContext) throws {
        let id = change.id
        guard let author = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id })).first
        else { return }
        if let score = change.score { author.score = score }
        if let name = change.name { author.name = name }
    }

    static func report(_ figures: LiveQueryFigures, authors: Int, saves: Int) {
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
        }
        func line(_ name: String, _ values: [Double]) {
            print(
                name.padding(toLength: 56, withPad: " ", startingAt: 0)
                    + String(
                        format: "median %8.1f µs   p99 %8.1f µs", percentile(values, 0.5), percentile(values, 0.99)))
        }
        print("")
        print("W7: \(queries) live queries over \(authors) authors, \(saves) single-author saves from another context")
        line("Cairn save (commit, synced)", figures.save)
        line("Cairn live queries: save → all current", figures.live)
        line("Cairn re-fetch all 100 queries (\(figures.refetch.count) saves)", figures.refetch)
        line("GRDB re-run all 100 queries (WAL, indexed; \(figures.grdb.count))", figures.grdb)
        let live = percentile(figures.live, 0.5)
        print(
            String(
                format: "re-fetching costs %.1f× the live update (median); GRDB's re-run %.1f×",
                percentile(figures.refetch, 0.5) / live, percentile(figures.grdb, 0.5) / live))
    }
}

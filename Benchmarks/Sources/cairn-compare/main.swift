import BenchmarkModels
import Cairn
import Foundation

// cairn-compare: the same workloads on Cairn, GRDB and raw LMDB, interleaved in one process.
//
//   swift build -c release --package-path Benchmarks
//   Benchmarks/.build/release/cairn-compare [--n 100000] [--rounds 3] [--workloads W0,W1,…,W13] [--only NAME]
//     [--encrypted]   (each Cairn run of W1–W5 again on an encrypted store)
//
// W1, W2 and W5 use n authors (Cairn's variants also n/10, interleaved with the rest, for their
// growth); W3 and W4 use n/10 authors with 10 books each; W6 runs W1 through the batch upsert
// at n/10, n and 10n, each in a child process of its own, so that its peak resident memory is its
// own. W0 opens the store of n authors (W5's) and reads one, 20 times. W7 (only when named) keeps
// 100 live queries over 10,000 authors current through 1,000 single-author saves
// (LiveQueries.swift). W8 (only when named) runs the public Realm-versus-SwiftData suite's
// operations on n simple users: insert, fetch with a sort, rename, delete all (SimpleObjects.swift).
// W9 (only when named) changes one author and saves, 200 times, against a synced LMDB commit of the
// same bytes (SmallSave.swift). W10 (only when named) syncs n authors through cairn-sync-server and
// PostgreSQL (SyncWorkload.swift): Scripts/with-postgres env CAIRN_SYNC_SERVER=… cairn-compare --workloads W10.
// W11 (only when named) sums n sales per region: Cairn's aggregate, fetching and summing, and
// GRDB's GROUP BY (Aggregates.swift). W12 (only when named) builds a full-text index of n
// paragraphs of real text and queries it: Cairn's search against GRDB's FTS5 (Search.swift).
// W13 (only when named) builds a vector index of n embeddings of 384 dimensions and measures
// exact and approximate nearest-neighbour queries, with their recall (Vectors.swift).

if CommandLine.arguments.dropFirst().first == "--child" {
    runChild(Array(CommandLine.arguments.dropFirst(2)))
}

var n = 100_000
var rounds = 3
var selected: Set<String> = ["W1", "W2", "W3", "W4", "W5", "W6"]
var only: String? = nil
var encrypted = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--n": n = Int(arguments.popFirst() ?? "") ?? n
    case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    case "--workloads": selected = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--only": only = arguments.popFirst()
    case "--encrypted": encrypted = true
    default:
        print(
            "usage: cairn-compare [--n N] [--rounds R] [--workloads W0,W1,…,W13] [--only SYSTEM-SUBSTRING] [--encrypted]")
        exit(2)
    }
}

/// One system's run of one workload at a size: prepares what is not measured, then measures.
struct Run {
    let workload: String
    let system: String
    var n = 0
    let body: () throws -> (perSecond: Double, peakMB: Double)
}

let fresh = (0..<Int64(n)).map { AuthorValues($0) }
let changed = changedHalf(n)
let graph = Graph(authors: max(n / 10, 1))

/// A directory already holding the n authors in every system, for W2.
func seeded(_ name: String, _ seed: (URL) throws -> Void) throws -> URL {
    let directory = scratchDirectory(name)
    try seed(directory)
    return directory
}

/// A directory seeded with `values` through Cairn, and its container opened: what a W2 Cairn
/// run is handed.
func seededCairn(_ name: String, _ values: [AuthorValues]) throws -> ModelContainer {
    let directory = try seeded(name) { _ = try CairnSystem.insertAndSave(values, into: CairnSystem.container($0)) }
    return try CairnSystem.container(directory)
}

/// Stores seeded once for the read workloads (W4, W5), which do not change them.
final class Seeded {
    private var directories: [String: URL] = [:]
    private var stores: [String: RawLMDB] = [:]

    func directory(_ name: String, _ seed: (URL) throws -> Void) throws -> URL {
        // An encrypted twin seeds and reads its own store.
        let name = CairnSystem.encryption == nil ? name : name + "-encrypted"
        if let directory = directories[name] { return directory }
        let directory = try seeded(name, seed)
        directories[name] = directory
        return directory
    }

    func lmdb(_ name: String, _ seed: (RawLMDB) -> Void) -> RawLMDB {
        if let store = stores[name] { return store }
        let store = RawLMDB(scratchDirectory(name))
        seed(store)
        stores[name] = store
        return store
    }
}
let once = Seeded()

var runs: [Run] = []
if selected.contains("W1") {
    runs += [
        Run(workload: "W1", system: "Cairn insert + save") {
            let container = try CairnSystem.container(scratchDirectory("w1-cairn"))
            return try measure { try CairnSystem.insertAndSave(fresh, into: container) }
        },
        Run(workload: "W1", system: "Cairn batch upsert") {
            let container = try CairnSystem.container(scratchDirectory("w1-upsert"))
            return try measure { try CairnSystem.upsert(fresh, into: container) }
        },
        Run(workload: "W1", system: "GRDB prepared INSERT (default)") {
            let d = scratchDirectory("w1-grdb")
            return try measure { try GRDBSystem.preparedInsert(fresh, into: d, wal: false) }
        },
        Run(workload: "W1", system: "GRDB prepared INSERT (WAL, NORMAL)") {
            let d = scratchDirectory("w1-grdb-wal")
            return try measure { try GRDBSystem.preparedInsert(fresh, into: d, wal: true) }
        },
        Run(workload: "W1", system: "GRDB fastest INSERT (default)") {
            let queue = try GRDBFastest.open(scratchDirectory("w1-grdb-fast"), wal: false)
            return try measure { try GRDBFastest.insert(fresh, into: queue) }
        },
        Run(workload: "W1", system: "GRDB fastest INSERT, dates as text (default)") {
            let queue = try GRDBSystem.queue(scratchDirectory("w1-grdb-fast-text"), wal: false)
            return try measure { try GRDBFastest.insertDatesAsText(fresh, into: queue) }
        },
        Run(workload: "W1", system: "GRDB fastest INSERT (WAL, NORMAL)") {
            let queue = try GRDBFastest.open(scratchDirectory("w1-grdb-fast-wal"), wal: true)
            return try measure { try GRDBFastest.insert(fresh, into: queue) }
        },
        Run(workload: "W1", system: "raw LMDB puts") {
            let lmdb = RawLMDB(scratchDirectory("w1-lmdb"))
            return measure { lmdb.insert(fresh) }
        },
    ]
    // Cairn's variants again at a tenth of the size, interleaved in this run, for their growth
    // from n/10 to n (W2 and W5 do the same).
    if n >= 1000 {
        let smallFresh = Array(fresh.prefix(n / 10))
        runs += [
            Run(workload: "W1", system: "Cairn insert + save", n: n / 10) {
                let container = try CairnSystem.container(scratchDirectory("w1-cairn-tenth"))
                return try measure { try CairnSystem.insertAndSave(smallFresh, into: container) }
            },
            Run(workload: "W1", system: "Cairn batch upsert", n: n / 10) {
                let container = try CairnSystem.container(scratchDirectory("w1-upsert-tenth"))
                return try measure { try CairnSystem.upsert(smallFresh, into: container) }
            },
        ]
    }
}
if selected.contains("W2") {
    runs += [
        Run(workload: "W2", system: "Cairn fetch-then-update (SwiftData)") {
            let container = try seededCairn("w2-cairn-fetch", fresh)
            return try measure { try CairnSystem.fetchThenUpdate(changed, into: container) }
        },
        Run(workload: "W2", system: "Cairn fetch ids.contains then update (SwiftData)") {
            let container = try seededCairn("w2-cairn-contains", fresh)
            return try measure { try CairnSystem.fetchContainsThenUpdate(changed, into: container) }
        },
        Run(workload: "W2", system: "Cairn batch upsert") {
            let container = try seededCairn("w2-cairn-upsert", fresh)
            return try measure { try CairnSystem.upsert(changed, into: container) }
        },
        Run(workload: "W2", system: "GRDB prepared ON CONFLICT (default)") {
            let d = try seeded("w2-grdb") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: false) }
            return try measure { try GRDBSystem.preparedUpsert(changed, into: d, wal: false) }
        },
        Run(workload: "W2", system: "GRDB prepared ON CONFLICT (WAL, NORMAL)") {
            let d = try seeded("w2-grdb-wal") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: true) }
            return try measure { try GRDBSystem.preparedUpsert(changed, into: d, wal: true) }
        },
        Run(workload: "W2", system: "GRDB record upsert(db) (default)") {
            let d = try seeded("w2-grdb-record") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: false) }
            return try measure { try GRDBSystem.recordUpsert(changed, into: d, wal: false) }
        },
        Run(workload: "W2", system: "GRDB fastest ON CONFLICT (WAL, NORMAL)") {
            let queue = try GRDBFastest.open(scratchDirectory("w2-grdb-fast"), wal: true)
            _ = try GRDBFastest.insert(fresh, into: queue)
            return try measure { try GRDBFastest.upsert(changed, into: queue) }
        },
        Run(workload: "W2", system: "GRDB fastest fetch-then-update records (WAL, NORMAL)") {
            let queue = try GRDBFastest.open(scratchDirectory("w2-grdb-fast-records"), wal: true)
            _ = try GRDBFastest.insert(fresh, into: queue)
            return try measure { try GRDBFastest.fetchThenUpdate(changed, in: queue) }
        },
        Run(workload: "W2", system: "raw LMDB get, compare, put") {
            let lmdb = RawLMDB(scratchDirectory("w2-lmdb"))
            _ = lmdb.insert(fresh)
            return measure { lmdb.upsert(changed) }
        },
    ]
    // The idiomatic variants again at a tenth of the size, interleaved with the rest in this run,
    // so that their growth from n/10 to n is measured on the same machine state (Benchmarks.md,
    // "Current figures").
    if n >= 1000 {
        let tenth = n / 10
        let smallFresh = Array(fresh.prefix(tenth))
        let smallChanged = Array(changed.prefix(tenth))
        runs += [
            Run(workload: "W2", system: "Cairn fetch-then-update (SwiftData)", n: tenth) {
                let container = try seededCairn("w2-cairn-fetch-tenth", smallFresh)
                return try measure { try CairnSystem.fetchThenUpdate(smallChanged, into: container) }
            },
            Run(workload: "W2", system: "Cairn fetch ids.contains then update (SwiftData)", n: tenth) {
                let container = try seededCairn("w2-cairn-contains-tenth", smallFresh)
                return try measure { try CairnSystem.fetchContainsThenUpdate(smallChanged, into: container) }
            },
            Run(workload: "W2", system: "Cairn batch upsert", n: tenth) {
                let container = try seededCairn("w2-cairn-upsert-tenth", smallFresh)
                return try measure { try CairnSystem.upsert(smallChanged, into: container) }
            },
        ]
    }
}

if selected.contains("W3") {
    runs += [
        Run(workload: "W3", system: "Cairn insert + save") {
            let container = try CairnSystem.container(scratchDirectory("w3-cairn"))
            return try measure { try CairnSystem.insertGraph(graph, into: container) }
        },
        Run(workload: "W3", system: "Cairn append to author.books + save (SwiftData)") {
            let container = try CairnSystem.container(scratchDirectory("w3-cairn-append"))
            return try measure { try CairnSystem.appendGraph(graph, into: container) }
        },
        Run(workload: "W3", system: "GRDB prepared INSERT (default)") {
            let d = scratchDirectory("w3-grdb")
            return try measure { try GRDBSystem.insertGraph(graph, into: d, wal: false) }
        },
        Run(workload: "W3", system: "GRDB prepared INSERT (WAL, NORMAL)") {
            let d = scratchDirectory("w3-grdb-wal")
            return try measure { try GRDBSystem.insertGraph(graph, into: d, wal: true) }
        },
        Run(workload: "W3", system: "GRDB fastest INSERT (default)") {
            let queue = try GRDBFastest.openGraph(scratchDirectory("w3-grdb-fast"), wal: false)
            return try measure { try GRDBFastest.insertGraph(graph, into: queue) }
        },
        Run(workload: "W3", system: "GRDB fastest INSERT (WAL, NORMAL)") {
            let queue = try GRDBFastest.openGraph(scratchDirectory("w3-grdb-fast-wal"), wal: true)
            return try measure { try GRDBFastest.insertGraph(graph, into: queue) }
        },
        Run(workload: "W3", system: "raw LMDB puts") {
            let lmdb = RawLMDB(scratchDirectory("w3-lmdb"))
            return measure { lmdb.insertGraph(graph) }
        },
    ].map {
        var run = $0; run.n = graph.objects; return run
    }
}
if selected.contains("W4") {
    let cairn = {
        try CairnSystem.container(
            once.directory("w4-cairn") { _ = try CairnSystem.insertGraph(graph, into: CairnSystem.container($0)) })
    }
    let grdb = { try once.directory("w4-grdb") { _ = try GRDBSystem.insertGraph(graph, into: $0, wal: false) } }
    let grdbWAL = { try once.directory("w4-grdb-wal") { _ = try GRDBSystem.insertGraph(graph, into: $0, wal: true) } }
    let grdbFastest = {
        let directory = try once.directory("w4-grdb-fast") {
            _ = try GRDBFastest.insertGraph(graph, into: GRDBFastest.openGraph($0, wal: true))
        }
        return try GRDBFastest.openGraph(directory, wal: true)
    }
    runs += [
        Run(workload: "W4", system: "Cairn prefetch") {
            let container = try cairn()
            return try measure { try CairnSystem.readTitles(in: container, prefetch: true) }
        },
        Run(workload: "W4", system: "GRDB including(all:) (default)") {
            let d = try grdb()
            return try measure { try GRDBSystem.readTitlesIncludingAll(in: d, wal: false) }
        },
        Run(workload: "W4", system: "GRDB including(all:) (WAL, NORMAL)") {
            let d = try grdbWAL()
            return try measure { try GRDBSystem.readTitlesIncludingAll(in: d, wal: true) }
        },
        Run(workload: "W4", system: "GRDB fastest including(all:) (WAL, NORMAL)") {
            let queue = try grdbFastest()
            return try measure { try GRDBFastest.readTitlesIncludingAll(in: queue) }
        },
        Run(workload: "W4", system: "Cairn no prefetch") {
            let container = try cairn()
            return try measure { try CairnSystem.readTitles(in: container, prefetch: false) }
        },
        Run(workload: "W4", system: "GRDB query per author (default)") {
            let d = try grdb()
            return try measure { try GRDBSystem.readTitlesPerAuthor(in: d, wal: false) }
        },
        Run(workload: "W4", system: "GRDB query per author (WAL, NORMAL)") {
            let d = try grdbWAL()
            return try measure { try GRDBSystem.readTitlesPerAuthor(in: d, wal: true) }
        },
        Run(workload: "W4", system: "GRDB fastest query per author (WAL, NORMAL)") {
            let queue = try grdbFastest()
            return try measure { try GRDBFastest.readTitlesPerAuthor(in: queue) }
        },
        Run(workload: "W4", system: "raw LMDB cursor + gets") {
            let lmdb = once.lmdb("w4-lmdb") { _ = $0.insertGraph(graph) }
            return measure { lmdb.readTitles() }
        },
    ].map {
        var run = $0; run.n = graph.books.count; return run
    }
}
/// A directory seeded once with `values` through Cairn (W5's reads do not change it).
let seededOnceCairn = { (name: String, values: [AuthorValues]) in
    try once.directory(name) { _ = try CairnSystem.insertAndSave(values, into: CairnSystem.container($0)) }
}
/// W5's (and W0's) Cairn store.
let w5Cairn = { try seededOnceCairn("w5-cairn", fresh) }
if selected.contains("W5") {
    runs += [
        Run(workload: "W5", system: "Cairn fetch") {
            let container = try CairnSystem.container(w5Cairn())
            return try measure { try CairnSystem.readAuthors(in: container) }
        },
        Run(workload: "W5", system: "GRDB fetchAll (default)") {
            let d = try once.directory("w5-grdb") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: false) }
            return try measure { try GRDBSystem.readAuthors(in: d, wal: false) }
        },
        Run(workload: "W5", system: "GRDB fetchAll (WAL, NORMAL)") {
            let d = try once.directory("w5-grdb-wal") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: true) }
            return try measure { try GRDBSystem.readAuthors(in: d, wal: true) }
        },
        Run(workload: "W5", system: "GRDB fastest fetchAll, init(row:)") {
            let d = try once.directory("w5-grdb-fast") {
                _ = try GRDBFastest.insert(fresh, into: try GRDBFastest.open($0, wal: true))
            }
            let queue = try GRDBFastest.open(d, wal: true)
            return try measure { try GRDBFastest.readAuthors(in: queue) }
        },
        Run(workload: "W5", system: "raw LMDB cursor") {
            let lmdb = once.lmdb("w5-lmdb") { _ = $0.insert(fresh) }
            return measure { lmdb.readAuthors() }
        },
    ]
    if n >= 1000 {
        let smallFresh = Array(fresh.prefix(n / 10))
        runs.append(
            Run(workload: "W5", system: "Cairn fetch", n: n / 10) {
                let container = try CairnSystem.container(seededOnceCairn("w5-cairn-tenth", smallFresh))
                return try measure { try CairnSystem.readAuthors(in: container) }
            })
    }
}
if selected.contains("W0") {
    let opens = 20
    runs += [
        Run(workload: "W0", system: "Cairn open + read one", n: opens) {
            let d = try w5Cairn()
            return try measure { try CairnSystem.openAndReadOne(in: d, times: opens) }
        },
        Run(workload: "W0", system: "GRDB open + read one (default)", n: opens) {
            let d = try once.directory("w5-grdb") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: false) }
            return try measure { try GRDBSystem.openAndReadOne(in: d, wal: false, times: opens) }
        },
        Run(workload: "W0", system: "GRDB open + read one (WAL, NORMAL)", n: opens) {
            let d = try once.directory("w5-grdb-wal") { _ = try GRDBSystem.preparedInsert(fresh, into: $0, wal: true) }
            return try measure { try GRDBSystem.openAndReadOne(in: d, wal: true, times: opens) }
        },
    ]
}
if selected.contains("W9") {
    let saves = 200
    runs += [
        Run(workload: "W9", system: "Cairn one change + save", n: saves) {
            let container = try seededCairn("w9-cairn", fresh)
            return try measure { try CairnSystem.smallSaves(in: container, times: saves) }
        },
        Run(workload: "W9", system: "GRDB fastest UPDATE (default)", n: saves) {
            let queue = try GRDBFastest.open(scratchDirectory("w9-grdb-fast"), wal: false)
            _ = try GRDBFastest.insert(fresh, into: queue)
            return try measure { try GRDBFastest.smallSaves(in: queue, times: saves) }
        },
        Run(workload: "W9", system: "GRDB fastest UPDATE (WAL, NORMAL)", n: saves) {
            let queue = try GRDBFastest.open(scratchDirectory("w9-grdb-fast-wal"), wal: true)
            _ = try GRDBFastest.insert(fresh, into: queue)
            return try measure { try GRDBFastest.smallSaves(in: queue, times: saves) }
        },
        Run(workload: "W9", system: "raw LMDB same bytes + synced commit", n: saves) {
            let lmdb = RawLMDB(scratchDirectory("w9-lmdb"))
            _ = lmdb.insert(fresh)
            return measure { lmdb.smallSaves(times: saves) }
        },
    ]
}
if selected.contains("W8") { runs += simpleObjectRuns(n) }
if selected.contains("W11") { runs += AggregateWorkload.runs(n) }
if selected.contains("W12") { runs += SearchWorkload.runs(n) }
if selected.contains("W6") {
    for size in [max(n / 10, 1), n, n * 10] {
        for (system, name) in [
            ("cairn-upsert", "Cairn batch upsert"), ("grdb", "GRDB prepared INSERT (default)"),
            ("grdb-wal", "GRDB prepared INSERT (WAL, NORMAL)"), ("lmdb", "raw LMDB puts"),
        ] {
            runs.append(Run(workload: "W6", system: name, n: size) { try runInChild(system, size) })
        }
    }
}

if selected.contains("W7") {
    let (authors, saves) = (10_000, 1_000)
    LiveQueryWorkload.report(try LiveQueryWorkload.run(authors: authors, saves: saves), authors: authors, saves: saves)
    if selected.count == 1 {
        removeScratchDirectories()
        exit(0)
    }
}

if selected.contains("W13") {
    try VectorWorkload.run(n: n, rounds: rounds)
    if selected.count == 1 {
        removeScratchDirectories()
        exit(0)
    }
}

if selected.contains("W10") {
    let (samples, edits) = (200, 10_000)
    let figures = try SyncWorkload.runWaiting(objects: n, samples: samples, edits: edits)
    SyncWorkload.report(figures, objects: n, samples: samples, edits: edits)
    if selected.count == 1 {
        removeScratchDirectories()
        exit(0)
    }
}

if let only { runs = runs.filter { $0.system.localizedCaseInsensitiveContains(only) } }

runs = runs.map {
    var run = $0; if run.n == 0 { run.n = n }; return run
}
// --encrypted: each Cairn run of W1–W5 again on an encrypted store (a 32-byte key), interleaved
// with the rest, so that the two compare in the same run.
if encrypted {
    let key = ModelConfiguration.Encryption.key(Data((0..<32).map { UInt8($0) }))
    runs = runs.flatMap { run -> [Run] in
        guard ["W1", "W2", "W3", "W4", "W5"].contains(run.workload), run.system.hasPrefix("Cairn") else { return [run] }
        let twin = Run(workload: run.workload, system: run.system + ", encrypted", n: run.n) {
            CairnSystem.encryption = key
            defer { CairnSystem.encryption = nil }
            return try run.body()
        }
        return [run, twin]
    }
}
func key(_ run: Run) -> String { "\(run.workload)|\(run.system)|\(run.n)" }

var figures: [String: Figure] = [:]
for round in 1...rounds {
    FileHandle.standardError.write("round \(round) of \(rounds)\n".data(using: .utf8)!)
    for run in runs {
        let (perSecond, peak) = try run.body()
        let key = key(run)
        var figure = figures[key] ?? Figure(workload: run.workload, system: run.system, n: run.n)
        figure.perSecond.append(perSecond)
        figure.peakRSSMB = max(figure.peakRSSMB, peak)
        figure.minorFaults.append(lastMinorFaults)
        figures[key] = figure
    }
}
if ProcessInfo.processInfo.environment["CAIRN_COMPARE_KEEP"] == nil { removeScratchDirectories() }
let ordered = runs.compactMap { figures[key($0)] }
printTable(ordered)
print("")
for figure in ordered { print(figure.json) }

import Foundation

// cairn-compare: the same workloads on Cairn, GRDB and raw LMDB, interleaved in one process.
//
//   swift run -c release --package-path Benchmarks cairn-compare [--n 100000] [--rounds 3] [--workloads W1,W2]

var n = 100_000
var rounds = 3
var selected: Set<String> = ["W1", "W2"]
var only: String? = nil
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--n": n = Int(arguments.popFirst() ?? "") ?? n
    case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    case "--workloads": selected = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--only": only = arguments.popFirst()
    default:
        print("usage: cairn-compare [--n N] [--rounds R] [--workloads W1,W2]")
        exit(2)
    }
}

/// One system's run of one workload: prepares what is not measured, then measures.
struct Run {
    let workload: String
    let system: String
    let body: () throws -> (perSecond: Double, peakMB: Double)
}

let fresh = (0..<Int64(n)).map { AuthorValues($0) }
let changed = changedHalf(n)

/// A directory already holding the n authors in every system, for W2.
func seeded(_ name: String, _ seed: (URL) throws -> Void) throws -> URL {
    let directory = scratchDirectory(name)
    try seed(directory)
    return directory
}

var runs: [Run] = []
if selected.contains("W1") {
    runs += [
        Run(workload: "W1", system: "Cairn insert + save") {
            let d = scratchDirectory("w1-cairn")
            return try measure { try CairnSystem.insertAndSave(fresh, into: d) }
        },
        Run(workload: "W1", system: "Cairn batch upsert") {
            let d = scratchDirectory("w1-upsert")
            return try measure { try CairnSystem.upsert(fresh, into: d) }
        },
        Run(workload: "W1", system: "GRDB prepared INSERT (default)") {
            let d = scratchDirectory("w1-grdb")
            return try measure { try GRDBSystem.preparedInsert(fresh, into: d, wal: false) }
        },
        Run(workload: "W1", system: "GRDB prepared INSERT (WAL, NORMAL)") {
            let d = scratchDirectory("w1-grdb-wal")
            return try measure { try GRDBSystem.preparedInsert(fresh, into: d, wal: true) }
        },
        Run(workload: "W1", system: "raw LMDB puts") {
            let lmdb = RawLMDB(scratchDirectory("w1-lmdb"))
            return measure { lmdb.insert(fresh) }
        },
    ]
}
if selected.contains("W2") {
    runs += [
        Run(workload: "W2", system: "Cairn fetch-then-update (SwiftData)") {
            let d = try seeded("w2-cairn-fetch") { _ = try CairnSystem.insertAndSave(fresh, into: $0) }
            return try measure { try CairnSystem.fetchThenUpdate(changed, into: d) }
        },
        Run(workload: "W2", system: "Cairn batch upsert") {
            let d = try seeded("w2-cairn-upsert") { _ = try CairnSystem.insertAndSave(fresh, into: $0) }
            return try measure { try CairnSystem.upsert(changed, into: d) }
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
        Run(workload: "W2", system: "raw LMDB get, compare, put") {
            let lmdb = RawLMDB(scratchDirectory("w2-lmdb"))
            _ = lmdb.insert(fresh)
            return measure { lmdb.upsert(changed) }
        },
    ]
}

if let only { runs = runs.filter { $0.system.localizedCaseInsensitiveContains(only) } }

var figures: [String: Figure] = [:]
for round in 1...rounds {
    FileHandle.standardError.write("round \(round) of \(rounds)\n".data(using: .utf8)!)
    for run in runs {
        let (perSecond, peak) = try run.body()
        let key = run.workload + "|" + run.system
        var figure = figures[key] ?? Figure(workload: run.workload, system: run.system, n: n)
        figure.perSecond.append(perSecond)
        figure.peakRSSMB = max(figure.peakRSSMB, peak)
        figures[key] = figure
    }
}
let ordered = runs.compactMap { figures[$0.workload + "|" + $0.system] }
printTable(ordered)
print("")
for figure in ordered { print(figure.json) }

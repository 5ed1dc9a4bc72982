import BenchmarkModels
import Cairn
import CairnSync
import Foundation

// W10: sync through the real `cairn-sync-server` and PostgreSQL (CAIRN_SYNC_SERVER names the
// executable, CAIRN_SYNC_TEST_DATABASE_URL the database; `Scripts/with-postgres` starts one):
// - first sync: one replica saves `objects` authors and pushes them; a new replica's first sync
//   reads them all (the snapshot);
// - steady: ten saves of `objects / 100` changed authors each, pushed, then pulled by the other;
// - visible: both replicas syncing automatically, one author renamed on one; the time from its
//   save's return to the new name in a fetch on the other, `samples` times;
// - converge: three replicas of a zone of 10,000 authors, each making `edits` offline edits (half
//   updates of shared authors, half new authors), then syncing until all three hold the same rows.

struct SyncFigures {
    var push = 0.0, firstSync = 0.0, steadyPush = 0.0, steadyPull = 0.0, converge = 0.0
    var visible: [Double] = []
}

enum SyncWorkload {
    static func run(objects: Int, samples: Int, edits: Int) async throws -> SyncFigures {
        let server = try ServerProcess()
        defer { server.stop() }
        var figures = SyncFigures()
        let token = try server.token()
        let a = try Replica(server: server.url, token: token, zone: "w8")
        let b = try Replica(server: server.url, token: token, zone: "w8")
        try a.save { context in for id in 0..<Int64(objects) { context.insert(AuthorValues(id).model) } }
        figures.push = try await seconds { try await a.engine.sync() }
        figures.firstSync = try await seconds { try await b.engine.sync() }
        let pulled = try b.count()
        precondition(pulled == objects, "W10: the first sync brought \(pulled) of \(objects) authors")

        for round in 0..<10 {
            try a.save { context in
                for author in try context.fetch(FetchDescriptor<Author>(predicate: steadyRange(round, objects))) {
                    author.score += 1
                }
            }
        }
        figures.steadyPush = try await seconds { try await a.engine.sync() }
        figures.steadyPull = try await seconds { try await b.engine.sync() }
        figures.visible = try await visibleDelays(a, b, samples: samples)
        figures.converge = try await converge(server: server, token: token, edits: edits)
        return figures
    }

    /// Round `round`'s tenth of the first `objects / 10` authors.
    static func steadyRange(_ round: Int, _ objects: Int) -> Predicate<Author> {
        let size = Int64(objects / 100)
        let low = Int64(round) * size, high = Int64(round + 1) * size
        return #Predicate { $0.id >= low && $0.id < high }
    }

    /// Milliseconds from a save on `a` to its value in a fetch on `b`, both syncing automatically.
    static func visibleDelays(_ a: Replica, _ b: Replica, samples: Int) async throws -> [Double] {
        await a.engine.start()
        await b.engine.start()
        defer { Task { await a.engine.stop(); await b.engine.stop() } }
        try await Task.sleep(for: .milliseconds(500))
        let reader = ModelContext(b.container)
        var delays: [Double] = []
        for sample in 0..<samples {
            let id = Int64(sample), name = "Visible \(sample)"
            try a.save { context in
                try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id })).first?.name = name
            }
            let saved = DispatchTime.now().uptimeNanoseconds
            var seen = false
            while !seen {
                seen = try reader.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id && $0.name == name })).count == 1
                if !seen { try await Task.sleep(for: .milliseconds(1)) }
                guard DispatchTime.now().uptimeNanoseconds - saved < 30_000_000_000 else { fatalError("W10: a change took over 30 s") }
            }
            delays.append(Double(DispatchTime.now().uptimeNanoseconds - saved) / 1e6)
            try await Task.sleep(for: .milliseconds(20))
        }
        return delays
    }

    /// Seconds for three replicas with `edits` offline edits each to converge.
    static func converge(server: ServerProcess, token: String, edits: Int) async throws -> Double {
        let shared = 10_000
        let replicas = try (0..<3).map { _ in try Replica(server: server.url, token: token, zone: "w8-converge") }
        try replicas[0].save { context in for id in 0..<Int64(shared) { context.insert(AuthorValues(id).model) } }
        for replica in replicas { try await replica.engine.sync() }
        for (index, replica) in replicas.enumerated() {
            try replica.save { context in
                let updated = Int64(edits / 2)
                for author in try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id < updated })) {
                    author.score = Double(index)
                }
                let first = Int64(1_000_000 * (index + 1))
                for id in first..<(first + Int64(edits - edits / 2)) { context.insert(AuthorValues(id).model) }
            }
        }
        let time = try await seconds {
            for replica in replicas { try await replica.engine.sync() }
            for replica in replicas.prefix(2) { try await replica.engine.sync() }
        }
        let expected = shared + 3 * (edits - edits / 2)
        for replica in replicas {
            let count = try replica.count()
            precondition(count == expected, "W10: a replica holds \(count) authors, not \(expected)")
        }
        let scores = try replicas.map { try $0.scores(below: Int64(edits / 2)) }
        precondition(scores.allSatisfy { $0 == scores[0] }, "W10: the replicas hold different scores")
        return time
    }

    /// ``run(objects:samples:edits:)`` from synchronous code, the main program's.
    static func runWaiting(objects: Int, samples: Int, edits: Int) throws -> SyncFigures {
        final class Outcome: @unchecked Sendable { var result: Result<SyncFigures, any Error>? }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        Task {
            do { outcome.result = .success(try await run(objects: objects, samples: samples, edits: edits)) }
            catch { outcome.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try outcome.result!.get()
    }

    static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func report(_ figures: SyncFigures, objects: Int, samples: Int, edits: Int) {
        let sorted = figures.visible.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print("W10: sync through cairn-sync-server and PostgreSQL")
        print(String(format: "  push of %d new authors: %.2f s (%.0f changes/s)", objects, figures.push, Double(objects) / figures.push))
        print(String(format: "  first sync of a new replica, %d authors: %.2f s", objects, figures.firstSync))
        let steady = Double(objects / 10)
        print(String(format: "  steady: %d changes in 10 saves pushed in %.2f s (%.0f/s), pulled in %.2f s (%.0f/s)",
            objects / 10, figures.steadyPush, steady / figures.steadyPush, figures.steadyPull, steady / figures.steadyPull))
        print(String(format: "  save to visible on another online replica, %d samples: median %.1f ms, p99 %.1f ms, max %.1f ms",
            samples, percentile(0.5), percentile(0.99), sorted.last ?? 0))
        print(String(format: "  three replicas with %d offline edits each converged in %.2f s", edits, figures.converge))
    }
}

/// A replica of the benchmark's models in a scratch directory.
struct Replica {
    let container: ModelContainer
    let engine: SyncEngine

    init(server: URL, token: String, zone: String) throws {
        container = try CairnSystem.container(scratchDirectory("w8"))
        engine = try SyncEngine(container: container, configuration: SyncConfiguration(server: server, token: token, zone: zone))
    }

    func save(_ body: (ModelContext) throws -> Void) throws {
        let context = ModelContext(container)
        try body(context)
        try context.save()
    }

    func count() throws -> Int { try ModelContext(container).fetchCount(FetchDescriptor<Author>()) }

    func scores(below id: Int64) throws -> [Double] {
        try ModelContext(container).fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id < id }, sortBy: [SortDescriptor(\.id)]))
            .map(\.score)
    }
}

/// `cairn-sync-server serve` on the benchmark's database, its log in a scratch file.
final class ServerProcess {
    let process = Process()
    let executable: String
    let database: String
    private(set) var port = 0
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let executable = environment["CAIRN_SYNC_SERVER"], let database = environment["CAIRN_SYNC_TEST_DATABASE_URL"] else {
            print("W10 needs CAIRN_SYNC_SERVER (the cairn-sync-server executable) and CAIRN_SYNC_TEST_DATABASE_URL (Scripts/with-postgres sets it)")
            exit(2)
        }
        (self.executable, self.database) = (executable, database)
        let log = scratchDirectory("w10-server").appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--database-url", database, "--host", "127.0.0.1", "--port", "0"]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<600 where port == 0 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on 127.0.0.1:") }) {
                port = Int(line.split(separator: ":").last ?? "") ?? 0
            }
            usleep(50_000)
        }
        precondition(port != 0, "W10: cairn-sync-server did not start")
    }

    func token() throws -> String {
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: executable)
        maker.arguments = ["token", "create", "--database-url", database, "--user", "w8-\(UUID().uuidString.prefix(8))"]
        let output = Pipe()
        maker.standardOutput = output
        try maker.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        maker.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}

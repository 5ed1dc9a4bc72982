import Cairn
import CairnSync
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Failures in the middle of a sync, with the real server and PostgreSQL: a server process
/// killed and started again, PostgreSQL restarted, a client process killed during its push or
/// pull. Every case ends with the replicas equal, every acknowledged save everywhere, and
/// nothing twice. Each round names its seed; `CAIRN_SYNC_FAULT_SEED=N` replays one, and
/// `CAIRN_SYNC_FAULT_ROUNDS` sets how many rounds run (2 by default).
@Suite(.serialized, .enabled(if: SyncServerEnvironment.available, "needs CAIRN_SYNC_SERVER and a PostgreSQL (./Scripts/test)"))
struct ServerFaultTests {
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["CAIRN_SYNC_FAULT_SEED"].flatMap(UInt64.init) { return [seed] }
        let rounds = environment["CAIRN_SYNC_FAULT_ROUNDS"].flatMap(Int.init) ?? 2
        return (0..<rounds).map { _ in UInt64.random(in: 1...UInt64(UInt32.max)) }
    }()

    @Test(arguments: seeds) func aServerKilledMidSyncAndStartedAgainLosesNothing(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let token = try SyncServerEnvironment.makeToken()
        let server = try SyncServerProcess()
        let a = try replicaWithBooks(server: server.url, token: token, count: 1000)
        let engine = a.engine
        let syncing = Task { try await engine.sync() }
        try await Task.sleep(for: .milliseconds(Int.random(in: 20...600, using: &random)))
        server.stop(signal: SIGKILL)
        _ = await syncing.result
        let again = try SyncServerProcess(port: server.port)
        defer { again.stop() }
        try await syncUntilDone(a)
        let b = try TestReplica(server: again.url, token: token)
        try await syncUntilDone(b)
        #expect(try b.contents() == a.contents(), "seed \(seed)")
        #expect(try b.contents().books.count == 1000, "seed \(seed)")
        try await expectEachRowOnce(in: again.url, token: token, seed: seed)
    }

    @Test(.enabled(if: SyncServerEnvironment.postgresRestart != nil), arguments: seeds)
    func postgresRestartedMidSyncLosesNothing(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses { servers in
            let a = try replicaWithBooks(server: servers[0].url, token: token, count: 1000)
            let engine = a.engine
            let syncing = Task { try await engine.sync() }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...600, using: &random)))
            try SyncServerEnvironment.restartPostgres()
            _ = await syncing.result
            try await syncUntilDone(a)
            let b = try TestReplica(server: servers[0].url, token: token)
            try await syncUntilDone(b)
            #expect(try b.contents() == a.contents(), "seed \(seed)")
            #expect(try b.contents().books.count == 1000, "seed \(seed)")
            try await expectEachRowOnce(in: servers[0].url, token: token, seed: seed)
        }
    }

    @Test(arguments: seeds) func clientsKilledDuringPushAndPullLoseNothingAndApplyNothingTwice(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses { servers in
            let (a, b) = (TemporaryDirectory(), TemporaryDirectory())
            func client(_ store: TemporaryDirectory, _ first: Int, _ count: Int, killAfter: Double?) throws -> HelperRun {
                let arguments = ["sync-client", store.child("Notes.store"), servers[0].url.absoluteString, token, String(first), String(count)]
                return try HelperProcess.run(arguments, environment: [:], timeLimit: killAfter ?? 120)
            }
            var acknowledged: [Int] = []
            // Each replica saves and syncs, and is killed at a random moment of it.
            for (store, first) in [(a, 0), (b, 100_000), (a, 1500), (b, 101_500)] {
                let run = try client(store, first, 1500, killAfter: Double.random(in: 0.3...3, using: &random))
                #expect(run.errorLine == nil, "seed \(seed): \(run.errorLine ?? "")")
                acknowledged += Array(first..<(run.acknowledged.max() ?? first))
            }
            let finals = try [a, b, a].map { try client($0, 0, 0, killAfter: nil) }
            for run in finals { #expect(run.lines.last == "done", "seed \(seed): \(run.ending) \(run.errorTail)") }
            let rowsA = finals[2].lines.filter { $0.hasPrefix("row ") }
            let rowsB = finals[1].lines.filter { $0.hasPrefix("row ") }
            #expect(rowsA == rowsB, "seed \(seed): the replicas differ")
            let notes = rowsA.filter { $0.hasPrefix("row note-") }.map { $0.split(separator: "|")[0].dropFirst(9) }
            #expect(notes.count == Set(notes).count, "seed \(seed): a note applied twice")
            let present = Set(notes.compactMap { Int($0) })
            #expect(acknowledged.allSatisfy(present.contains), "seed \(seed): an acknowledged save was lost")
            #expect(rowsA.filter { $0.hasPrefix("row folder-") }.count == 7, "seed \(seed): one row per unique folder name")
        }
    }

    /// A replica with `count` books of one author saved, not yet synced.
    private func replicaWithBooks(server: URL, token: String, count: Int) throws -> TestReplica {
        let replica = try TestReplica(server: server, token: token)
        try replica.change { context in
            let author = ReplicatedAuthor(name: "Prolific")
            for index in 0..<count { context.insert(ReplicatedBook(title: "Book \(index)", pages: index, author: author)) }
        }
        return replica
    }

    /// Syncs until a sync succeeds, for up to 60 s (a restarted server or database takes a moment).
    private func syncUntilDone(_ replica: TestReplica) async throws {
        var lastError: (any Error)?
        for _ in 0..<120 {
            do {
                try await replica.engine.sync()
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        throw lastError ?? ServerTestError("sync did not finish")
    }

    /// Every row of the zone's feed is in exactly one batch: no push was stored twice.
    private func expectEachRowOnce(in server: URL, token: String, seed: UInt64) async throws {
        let transport = HTTPSyncTransport(server: server, token: token)
        var position: Int64 = 0
        var rows: [SyncID] = []
        var batches: [SyncID] = []
        while true {
            let page = try await transport.changes(zone: "default", after: position, limit: 200, wait: nil)
            rows += page.batches.flatMap { $0.batch.rows.map(\.id) }
            batches += page.batches.map(\.batch.id)
            position = page.position
            if !page.more { break }
        }
        #expect(Set(batches).count == batches.count, "seed \(seed): a batch stored twice")
        #expect(Set(rows).count == rows.count, "seed \(seed): a row pushed twice")
        #expect(rows.count == 1001, "seed \(seed): the author and 1000 books, each once")
    }
}

import Cairn
import CairnSync
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Replicas syncing through real `cairn-sync-server` processes on one PostgreSQL database.
@Suite(.serialized, .enabled(if: SyncServerEnvironment.available, "needs CAIRN_SYNC_SERVER and a PostgreSQL (./Scripts/test)"))
struct ServerEndToEndTests {
    @Test func threeReplicasOnTwoServerProcessesConverge() async throws {
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses(2) { servers in
            let replicas = try (0..<3).map { try TestReplica(server: servers[$0 % 2].url, token: token) }
            for (index, replica) in replicas.enumerated() {
                try replica.change { context in
                    let author = ReplicatedAuthor(name: "Author \(index)")
                    context.insert(ReplicatedBook(title: "Book \(index)", pages: index, author: author))
                    context.insert(ReplicatedTag(name: "shared", uses: index))
                }
            }
            for _ in 0..<2 { for replica in replicas { try await replica.engine.sync() } }
            let contents = try replicas[0].contents()
            #expect(contents.books == ["Book 0|0|Author 0|-1.0", "Book 1|1|Author 1|-1.0", "Book 2|2|Author 2|-1.0"])
            #expect(contents.tags.count == 1, "the unique tag made on three replicas is one row: \(contents.tags)")
            for replica in replicas.dropFirst() { #expect(try replica.contents() == contents) }
        }
    }

    /// Values in external storage, megabytes each: the server's feed and snapshot pages stop at
    /// about `SyncLimits.pageBytes`, and every value arrives whole.
    @Test func largeExternalValuesPageThroughTheServer() async throws {
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses(1) { servers in
            let (a, b) = (try TestReplica(server: servers[0].url, token: token), try TestReplica(server: servers[0].url, token: token))
            let values = (0..<6).map { SyncValueTests.bytes(3_000_000, seed: UInt8($0)) }
            try a.change { context in
                for (index, data) in values.enumerated() { context.insert(ReplicatedPhoto(caption: "p\(index)", data: data)) }
            }
            #expect(try await a.engine.sync().pushed == 6)
            let transport = HTTPSyncTransport(server: servers[0].url, token: token)
            let page = try await transport.changes(zone: "default", after: 0, limit: 1000, wait: nil)
            #expect(page.more && page.batches.count > 1 && page.batches.count < 6, "\(page.batches.count) batches")
            let snapshot = try await transport.snapshot(zone: "default", after: nil, limit: 1000)
            #expect(snapshot.more && snapshot.rows.count > 1 && snapshot.rows.count < 6, "\(snapshot.rows.count) rows")
            #expect(try await b.engine.sync().pulled == 6)
            // The context stays while the values are read: they load on first use.
            let context = ModelContext(b.container)
            let photos = try context.fetch(FetchDescriptor<ReplicatedPhoto>(sortBy: [SortDescriptor(\.caption)]))
            #expect(photos.map(\.data) == values)
        }
    }

    @Test func concurrentPushesThroughTwoProcessesMakeOneFeed() async throws {
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses(2) { servers in
            let transports = servers.map { HTTPSyncTransport(server: $0.url, token: token) }
            let batches = (0..<40).map { index in
                ChangeBatch(id: SyncID.make(), replica: SyncID.make(), rows: [titledRow(index)])
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, batch) in batches.enumerated() {
                    group.addTask { _ = try await transports[index % 2].push(batch, zone: "default") }
                }
                try await group.waitForAll()
            }
            let feeds = try await transports.asyncMap { try await $0.changes(zone: "default", after: 0, limit: 100, wait: nil) }
            #expect(feeds[0].batches.map(\.batch.id) == feeds[1].batches.map(\.batch.id), "both processes serve one feed")
            #expect(Set(feeds[0].batches.map(\.batch.id)) == Set(batches.map(\.id)))
            #expect(feeds[0].batches.map(\.position) == feeds[0].batches.map(\.position).sorted())
            #expect(Set(feeds[0].batches.map(\.position)).count == batches.count, "every batch has a position of its own")
        }
    }

    @Test func aSaveShowsOnAnotherOnlineReplicaWithoutAsking() async throws {
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses(2) { servers in
            let a = try TestReplica(server: servers[0].url, token: token)
            let b = try TestReplica(server: servers[1].url, token: token)
            await a.engine.start()
            await b.engine.start()
            try await Task.sleep(for: .milliseconds(300))
            try a.change { $0.insert(ReplicatedBook(title: "Live")) }
            var seen = false
            for _ in 0..<100 where !seen {
                try await Task.sleep(for: .milliseconds(50))
                seen = try b.contents().books == ["Live|100|-|-1.0"]
            }
            await a.engine.stop()
            await b.engine.stop()
            #expect(seen, "the book reached the other replica within 5 s")
        }
    }

    @Test func aTokenReachesOnlyItsOwnUsersZonesAndItsZone() async throws {
        let alice = try SyncServerEnvironment.makeToken()
        let bob = try SyncServerEnvironment.makeToken()
        let aliceWork = try SyncServerEnvironment.makeToken(zone: "work")
        try await withServerProcesses { servers in
            let a = try TestReplica(server: servers[0].url, token: alice)
            try a.change { $0.insert(ReplicatedBook(title: "Private")) }
            try await a.engine.sync()
            let b = try TestReplica(server: servers[0].url, token: bob)
            try await b.engine.sync()
            #expect(try b.contents().books.isEmpty, "another user's zone of the same name is another zone")
            let limited = HTTPSyncTransport(server: servers[0].url, token: aliceWork)
            await #expect(throws: SyncProtocolError.self) {
                _ = try await limited.changes(zone: "default", after: 0, limit: 10, wait: nil)
            }
            let stranger = HTTPSyncTransport(server: servers[0].url, token: "cst_not-a-token")
            do {
                _ = try await stranger.snapshot(zone: "default", after: nil, limit: 10)
                Issue.record("an unknown token was let in")
            } catch let error as SyncProtocolError {
                #expect(error.code == .unauthorized)
            }
        }
    }

    @Test func hostileRequestsGetA4xxAndStoreNothing() async throws {
        let token = try SyncServerEnvironment.makeToken()
        try await withServerProcesses { servers in
            let base = servers[0].url
            func send(_ body: Data, path: String = "v1/zones/default/batches") async throws -> Int {
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.httpMethod = "POST"
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                request.httpBody = body
                let (_, response) = try await URLSession.shared.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            #expect(try await send(Data("{not json".utf8)) == 400)
            #expect(try await send(Data(#"{"id": 5, "replica": [], "rows": "x"}"#.utf8)) == 400)
            #expect(try await send(Data(count: 40 << 20)) == 413)
            #expect(try await send(Data("{}".utf8), path: "v1/zones/..%2Fetc/batches") == 400)
            let transport = HTTPSyncTransport(server: base, token: token)
            let batch = ChangeBatch(id: SyncID.make(), replica: SyncID.make(), rows: [titledRow(0)])
            let first = try await transport.push(batch, zone: "default")
            let again = try await transport.push(batch, zone: "default")
            #expect(!first.duplicate)
            #expect(again.duplicate && again.position == first.position, "a replayed batch is stored once")
            // A row of another user's zone pointing at a row of this zone.
            let other = HTTPSyncTransport(server: base, token: try SyncServerEnvironment.makeToken())
            var pointing = RowChange(entity: "ReplicatedBook", id: SyncID.make())
            pointing.fields["author"] = FieldChange(
                stamp: SyncStamp(clock: 1 << 16, replica: SyncID.make()), value: .reference(batch.rows[0].id))
            do {
                _ = try await other.push(ChangeBatch(id: SyncID.make(), replica: SyncID.make(), rows: [pointing]), zone: "default")
                Issue.record("a reference into another zone was stored")
            } catch let error as SyncProtocolError {
                #expect(error.code == .badRequest)
            }
            #expect(try await other.changes(zone: "default", after: 0, limit: 10, wait: nil).batches.isEmpty)
        }
    }
}

/// A book row with a title field, as a replica would push it.
func titledRow(_ index: Int) -> RowChange {
    let title = FieldValue.value(type: "String", data: Data())
    return RowChange(
        entity: "ReplicatedBook", id: SyncID.make(),
        fields: ["title": FieldChange(stamp: SyncStamp(clock: UInt64(index + 1) << 16, replica: SyncID.make()), value: title)])
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

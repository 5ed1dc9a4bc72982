import Cairn
import CairnSync
import CairnSyncServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server against a real PostgreSQL, with real replicas: two server processes' worth of
/// servers on one database, replicas talking to either.
@Suite(.serialized) struct ServerEndToEndTests {
    @Test func threeReplicasOnTwoServersConverge() async throws {
        let token = try await makeToken()
        try await withServers(2) { servers in
            let replicas = try (0..<3).map { try ServerReplica(server: servers[$0 % 2], token: token) }
            try replicas[0].change { context in
                let folder = ServerFolder(name: "Inbox")
                context.insert(ServerNote(text: "milk", rank: 1, folder: folder))
            }
            try replicas[1].change { context in
                let folder = ServerFolder(name: "Inbox")
                context.insert(ServerNote(text: "eggs", rank: 2, folder: folder))
            }
            try replicas[2].change { $0.insert(ServerNote(text: "call home")) }
            for _ in 0..<2 { for replica in replicas { try await replica.engine.sync() } }
            let expected = ["Inbox|2", "call home|0|-", "eggs|2|Inbox", "milk|1|Inbox"]
            for replica in replicas { #expect(try replica.contents() == expected) }
        }
    }

    @Test func aSaveShowsOnAnotherOnlineReplicaWithoutAsking() async throws {
        let token = try await makeToken()
        try await withServers(2) { servers in
            let (a, b) = (try ServerReplica(server: servers[0], token: token), try ServerReplica(server: servers[1], token: token))
            await a.engine.start()
            await b.engine.start()
            try await Task.sleep(for: .milliseconds(300))
            try a.change { $0.insert(ServerNote(text: "live")) }
            var seen = false
            for _ in 0..<100 where !seen {
                try await Task.sleep(for: .milliseconds(50))
                seen = try b.contents() == ["live|0|-"]
            }
            await a.engine.stop()
            await b.engine.stop()
            #expect(seen, "the note reached the other replica within 5 s")
        }
    }

    @Test func aTokenReachesOnlyItsOwnUsersZonesAndItsZone() async throws {
        let alice = try await makeToken()
        let bob = try await makeToken()
        let aliceWork = try await makeToken(zone: "work")
        try await withServers { servers in
            let a = try ServerReplica(server: servers[0], token: alice)
            try a.change { $0.insert(ServerNote(text: "private")) }
            try await a.engine.sync()
            let b = try ServerReplica(server: servers[0], token: bob)
            try await b.engine.sync()
            #expect(try b.contents() == [], "another user's zone of the same name is another zone")
            let limited = HTTPSyncTransport(server: servers[0], token: aliceWork)
            await #expect(throws: SyncProtocolError.self) {
                _ = try await limited.changes(zone: "default", after: 0, limit: 10, wait: nil)
            }
            let stranger = HTTPSyncTransport(server: servers[0], token: "cst_not-a-token")
            do {
                _ = try await stranger.snapshot(zone: "default", after: nil, limit: 10)
                Issue.record("an unknown token was let in")
            } catch let error as SyncProtocolError {
                #expect(error.code == .unauthorized)
            }
        }
    }

    @Test func hostileRequestsGetA4xxAndStoreNothing() async throws {
        let token = try await makeToken()
        try await withServers { servers in
            let base = servers[0]
            func send(_ body: Data, path: String = "v1/zones/default/batches") async throws -> (Int, String) {
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.httpMethod = "POST"
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                request.httpBody = body
                let (data, response) = try await URLSession.shared.data(for: request)
                return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
            }
            #expect(try await send(Data("{not json".utf8)).0 == 400)
            #expect(try await send(Data(#"{"id": 5, "replica": [], "rows": "x"}"#.utf8)).0 == 400)
            #expect(try await send(Data(count: 40 << 20)).0 == 413)
            #expect(try await send(Data("{}".utf8), path: "v1/zones/..%2Fetc/batches").0 == 400)
            let transport = HTTPSyncTransport(server: base, token: token)
            let row = RowChange(
                entity: "ServerNote", id: SyncID.make(),
                fields: ["text": FieldChange(stamp: SyncStamp(clock: 1 << 16, replica: SyncID.make()), value: .null)])
            let batch = ChangeBatch(id: SyncID.make(), replica: SyncID.make(), rows: [row])
            let first = try await transport.push(batch, zone: "default")
            let again = try await transport.push(batch, zone: "default")
            #expect(!first.duplicate)
            #expect(again.duplicate && again.position == first.position, "a replayed batch is stored once")
            // A row of this zone pointing at a row of another user's zone.
            let otherToken = try await makeToken()
            let other = HTTPSyncTransport(server: base, token: otherToken)
            var pointing = RowChange(entity: "ServerNote", id: SyncID.make())
            pointing.fields["folder"] = FieldChange(stamp: SyncStamp(clock: 1 << 16, replica: SyncID.make()), value: .reference(row.id))
            do {
                _ = try await other.push(ChangeBatch(id: SyncID.make(), replica: SyncID.make(), rows: [pointing]), zone: "default")
                Issue.record("a reference into another zone was stored")
            } catch let error as SyncProtocolError {
                #expect(error.code == .badRequest)
            }
            let page = try await other.changes(zone: "default", after: 0, limit: 10, wait: nil)
            #expect(page.batches.isEmpty)
        }
    }
}

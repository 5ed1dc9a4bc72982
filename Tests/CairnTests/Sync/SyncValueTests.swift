import Cairn
import CairnSync
import Foundation
import Testing

/// Values in external storage, and values too large for one batch, a page or a push.
@Suite struct SyncValueTests {
    /// Bytes that differ from position to position, so a value cut or shifted does not compare equal.
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        // A cycle of a prime length, repeated: quick to make, and no two seeds' values alike.
        let cycle = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
        var data = Data(capacity: count)
        while data.count < count { data.append(cycle.prefix(count - data.count)) }
        return data
    }

    private func photos(_ replica: TestReplica) throws -> [String: (Data, Data?)] {
        let context = ModelContext(replica.container)
        return Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<ReplicatedPhoto>()).map {
            ($0.caption, ($0.data, $0.thumbnail))
        })
    }

    @Test func externalStorageValuesSyncBothWays() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedPhoto(caption: "harbour", data: Self.bytes(300_000, seed: 1))) }
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try photos(b)["harbour"]?.0 == Self.bytes(300_000, seed: 1))
        #expect(try photos(b)["harbour"]?.1 == nil)
        try b.change { context in
            let photo = try context.fetch(FetchDescriptor<ReplicatedPhoto>()).first!
            photo.data = Self.bytes(200_000, seed: 2)
            photo.thumbnail = Self.bytes(5_000, seed: 3)
        }
        try await b.engine.sync()
        try await a.engine.sync()
        let onA = try photos(a)["harbour"]
        #expect(onA?.0 == Self.bytes(200_000, seed: 2))
        #expect(onA?.1 == Self.bytes(5_000, seed: 3))
        // A new replica reads them from the snapshot.
        await server.compact(zone: "default", through: 10)
        let c = try TestReplica(server: server)
        try await c.engine.sync()
        #expect(try photos(c)["harbour"]?.0 == Self.bytes(200_000, seed: 2))
        #expect(try photos(c)["harbour"]?.1 == Self.bytes(5_000, seed: 3))
    }

    /// Rows of a few megabytes each fill several batches and pages, and arrive whole.
    @Test func largeValuesTravelInSeveralBatchesAndPages() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            for index in 0..<6 {
                context.insert(ReplicatedPhoto(caption: "p\(index)", data: Self.bytes(3_000_000, seed: UInt8(index))))
            }
        }
        let pushed = try await a.engine.sync()
        #expect(pushed.pushed == 6)
        let transport = InProcessSyncTransport(server: server)
        let page = try await transport.changes(zone: "default", after: 0, limit: 1000, wait: nil)
        #expect(page.batches.count > 1 && page.batches.count < 6, "\(page.batches.count) batches in the first page")
        #expect(page.more)
        #expect(page.batches.allSatisfy { $0.batch.rows.count < 6 })
        let pulled = try await b.engine.sync()
        #expect(pulled.pulled == 6)
        let onB = try photos(b)
        for index in 0..<6 { #expect(onB["p\(index)"]?.0 == Self.bytes(3_000_000, seed: UInt8(index))) }
    }

    /// A row larger than a push can carry stays unsynced with a typed error that says so;
    /// everything else syncs, and once the value is smaller it syncs too.
    @Test func aRowTooLargeToPushIsATypedErrorAndTheRestSyncs() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            context.insert(ReplicatedPhoto(caption: "huge", data: Data(count: 33 << 20)))
            context.insert(ReplicatedTag(name: "kept", uses: 1))
        }
        await #expect {
            try await a.engine.sync()
        } throws: { error in
            (error as? SyncError)?.code == .tooLarge && "\(error)".contains("ReplicatedPhoto")
        }
        try await b.engine.sync()
        #expect(try b.contents().tags == ["kept|1"])
        #expect(try photos(b).isEmpty)
        try a.change { context in
            try context.fetch(FetchDescriptor<ReplicatedPhoto>()).first!.data = Self.bytes(1_000, seed: 9)
        }
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try photos(b)["huge"]?.0 == Self.bytes(1_000, seed: 9))
    }
}

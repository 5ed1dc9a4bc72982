import Cairn
import CairnSync
import CairnSyncProtocol
import Foundation
import Testing

/// A transport that hands every page it pulls to `alter` first: a server (or network) that
/// changes what it forwards.
struct AlteringTransport: SyncTransport {
    let inner: InProcessSyncTransport
    let alter: @Sendable ([RowChange]) -> [RowChange]

    func push(_ batch: ChangeBatch, zone: String) async throws -> PushResult {
        try await inner.push(batch, zone: zone)
    }

    func changes(zone: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage {
        let page = try await inner.changes(zone: zone, after: after, limit: limit, wait: wait)
        let batches = page.batches.map { stored in
            var batch = stored.batch
            batch.rows = alter(batch.rows)
            return StoredBatch(position: stored.position, batch: batch)
        }
        return ChangesPage(batches: batches, position: page.position, more: page.more)
    }

    func snapshot(zone: String, after: SyncID?, limit: Int) async throws -> SnapshotPage {
        let page = try await inner.snapshot(zone: zone, after: after, limit: limit)
        return SnapshotPage(rows: alter(page.rows), position: page.position, more: page.more)
    }
}

/// End-to-end encrypted zones on an in-memory server: values travel and rest sealed, replicas
/// with the zone's key read and merge them, and a replica without it, with another key, or
/// given altered values gets a typed error and applies nothing.
@Suite struct EncryptedZoneTests {
    static let zoneKey = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
    static let markers = ["ZONE-MARKER-TITLE-3", "ZONE-MARKER-AUTHOR-8", "ZONE-MARKER-PHOTO-5"]

    static func replica(
        _ server: InMemorySyncServer, _ encryption: ModelConfiguration.Encryption? = .key(zoneKey),
        zone: String = "family"
    ) throws -> TestReplica {
        try TestReplica(server: server, zone: zone) { $0.encryption = encryption }
    }

    /// A book by an author, a tag and an external photo, each holding a marker.
    static func writeMarkers(_ replica: TestReplica) throws {
        try replica.change { context in
            let author = ReplicatedAuthor(name: markers[1])
            context.insert(ReplicatedBook(title: markers[0], pages: 321, author: author))
            context.insert(ReplicatedTag(name: "secret-tag", uses: 7))
            context.insert(ReplicatedPhoto(caption: "x", data: Data((markers[2] + String(repeating: ".", count: 500)).utf8)))
        }
    }

    /// Every byte the server would send: the zone's whole feed and snapshot.
    static func serverBytes(_ server: InMemorySyncServer, zone: String = "family") async throws -> Data {
        let transport = InProcessSyncTransport(server: server)
        let feed = try await transport.changes(zone: zone, after: 0, limit: 10_000, wait: nil)
        let snapshot = try await transport.snapshot(zone: zone, after: nil, limit: 10_000)
        return Data(SyncWire.encode(feed) + SyncWire.encode(snapshot))
    }

    static func markersIn(_ bytes: Data) -> Set<String> {
        Set(markers.filter { bytes.range(of: Data($0.utf8)) != nil })
    }

    @Test func valuesTravelSealedAndEveryReplicaWithTheKeyReadsThem() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try Self.replica(server), try Self.replica(server))
        try Self.writeMarkers(a)
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.contents() == a.contents())
        #expect(try b.contents().books == ["\(Self.markers[0])|321|\(Self.markers[1])|-1.0"])
        let feed = try await InProcessSyncTransport(server: server).changes(zone: "family", after: 0, limit: 100, wait: nil)
        let values = feed.batches.flatMap(\.batch.rows).flatMap(\.fields.values).map(\.value)
        #expect(!values.isEmpty && values.allSatisfy(\.isSealed))
        #expect(Self.markersIn(try await Self.serverBytes(server)) == [])

        // Concurrent edits of one row still merge by stamp on the server and the replicas.
        try a.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 400 }
        try b.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.title = "Renamed" }
        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.contents().books == ["Renamed|400|\(Self.markers[1])|-1.0"])
        #expect(try b.contents() == a.contents())

        // A new replica reads the compacted zone's snapshot, sealed too.
        await server.compact(zone: "family", through: 100)
        let c = try Self.replica(server)
        try await c.engine.sync()
        #expect(try c.contents() == a.contents())
        // The context stays while the value is read: it loads on first use.
        let context = ModelContext(c.container)
        let photo = try context.fetch(FetchDescriptor<ReplicatedPhoto>()).first
        #expect(photo.map { String(decoding: $0.data, as: UTF8.self).hasPrefix(Self.markers[2]) } == true)

        // The same saves in a zone without a key travel in clear: the scan would see them.
        let plain = try Self.replica(server, nil, zone: "plain")
        try Self.writeMarkers(plain)
        try await plain.engine.sync()
        #expect(Self.markersIn(try await Self.serverBytes(server, zone: "plain")) == Set(Self.markers))
    }

    /// A replica without the key, pulling or pushing, is refused with a typed error and keeps
    /// nothing of the zone; so is a replica with another key.
    @Test func aReplicaWithoutTheKeyOrWithAnotherIsRefused() async throws {
        let server = InMemorySyncServer()
        let a = try Self.replica(server)
        try Self.writeMarkers(a)
        try await a.engine.sync()
        for encryption in [nil, ModelConfiguration.Encryption.key(Data(repeating: 9, count: 32))] {
            let code: SyncError.Code = encryption == nil ? .zoneKeyRequired : .wrongZoneKey
            let reader = try Self.replica(server, encryption)
            await #expect { try await reader.engine.sync() } throws: { ($0 as? SyncError)?.code == code }
            #expect(try reader.contents().books.isEmpty)
            // One with changes of its own is refused at its push, before the zone takes any.
            let writer = try Self.replica(server, encryption)
            try writer.change { $0.insert(ReplicatedTag(name: "mine", uses: 1)) }
            await #expect { try await writer.engine.sync() } throws: { ($0 as? SyncError)?.code == code }
        }
        let b = try Self.replica(server)
        try await b.engine.sync()
        #expect(try b.contents() == a.contents())
    }

    /// A replica with a key refuses a zone whose values are in clear, at its push or its pull.
    @Test func aReplicaWithAKeyRefusesAZoneInClear() async throws {
        let server = InMemorySyncServer()
        let plain = try Self.replica(server, nil)
        try Self.writeMarkers(plain)
        try await plain.engine.sync()
        let reader = try Self.replica(server)
        await #expect { try await reader.engine.sync() } throws: { ($0 as? SyncError)?.code == .zoneNotEncrypted }
        #expect(try reader.contents().books.isEmpty)
        let writer = try Self.replica(server)
        try writer.change { $0.insert(ReplicatedTag(name: "mine", uses: 1)) }
        await #expect { try await writer.engine.sync() } throws: { ($0 as? SyncError)?.code == .zoneNotEncrypted }
    }

    /// Values changed, moved to another row or field, or given another stamp on the way do not
    /// open: the page is refused whole, and the replica applies nothing of it.
    @Test(arguments: ["flip", "swap rows", "rename field", "restamp", "unseal"])
    func anAlteredValueIsRefusedAndNothingIsApplied(_ alteration: String) async throws {
        let server = InMemorySyncServer()
        let a = try Self.replica(server)
        try a.change { context in
            context.insert(ReplicatedTag(name: "first", uses: 1))
            context.insert(ReplicatedTag(name: "second", uses: 2))
        }
        try await a.engine.sync()
        let transport = AlteringTransport(inner: InProcessSyncTransport(server: server)) { rows in
            Self.alter(rows, alteration)
        }
        var configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "", zone: "family")
        configuration.encryption = .key(Self.zoneKey)
        let b = try TestReplica(configuration, transport: transport)
        let code: SyncError.Code = alteration == "unseal" ? .zoneNotEncrypted : .tampered
        await #expect { try await b.engine.sync() } throws: { ($0 as? SyncError)?.code == code }
        #expect(try b.contents().tags.isEmpty)
    }

    static func alter(_ rows: [RowChange], _ alteration: String) -> [RowChange] {
        guard rows.count >= 2 else { return rows }
        var rows = rows
        let name = rows[0].fields.keys.sorted().first!
        switch alteration {
        case "flip":
            guard case .sealed(var data) = rows[0].fields[name]!.value else { return rows }
            data[data.count - 20] ^= 0x01
            rows[0].fields[name]!.value = .sealed(data)
        case "swap rows":
            (rows[0].fields[name], rows[1].fields[name]) = (rows[1].fields[name], rows[0].fields[name])
        case "rename field":
            let other = rows[0].fields.keys.sorted().last!
            (rows[0].fields[name], rows[0].fields[other]) = (rows[0].fields[other], rows[0].fields[name])
        case "restamp":
            rows[0].fields[name]!.stamp.clock += 1
        default:
            rows[0].fields[name]!.value = .value(type: "Swift.Int", data: Data([1]))
        }
        return rows
    }

    /// Both replicas derive the zone key from one passphrase.
    @Test func aPassphraseGivesEveryReplicaTheSameKey() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try Self.replica(server, .passphrase("family words")), try Self.replica(server, .passphrase("family words")))
        try Self.writeMarkers(a)
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.contents() == a.contents())
        #expect(Self.markersIn(try await Self.serverBytes(server)) == [])
    }
}

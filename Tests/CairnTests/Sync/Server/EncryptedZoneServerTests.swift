import Cairn
import CairnSync
import Foundation
import Testing

/// End-to-end encrypted zones through a real `cairn-sync-server` on PostgreSQL: the database
/// holds none of the values saved, replicas with the key read them, and one without the key is
/// refused with a typed error.
@Suite(.serialized, .enabled(if: SyncServerEnvironment.available, "needs CAIRN_SYNC_SERVER and a PostgreSQL (./Scripts/test)"))
struct EncryptedZoneServerTests {
    /// The markers, and their bytes as hex, which is how `pg_dump` writes a `bytea` column.
    func markersIn(_ dump: Data) -> Set<String> {
        let text = String(decoding: dump, as: UTF8.self).lowercased()
        return Set(
            EncryptedZoneTests.markers.filter { marker in
                let hex = marker.utf8.map { String(format: "%02x", $0) }.joined()
                return dump.range(of: Data(marker.utf8)) != nil || text.contains(hex)
            })
    }

    @Test func thePostgreSQLTablesHoldNoValueOfAnEncryptedZone() async throws {
        let token = try SyncServerEnvironment.makeToken()
        let zone = "sealed-\(UUID().uuidString.prefix(8))"
        try await withServerProcesses(1) { servers in
            let url = servers[0].url
            let key = ModelConfiguration.Encryption.key(EncryptedZoneTests.zoneKey)
            let a = try TestReplica(server: url, token: token, zone: zone, encryption: key)
            try EncryptedZoneTests.writeMarkers(a)
            try await a.engine.sync()
            let b = try TestReplica(server: url, token: token, zone: zone, encryption: key)
            try await b.engine.sync()
            #expect(try b.contents() == a.contents())
            #expect(try b.contents().books == ["\(EncryptedZoneTests.markers[0])|321|\(EncryptedZoneTests.markers[1])|-1.0"])
            #expect(markersIn(try SyncServerEnvironment.databaseDump()) == [])

            // Without the key, or with another, a replica is refused over HTTP too.
            let keyless = try TestReplica(server: url, token: token, zone: zone)
            await #expect { try await keyless.engine.sync() } throws: { ($0 as? SyncError)?.code == .zoneKeyRequired }
            let other = try TestReplica(
                server: url, token: token, zone: zone, encryption: .key(Data(repeating: 3, count: 32)))
            try other.change { $0.insert(ReplicatedTag(name: "mine", uses: 1)) }
            await #expect { try await other.engine.sync() } throws: { ($0 as? SyncError)?.code == .wrongZoneKey }

            // The same saves in a zone without a key are in the database, where the scan finds them.
            let plain = try TestReplica(server: url, token: token, zone: zone + "-plain")
            try EncryptedZoneTests.writeMarkers(plain)
            try await plain.engine.sync()
            #expect(markersIn(try SyncServerEnvironment.databaseDump()) == Set(EncryptedZoneTests.markers))
        }
    }
}

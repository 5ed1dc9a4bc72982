import CairnSyncProtocol
import Foundation
import Testing

/// The protocol's byte layout: every value comes back equal, and no cut, flipped or hostile
/// byte sequence traps or allocates beyond the message.
@Suite struct SyncWireTests {
    static func sampleBatch() -> ChangeBatch {
        let stamp = SyncStamp(clock: 42 << 16 | 7, replica: SyncID(high: 1, low: 2))
        var row = RowChange(entity: "Bücher", id: SyncID(high: 3, low: 4))
        row.fields["title"] = FieldChange(stamp: stamp, value: .value(type: "String", data: Data("Émile".utf8)))
        row.fields["author"] = FieldChange(stamp: stamp, value: .reference(SyncID(high: 5, low: 6)))
        row.fields["shelves"] = FieldChange(stamp: stamp, value: .references([SyncID(high: 7, low: 8), SyncID(high: 9, low: 10)]))
        row.fields["note"] = FieldChange(stamp: stamp, value: .null)
        let deleted = RowChange(entity: "Shelf", id: SyncID(high: 11, low: 12), deleted: stamp)
        return ChangeBatch(id: SyncID(high: 13, low: 14), replica: SyncID(high: 1, low: 2), rows: [row, deleted])
    }

    @Test func everyMessageComesBackEqual() throws {
        let batch = Self.sampleBatch()
        #expect(try SyncWire.decode(ChangeBatch.self, from: SyncWire.encode(batch)) == batch)
        let page = ChangesPage(batches: [StoredBatch(position: 9, batch: batch)], position: 9, more: true)
        #expect(try SyncWire.decode(ChangesPage.self, from: SyncWire.encode(page)) == page)
        let snapshot = SnapshotPage(rows: batch.rows, position: 3, more: false)
        #expect(try SyncWire.decode(SnapshotPage.self, from: SyncWire.encode(snapshot)) == snapshot)
        let result = PushResult(position: 1 << 40, duplicate: true)
        #expect(try SyncWire.decode(PushResult.self, from: SyncWire.encode(result)) == result)
    }

    @Test func pagesJoinedFromStoredBytesReadAsPages() throws {
        let batch = Self.sampleBatch()
        let joined = SyncWire.changesPage(batches: [(4, SyncWire.bodyBytes(batch)), (6, SyncWire.bodyBytes(batch))], position: 6, more: false)
        let page = try SyncWire.decode(ChangesPage.self, from: joined)
        #expect(page == ChangesPage(batches: [StoredBatch(position: 4, batch: batch), StoredBatch(position: 6, batch: batch)], position: 6, more: false))
        let rows = SyncWire.snapshotPage(rows: batch.rows.map(SyncWire.bodyBytes), position: 2, more: true)
        #expect(try SyncWire.decode(SnapshotPage.self, from: rows) == SnapshotPage(rows: batch.rows, position: 2, more: true))
    }

    @Test func everyCutAndFlippedByteIsATypedErrorOrAnotherValue() throws {
        let bytes = SyncWire.encode(Self.sampleBatch())
        for length in 0..<bytes.count {
            #expect(throws: SyncProtocolError.self) { try SyncWire.decode(ChangeBatch.self, from: bytes.prefix(length)) }
        }
        var random = SeededGenerator(seed: 41)
        for _ in 0..<2_000 {
            var damaged = bytes
            damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            do {
                _ = try SyncWire.decode(ChangeBatch.self, from: damaged)
            } catch let error as SyncProtocolError {
                #expect(error.code == .badRequest)
            }
        }
        #expect(throws: SyncProtocolError.self) { try SyncWire.decode(ChangeBatch.self, from: bytes + [0]) }
    }

    @Test func aHostileCountIsRefusedBeforeAnythingIsAllocated() {
        // A batch claiming 2^62 rows in a 40-byte message.
        var writer = [SyncWire.version] + [UInt8](repeating: 0, count: 32)
        writer += [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f]
        #expect(throws: SyncProtocolError.self) { try SyncWire.decode(ChangeBatch.self, from: writer) }
        #expect(throws: SyncProtocolError.self) { try SyncWire.decode(ChangeBatch.self, from: [2] + writer.dropFirst()) }
    }
}

import Foundation
import Testing

@testable import Cairn

/// A persistent identifier's value semantics in its sixteen bytes: the entity, the store with the
/// temporary flag beside it, and the row or temporary number (`PersistentIdentifier.swift`).
@Suite struct PersistentIdentifierTests {
    let store = InternedName("5D5C0000-0000-4000-8000-000000000001")

    @Test func anIdentifierIsSixteenBytes() {
        #expect(MemoryLayout<PersistentIdentifier>.size == 16)
    }

    @Test func aRowAndATemporaryNumberAreTold() throws {
        let row = PersistentIdentifier(entity: "Book", store: store, rowID: 7)
        #expect(!row.isTemporary && row.rowID == 7)
        #expect(row.entityName == "Book" && row.storeIdentifier == store.text)
        #expect(row.description == "Book/7")

        let temporary = PersistentIdentifier.temporary(entity: "Book")
        #expect(temporary.isTemporary && temporary.rowID == nil && temporary.storeIdentifier == nil)
        #expect(temporary.description.hasPrefix("Book/temporary-"))
        #expect(PersistentIdentifier.temporary(entity: "Book") != temporary, "each insert gets its own")
    }

    @Test func equalityAndHashingFollowEveryPart() throws {
        let row = PersistentIdentifier(entity: "Book", store: store, rowID: 7)
        #expect(row == PersistentIdentifier(entity: "Book", store: store, rowID: 7))
        #expect(row.hashValue == PersistentIdentifier(entity: "Book", store: store, rowID: 7).hashValue)
        #expect(row != PersistentIdentifier(entity: "Author", store: store, rowID: 7), "another entity")
        #expect(row != PersistentIdentifier(entity: "Book", store: "another", rowID: 7), "another store")
        #expect(row != PersistentIdentifier(entity: "Book", store: store, rowID: 8), "another row")

        // A temporary number equal to a row id is still not that row.
        let temporary = PersistentIdentifier.temporary(entity: "Book")
        let sameNumber = try JSONDecoder().decode(
            PersistentIdentifier.self,
            from: Data(#"{"entityName":"Book","kind":{"row":{"_0":\#(temporary.number)}}}"#.utf8))
        #expect(!sameNumber.isTemporary && sameNumber.rowID == temporary.number)
        #expect(sameNumber != temporary)
        #expect(Set([sameNumber, temporary]).count == 2)
    }

    @Test func identifiersOrderByStoreThenEntityThenRowWithTemporaryOnesLast() {
        let ids = [
            PersistentIdentifier.temporary(entity: "Book"),
            PersistentIdentifier(entity: "Book", store: store, rowID: 9),
            PersistentIdentifier(entity: "Author", store: store, rowID: 12),
            PersistentIdentifier(entity: "Book", store: store, rowID: 2),
        ]
        let sorted = ids.sorted()
        // A model not yet saved comes after the saved ones, as it will once saved.
        #expect(sorted.last!.isTemporary)
        #expect(sorted.dropLast().map(\.description) == ["Author/12", "Book/2", "Book/9"])
    }

    @Test func encodingRoundTripsEveryKindAndKeepsItsFormat() throws {
        let row = PersistentIdentifier(entity: "Book", store: store, rowID: 42)
        let temporary = PersistentIdentifier.temporary(entity: "Book")
        for id in [row, temporary] {
            let data = try JSONEncoder().encode(id)
            #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: data) == id)
        }
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(row)) as? [String: Any])
        #expect(Set(object.keys) == ["entityName", "storeIdentifier", "kind"])
        #expect(object["storeIdentifier"] as? String == store.text)
        let temporaryObject = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(temporary)) as? [String: Any])
        #expect(temporaryObject["storeIdentifier"] == nil, "a temporary identifier names no store")
    }
}

extension PersistentIdentifier {
    /// The temporary number of a temporary identifier (for tests that build the row with it).
    fileprivate var number: UInt64 {
        guard case .temporary(let number) = kind else { preconditionFailure("not temporary") }
        return number
    }
}

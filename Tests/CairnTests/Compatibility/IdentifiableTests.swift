import Cairn
import Foundation
import Testing

// Written as SwiftData code is: models are `Identifiable` by their persistent identifier unless
// they declare an `id` of their own, and a `PersistentIdentifier` is `Identifiable` too.

@Model final class IdentifiedNote {
    var text: String
    init(text: String) { self.text = text }
}

@Model final class NoteWithOwnID {
    var id: UUID
    var text: String
    init(id: UUID = UUID(), text: String) {
        self.id = id
        self.text = text
    }
}

/// The identities a SwiftUI `List` or `ForEach` would use.
private func identities<Item: Identifiable>(_ items: [Item]) -> [Item.ID] { items.map(\.id) }

@Suite struct IdentifiableTests {
    @Test func aModelIsIdentifiedByItsPersistentIdentifier() throws {
        let context = ModelContext(
            try makeContainer(inMemory: IdentifiedNote.self)
        )
        let note = IdentifiedNote(text: "first")
        context.insert(note)
        #expect(note.id == note.persistentModelID)
        try context.save()
        #expect(note.id == note.persistentModelID && !note.id.isTemporary, "the id follows the save")
        let fetched = try context.fetch(FetchDescriptor<IdentifiedNote>())
        #expect(identities(fetched) == [note.persistentModelID])
    }

    @Test func aModelWithItsOwnIDKeepsIt() throws {
        let context = ModelContext(
            try makeContainer(inMemory: NoteWithOwnID.self))
        let id = UUID()
        context.insert(NoteWithOwnID(id: id, text: "mine"))
        try context.save()
        let fetched = try context.fetch(FetchDescriptor<NoteWithOwnID>(predicate: #Predicate { $0.id == id }))
        #expect(identities(fetched) == [id])
    }

    @Test func anIdentifiersIDIsStableAndEncodable() throws {
        let context = ModelContext(
            try makeContainer(inMemory: IdentifiedNote.self)
        )
        let first = IdentifiedNote(text: "a")
        let second = IdentifiedNote(text: "b")
        context.insert(first)
        context.insert(second)
        try context.save()
        let ids = [first.persistentModelID, second.persistentModelID]
        #expect(identities(ids) == ids.map(\.id))
        #expect(first.persistentModelID.id == first.persistentModelID.id)
        #expect(first.persistentModelID.id != second.persistentModelID.id)
        var texts: [PersistentIdentifier.ID: String] = [:]
        texts[first.persistentModelID.id] = first.text
        #expect(texts[first.persistentModelID.id] == "a" && texts[second.persistentModelID.id] == nil)
        let data = try JSONEncoder().encode(first.persistentModelID.id)
        #expect(try JSONDecoder().decode(PersistentIdentifier.ID.self, from: data) == first.persistentModelID.id)
        #expect(first.persistentModelID.id.description == first.persistentModelID.description)
    }
}

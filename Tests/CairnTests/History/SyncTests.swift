import Foundation
import Testing

@testable import Cairn

// The hand-written sync of Docs/SyncByHand.md, run: two stores converge by exchanging the history since the last
// token each has of the other. Kept in step with the document.

@Model final class SyncNote {
    @Attribute(.unique, .preserveValueOnDeletion) var uuid: UUID
    var text: String
    var updatedAt: Date

    init(uuid: UUID = UUID(), text: String, updatedAt: Date = .now) {
        self.uuid = uuid
        self.text = text
        self.updatedAt = updatedAt
    }
}

/// One change as it travels between stores: by the note's own key, never by a store's identifier.
enum NoteChange: Codable, Equatable {
    case upsert(uuid: UUID, text: String, updatedAt: Date)
    case delete(uuid: UUID)
}

/// One direction of the sync: reads a store's changes since a token, and applies changes read
/// from another store.
struct NoteSync {
    /// The author of the changes a sync applies: not sent back where they came from.
    static let author = "sync"

    /// The changes `context`'s store made after `token` (all of them for `nil`), except those a
    /// sync applied, and the token to start from next time.
    static func changes(
        in context: ModelContext, after token: DefaultHistoryToken?
    ) throws -> (changes: [NoteChange], token: DefaultHistoryToken?) {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token {
            descriptor.predicate = #Predicate { $0.token > token }
        }
        let transactions = try context.fetchHistory(descriptor)
        var changes: [NoteChange] = []
        for transaction in transactions where transaction.author != author {
            for change in transaction.changes {
                switch change {
                case .insert(let insert as DefaultHistoryInsert<SyncNote>):
                    if let note = try note(insert.changedPersistentIdentifier, in: context) {
                        changes.append(.upsert(uuid: note.uuid, text: note.text, updatedAt: note.updatedAt))
                    }
                case .update(let update as DefaultHistoryUpdate<SyncNote>):
                    if let note = try note(update.changedPersistentIdentifier, in: context) {
                        changes.append(.upsert(uuid: note.uuid, text: note.text, updatedAt: note.updatedAt))
                    }
                case .delete(let delete as DefaultHistoryDelete<SyncNote>):
                    if let uuid = delete.tombstone[\.uuid] as? UUID { changes.append(.delete(uuid: uuid)) }
                default:
                    break
                }
            }
        }
        // Past the sync's own transactions too: they are not sent back.
        return (changes, transactions.last?.token ?? token)
    }

    /// Applies changes read from another store to `store`: the newer `updatedAt` wins; a delete
    /// removes.
    static func apply(_ changes: [NoteChange], to store: ModelContainer) throws {
        // A context of its own, so that only the sync's saves carry its author.
        let context = ModelContext(store)
        context.author = author
        for change in changes {
            switch change {
            case .upsert(let uuid, let text, let updatedAt):
                let existing = try context.fetch(FetchDescriptor<SyncNote>(predicate: #Predicate { $0.uuid == uuid }))
                if let note = existing.first {
                    if note.updatedAt < updatedAt {
                        note.text = text
                        note.updatedAt = updatedAt
                    }
                } else {
                    context.insert(SyncNote(uuid: uuid, text: text, updatedAt: updatedAt))
                }
            case .delete(let uuid):
                try context.delete(model: SyncNote.self, where: #Predicate { $0.uuid == uuid })
            }
        }
        try context.save()
    }

    /// The note the identifier names, if it still exists.
    private static func note(_ id: PersistentIdentifier, in context: ModelContext) throws -> SyncNote? {
        try context.fetch(FetchDescriptor<SyncNote>(predicate: #Predicate { $0.persistentModelID == id })).first
    }
}

@Suite struct SyncTests {
    private func store(_ directory: TemporaryDirectory, _ name: String) throws -> ModelContext {
        ModelContext(
            try ModelContainer(
                for: SyncNote.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child(name)))
            ))
    }

    private func contents(_ context: ModelContext) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try context.fetch(FetchDescriptor<SyncNote>()).map { ($0.uuid.uuidString, $0.text) })
    }

    @Test func twoStoresConvergeByExchangingHistory() throws {
        let directory = TemporaryDirectory()
        let laptop = try store(directory, "Laptop.store")
        let phone = try store(directory, "Phone.store")
        // What each side has sent of its own history.
        var laptopSent: DefaultHistoryToken?
        var phoneSent: DefaultHistoryToken?
        func exchange() throws {
            let fromLaptop = try NoteSync.changes(in: laptop, after: laptopSent)
            let fromPhone = try NoteSync.changes(in: phone, after: phoneSent)
            try NoteSync.apply(fromLaptop.changes, to: phone.container)
            try NoteSync.apply(fromPhone.changes, to: laptop.container)
            (laptopSent, phoneSent) = (fromLaptop.token, fromPhone.token)
        }

        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let groceries = SyncNote(text: "milk", updatedAt: start)
        laptop.insert(groceries)
        laptop.insert(SyncNote(text: "call Ann", updatedAt: start))
        try laptop.save()
        phone.insert(SyncNote(text: "book flights", updatedAt: start))
        try phone.save()
        try exchange()
        #expect(try contents(laptop).count == 3)
        #expect(try contents(laptop) == contents(phone))

        // Both sides change things; the later edit of the same note wins on both.
        groceries.text = "milk, eggs"
        groceries.updatedAt = start.addingTimeInterval(10)
        try laptop.save()
        let phoneGroceries = try #require(
            try phone.fetch(FetchDescriptor<SyncNote>(predicate: #Predicate { $0.text == "milk" })).first)
        phoneGroceries.text = "milk, bread"
        phoneGroceries.updatedAt = start.addingTimeInterval(20)
        let call = try #require(
            try phone.fetch(FetchDescriptor<SyncNote>(predicate: #Predicate { $0.text == "call Ann" })).first)
        phone.delete(call)
        try phone.save()
        laptop.insert(SyncNote(text: "water plants", updatedAt: start.addingTimeInterval(5)))
        try laptop.save()
        try exchange()
        try exchange()  // a second exchange changes nothing: the sync's own saves are not echoed
        let converged = try contents(laptop)
        #expect(converged == (try contents(phone)))
        #expect(Set(converged.values) == ["milk, bread", "book flights", "water plants"])

        // The history both sides have sent can go; the sync goes on from the tokens.
        if let laptopSent {
            try laptop.deleteHistory(
                HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= laptopSent }))
        }
        if let phoneSent {
            try phone.deleteHistory(
                HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= phoneSent }))
        }
        phone.insert(SyncNote(text: "after cleanup", updatedAt: start.addingTimeInterval(30)))
        try phone.save()
        try exchange()
        #expect(try contents(laptop) == contents(phone))
        #expect(try contents(laptop).count == 4)
    }
}

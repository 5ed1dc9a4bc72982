import Foundation
import Testing

@testable import Cairn

@Suite struct MainContextTests {
    func container() throws -> ModelContainer {
        try makeContainer(inMemory: Specimen.self)
    }

    @MainActor @Test func theMainContextAutosavesAfterChanges() async throws {
        let container = try container()
        let context = container.mainContext
        #expect(container.mainContext === context && context.autosaveEnabled)
        context.insert(Specimen(name: "autosaved"))
        #expect(context.hasChanges)
        for _ in 0..<200 where context.hasChanges { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Specimen>()) == 1)
        context.autosaveEnabled = false
        context.insert(Specimen(name: "kept pending"))
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.hasChanges, "with autosave off, changes wait for an explicit save")
    }

    @Test func otherContextsDoNotAutosave() async throws {
        let context = ModelContext(try container())
        #expect(!context.autosaveEnabled)
        context.insert(Specimen(name: "x"))
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.hasChanges)
    }

    @Test func savesAnnounceWhatTheySave() throws {
        let context = ModelContext(try container())
        let kept = Specimen(name: "kept")
        let doomed = Specimen(name: "doomed")
        context.insert(kept)
        context.insert(doomed)
        try context.save()
        let log = NotificationLog()
        let observers = [ModelContext.willSave, ModelContext.didSave].map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { log.record($0) }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let added = Specimen(name: "added")
        context.insert(added)
        kept.count = 5
        context.delete(doomed)
        let doomedID = doomed.persistentModelID
        try context.save()
        let entries = log.entries
        #expect(entries.map(\.name) == [ModelContext.willSave, ModelContext.didSave])
        let did = try #require(entries.last)
        #expect(did.inserted == [added.persistentModelID] && !added.persistentModelID.isTemporary)
        #expect(did.updated == [kept.persistentModelID] && did.deleted == [doomedID])
        #expect(entries.first?.inserted.first?.isTemporary == true, "willSave sees the temporary identifier")
    }

    @Test func aTransactionSavesOrRollsBack() throws {
        struct Abandon: Error {}
        let container = try container()
        let context = ModelContext(container)
        try context.transaction { context.insert(Specimen(name: "committed")) }
        #expect(!context.hasChanges)
        #expect(throws: Abandon.self) {
            try context.transaction {
                context.insert(Specimen(name: "abandoned"))
                throw Abandon()
            }
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Specimen>()).map(\.name) == ["committed"])
    }
}

/// Notifications received, recorded from whichever thread posts them.
final class NotificationLog: @unchecked Sendable {
    struct Entry {
        let name: Notification.Name
        let inserted: [PersistentIdentifier]
        let updated: [PersistentIdentifier]
        let deleted: [PersistentIdentifier]
        /// `invalidatedAllIdentifiers`, when the notification has it.
        var invalidated: [PersistentIdentifier]? = nil
    }

    private let lock = NSLock()
    private var recorded: [Entry] = []  // guarded by lock

    var entries: [Entry] { lock.withLock { recorded } }

    /// The `invalidatedAllIdentifiers` of each notification that had them.
    var invalidated: [[PersistentIdentifier]] { entries.compactMap(\.invalidated) }

    func record(_ notification: Notification) {
        func ids(_ key: ModelContext.NotificationKey) -> [PersistentIdentifier] {
            notification.userInfo?[key.rawValue] as? [PersistentIdentifier] ?? []
        }
        let entry = Entry(
            name: notification.name, inserted: ids(.insertedIdentifiers), updated: ids(.updatedIdentifiers),
            deleted: ids(.deletedIdentifiers),
            invalidated: notification.userInfo?[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue]
                as? [PersistentIdentifier])
        lock.withLock { recorded.append(entry) }
    }
}

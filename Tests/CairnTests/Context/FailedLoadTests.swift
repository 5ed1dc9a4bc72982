import Foundation
import Testing

@testable import Cairn

/// A load that fails in a getter never traps: the getter returns a placeholder, the context
/// records a `FetchError.loadFailed`, and the next save or fetch throws it (Docs/Reliability.md).
@Suite struct FailedLoadTests {
    func savedBook(_ directory: TemporaryDirectory) throws -> (ModelContainer, PersistentIdentifier) {
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        book.chapters = [LibraryChapter(title: "One", number: 1)]
        context.insert(book)
        try context.save()
        return (container, book.persistentModelID)
    }

    func isLoadFailed(_ error: any Error, property: String) -> Bool {
        guard let error = error as? FetchError else { return false }
        return error.code == .loadFailed && error.property == property
    }

    /// A saved book whose record has one byte flipped, so it fails its checksum.
    func bookWithDamagedRecord() throws -> (ModelContainer, PersistentIdentifier) {
        let (container, id) = try savedBook(TemporaryDirectory())
        let records = try #require(container.store.entities["LibraryBook"]).layout.records
        try container.store.environment.write { txn in
            var record = try #require(try txn.get(EntryLayout.rowKey(id.rowID!), in: records))
            record[3] ^= 0x20
            try txn.put(record, for: EntryLayout.rowKey(id.rowID!), in: records)
        }
        return (container, id)
    }

    @Test func aDamagedRecordReadsAsDefaultsAndTheNextFetchThrows() throws {
        let (container, id) = try bookWithDamagedRecord()
        let context = ModelContext(container)
        let book = try #require(context.model(for: id) as? LibraryBook)
        #expect(book.title == "", "the placeholder of a String without a default")
        let errors = context.pendingLoadErrors
        #expect(errors.count == 1)
        #expect(errors.first?.model == id)
        #expect(errors.first?.property == "title")
        #expect((errors.first?.cause as? StorageError)?.code == .damagedRecord)
        #expect { try context.fetch(FetchDescriptor<LibraryChapter>()) } throws: { isLoadFailed($0, property: "title") }
        #expect(context.pendingLoadErrors.isEmpty, "a thrown error is reported once")
        #expect(try context.fetch(FetchDescriptor<LibraryChapter>()).count == 1)
    }

    @Test func aDamagedEdgeListReadsAsEmptyAndTheNextSaveThrows() throws {
        let (container, id) = try savedBook(TemporaryDirectory())
        let edges = try #require(container.store.entities["LibraryBook"]?.layout.edges["chapters"])
        try container.store.environment.write { txn in
            let key = EntryLayout.rowKey(id.rowID!)
            let stored = try txn.edges(of: id.rowID!, in: edges)[0]
            let value = EntryLayout.edgeValue(owner: id.rowID!, rank: stored.rank, target: stored.target)
            _ = try txn.delete(key, value: value, in: edges)
            var damaged = value
            damaged[0] ^= 0x01
            try txn.put(damaged, for: key, in: edges)
        }
        let context = ModelContext(container)
        let book = try #require(context.model(for: id) as? LibraryBook)
        #expect(book.chapters.isEmpty)
        #expect(context.pendingLoadErrors.map(\.property) == ["chapters"])
        context.insert(LibraryChapter(title: "New", number: 9))
        #expect { try context.save() } throws: { isLoadFailed($0, property: "chapters") }
        #expect(context.hasChanges, "nothing was written")
    }

    /// `model(for:)` with an identifier of a model that was never saved used to trap.
    @Test func anUnsavedIdentifierGivesAPlaceholderAndAnError() throws {
        let (container, _) = try savedBook(TemporaryDirectory())
        let context = ModelContext(container)
        let unsaved = LibraryBook(isbn: "0", title: "Draft").persistentModelID
        let book = try #require(context.model(for: unsaved) as? LibraryBook)
        #expect(book.isbn == "")
        #expect(book.chapters.isEmpty)
        #expect(context.pendingLoadErrors.map(\.property) == ["isbn", "chapters"])
        #expect((context.registeredModel(for: unsaved) as LibraryBook?) == nil)
        #expect { try context.fetchCount(FetchDescriptor<LibraryBook>()) } throws: {
            isLoadFailed($0, property: "isbn")
        }
    }

    @Test func anIdentifierOfAnotherStoreGivesAPlaceholderAndAnError() throws {
        let (container, id) = try savedBook(TemporaryDirectory())
        let (_, foreign) = try savedBook(TemporaryDirectory())
        #expect(foreign.storeIdentifier != id.storeIdentifier)
        let context = ModelContext(container)
        let book = try #require(context.model(for: foreign) as? LibraryBook)
        #expect(book.title == "")
        #expect(context.pendingLoadErrors.first?.model == foreign)
        #expect((context.registeredModel(for: foreign) as LibraryBook?) == nil)
    }

    /// An identifier of an entity this schema lacks (decoded from elsewhere) trapped in
    /// `model(for:)`: it is an empty, deleted model of no app class, and a recorded error.
    @Test func anIdentifierOfAnUnknownEntityGivesADeletedModelAndAnError() throws {
        let (container, id) = try savedBook(TemporaryDirectory())
        let json = try JSONEncoder().encode(id)
        let text = String(decoding: json, as: UTF8.self).replacingOccurrences(of: "LibraryBook", with: "Spaceship")
        let foreign = try JSONDecoder().decode(PersistentIdentifier.self, from: Data(text.utf8))
        #expect(foreign.entityName == "Spaceship")
        let context = ModelContext(container)
        let model = context.model(for: foreign)
        #expect(model.isDeleted)
        #expect(!(model is LibraryBook))
        #expect(context.pendingLoadErrors.first?.model == foreign)
        #expect(throws: FetchError.self) { try context.fetch(FetchDescriptor<LibraryBook>()) }
        #expect(try context.fetch(FetchDescriptor<LibraryBook>()).count == 1, "the error is reported once")
    }

    /// A record key shorter than 8 bytes, read as a row id, trapped in the fetch's candidate rows.
    @Test func aShortRecordKeyIsAnErrorNotATrap() throws {
        let (container, _) = try savedBook(TemporaryDirectory())
        let records = try #require(container.store.entities["LibraryBook"]).layout.records
        try container.store.environment.write { txn in
            try txn.put(RecordWriter().finished(), for: [0x00, 0x01], in: records)
        }
        #expect { try ModelContext(container).fetch(FetchDescriptor<LibraryBook>()) } throws: { error in
            (error as? StorageError)?.code == .damagedRecord
                && (error as? StorageError)?.message.contains("e/LibraryBook") == true
        }
    }
    /// The public calls that read the store, each given a context with one pending load error.
    enum StoreAccess: String, CaseIterable, Sendable {
        case fetch, fetchCount, fetchIdentifiers, batchedFetch, enumerate, deleteWhere, upsert

        func run(_ context: ModelContext) throws {
            let chapters = FetchDescriptor<LibraryChapter>()
            switch self {
            case .fetch: _ = try context.fetch(chapters)
            case .fetchCount: _ = try context.fetchCount(chapters)
            case .fetchIdentifiers: _ = try context.fetchIdentifiers(chapters)
            case .batchedFetch: _ = try context.fetch(chapters, batchSize: 10)
            case .enumerate: try context.enumerate(chapters) { _ in }
            case .deleteWhere: try context.delete(model: LibraryChapter.self, where: #Predicate { $0.number > 100 })
            case .upsert: _ = try context.upsert([LibraryBook(isbn: "978-2", title: "Persuasion")])
            }
        }
    }

    /// `fetchIdentifiers`, `enumerate` and the batched fetch used to ignore pending load errors
    /// that `fetch`, `fetchCount` and `save` threw: every call that reads the store follows one
    /// policy now (it throws the first pending error, once).
    @Test(arguments: StoreAccess.allCases)
    func everyCallThatReadsTheStoreThrowsPendingLoadErrors(_ access: StoreAccess) throws {
        let (container, id) = try bookWithDamagedRecord()
        let context = ModelContext(container)
        let book = try #require(context.model(for: id) as? LibraryBook)
        #expect(book.title == "")
        #expect { try access.run(context) } throws: { isLoadFailed($0, property: "title") }
        #expect(context.pendingLoadErrors.isEmpty, "a thrown error is reported once")
        if access != .upsert { try access.run(context) }
    }
}

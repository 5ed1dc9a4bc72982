import Foundation
import Testing

@testable import Cairn

/// The history entry a save writes: every touched row once, sorted by entity, row and kind,
/// and read back as written.
@Suite struct HistoryTests {
    @Test func entriesAreWrittenSortedAndReadBack() throws {
        var random = SeededGenerator(seed: 7)
        var history = History()
        var expected: Set<History.Entry> = []
        for _ in 0..<2_000 {
            let entity = ["Book", "Author", "Caf\u{E9}", "B"][Int(random.next() % 4)]
            let kind = History.Kind(rawValue: UInt8(random.next() % 4))!
            let row = random.next() % 300
            history.record(kind, entity, row)
            expected.insert(History.Entry(kind: kind, entity: entity, row: row))
        }
        let bytes = history.encoded()
        let decoded = try #require(bytes.withUnsafeBytes { History.decode($0) })
        let reference = expected.sorted {
            ($0.entity, $0.row, $0.kind.rawValue) < ($1.entity, $1.row, $1.kind.rawValue)
        }
        #expect(decoded == reference)
        #expect(bytes.count == reference.reduce(0) { $0 + 10 + $1.entity.utf8.count })
    }
    /// A damaged `history.floor` used to stall refreshes: the refresh swallowed the error and
    /// tried again at every fetch, so a context never saw another context's commits. Now the
    /// damage is reported once (a pending load error without a model) and the context refreshes
    /// everything it holds.
    @Test func aDamagedHistoryFloorIsReportedOnceAndEverythingRefreshes() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let reader = ModelContext(container)
        let book = LibraryBook(isbn: "h-1", title: "Before")
        reader.insert(book)
        try reader.save()
        #expect(book.title == "Before")
        let meta = container.store.meta
        try container.store.environment.write { txn in
            var value = EntryLayout.counter(1, key: History.floorKey)
            value[7] ^= 0x01
            try txn.put(value, for: History.floorKey, in: meta)
        }
        let writer = ModelContext(container)
        let other = try #require(try writer.fetch(FetchDescriptor<LibraryBook>()).first)
        other.title = "After"
        try writer.save()

        #expect { try reader.fetch(FetchDescriptor<LibraryChapter>()) } throws: { error in
            guard let error = error as? FetchError else { return false }
            return error.code == .loadFailed && error.model == nil
                && (error.cause as? StorageError)?.code == .damagedRecord && error.message.contains("history floor")
        }
        #expect(book.title == "After", "the model was refreshed")

        // Reported once: later refreshes fall back to refreshing everything without throwing.
        other.title = "Later"
        try writer.save()
        #expect(try reader.fetch(FetchDescriptor<LibraryChapter>()).isEmpty)
        #expect(book.title == "Later")
    }

    /// A save that prunes the history rewrites a damaged floor instead of failing (which would
    /// fail every save from then on).
    @Test func pruningRewritesADamagedHistoryFloor() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let store = container.store
        let table = try #require(store.history)
        try store.environment.write { txn in
            var value = EntryLayout.counter(7, key: History.floorKey)
            value[0] ^= 0x80
            try txn.put(value, for: History.floorKey, in: store.meta)
            try txn.put(History().encoded(), for: EntryLayout.historyKey(commit: 3), in: table)
            var history = History()
            history.record(.inserted, "LibraryBook", 1)
            try history.write(commit: 5_000, history: table, meta: store.meta, txn: txn)
        }
        let (floor, old, new) = try store.environment.read { txn in
            (
                try History.floor(meta: store.meta, txn: txn),
                try txn.get(EntryLayout.historyKey(commit: 3), in: table),
                try txn.get(EntryLayout.historyKey(commit: 5_000), in: table)
            )
        }
        #expect(floor == 4_000)
        #expect(old == nil, "older entries dropped")
        #expect(new != nil)
    }
}

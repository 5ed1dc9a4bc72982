import Foundation
import Testing

@testable import Cairn

/// The history entry a save writes: every touched row once, stored as runs of rows, and read
/// back as written.
@Suite struct HistoryTests {
    @Test func entriesAreWrittenOnceAndReadBack() throws {
        var random = SeededGenerator(seed: 7)
        var history = ChangeLog()
        var expected: Set<ChangeLog.Entry> = []
        for _ in 0..<2_000 {
            let entity = InternedName(["Book", "Author", "Caf\u{E9}", "B"][Int(random.next() % 4)])
            let kind = ChangeLog.Kind(rawValue: UInt8(random.next() % 4))!
            let row = random.next() % 300
            history.record(kind, entity, row)
            expected.insert(ChangeLog.Entry(kind: kind, entity: entity, row: row))
        }
        let bytes = history.encoded()
        let decoded = try #require(bytes.withUnsafeBytes { ChangeLog.decode($0) })
        #expect(decoded.count == expected.count && Set(decoded) == expected)
    }

    @Test func consecutiveRowsTakeAFewBytes() throws {
        var history = ChangeLog()
        for row in 1...1_000_000 as ClosedRange<UInt64> { history.record(.inserted, "Author", row) }
        for row in stride(from: 10, through: 40, by: 10) as StrideThrough<UInt64> {
            history.record(.updated, "Book", row)
        }
        let bytes = history.encoded()
        // The runs take a few bytes beyond the commit's header (time, process).
        let header = ChangeLog().encoded().count
        #expect(bytes.count - header < 40)
        let decoded = try #require(bytes.withUnsafeBytes { ChangeLog.decode($0) })
        #expect(decoded.count == 1_000_004)
        #expect(decoded.filter { $0.entity == "Book" }.map(\.row) == [10, 20, 30, 40])
    }

    @Test func rowsInAnyOrderAreStoredAsTheSameRuns() {
        // Ascending rows are kept as runs as they come; rows out of order or repeated are sorted
        // and deduplicated when encoded. Both give the same bytes for the same rows.
        var random = SeededGenerator(seed: 11)
        let rows = (0..<3_000).map { _ in random.next() % 5_000 }.sorted()
        var ascending = ChangeLog()
        var shuffled = ChangeLog()
        var previous: UInt64?
        for row in rows where row != previous {
            ascending.record(.updated, "Book", row)
            ascending.record(.inserted, "Author", row * 2)
            previous = row
        }
        for row in rows.shuffled(using: &random) + rows.prefix(100) {
            shuffled.record(.inserted, "Author", row * 2)
            shuffled.record(.updated, "Book", row)
        }
        let now = Date()
        #expect(ascending.encoded(timestamp: now) == shuffled.encoded(timestamp: now))
    }

    @Test func entriesRoundTripWithTheirFieldsAndTombstonesAndAFlippedBitIsDamage() throws {
        let entry = EntryLayout.HistoryEntry(
            author: "importer", process: (4_242, "com.example.app"), timestamp: 1_800_000_000_123_456,
            groups: [
                EntryLayout.HistoryGroup(kind: 0, entity: "Book", rows: [1, 2, 3]),
                EntryLayout.HistoryGroup(kind: 1, entity: "Book", rows: [7, 9], fields: [0b101]),
                EntryLayout.HistoryGroup(kind: 3, entity: "Author", rows: [4], fields: [0, 1]),
            ],
            fieldNames: ["Book": ["title", "year", "isbn"], "Author": (0..<9).map { "field\($0)" }],
            tombstones: [EntryLayout.Tombstone(entity: "Book", row: 5, record: [1, 2, 3, 4, 5])])
        let value = EntryLayout.historyValue(entry, commit: 77)
        let decoded = try #require(value.withUnsafeBytes { EntryLayout.historyEntry($0, commit: 77) })
        #expect(decoded == entry)
        #expect(decoded.groups[1].fieldPositions == [0, 2])
        #expect(decoded.groups[2].fieldPositions == [8])
        // Under another commit's key, or with any bit flipped, it is damage, never other changes.
        #expect(value.withUnsafeBytes { EntryLayout.historyEntry($0, commit: 78) } == nil)
        for bit in 0..<(value.count * 8) {
            var flipped = value
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            let read = flipped.withUnsafeBytes { EntryLayout.historyEntry($0, commit: 77) }
            #expect(read == nil || read == entry, "bit \(bit)")
        }
    }

    @Test func entriesOfTheFirstFormatStillRead() throws {
        // One entry per row: kind, name length, name, row (u64 big-endian).
        let bytes: [UInt8] = [2, 1, 0x42, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0x42, 0, 0, 0, 0, 0, 0, 1, 0]
        let decoded = try #require(bytes.withUnsafeBytes { ChangeLog.decode($0) })
        #expect(
            decoded == [
                ChangeLog.Entry(kind: .deleted, entity: "B", row: 9),
                ChangeLog.Entry(kind: .inserted, entity: "B", row: 256),
            ])
    }

    @Test(
        arguments: [
            [0xC1, 7, 1, 0x42, 1, 0, 0],  // an unknown kind
            [0xC1, 0, 5, 0x42],  // a name cut off
            [0xC1, 0, 1, 0x42, 9, 0],  // more runs than bytes
            [0xC1, 0, 1, 0x42, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0],  // a gap past the last row
            [0xC1, 0, 1, 0x42, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // a run too long to be real
        ] as [[UInt8]])
    func damagedEntriesDoNotParse(_ bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { ChangeLog.decode($0) } == nil)
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
        func damageFloor() throws {
            try container.store.environment.write { txn in
                var value = EntryLayout.counter(1, key: StoreLayout.historyFloorKey)
                value[7] ^= 0x01
                try txn.put(value, for: StoreLayout.historyFloorKey, in: meta)
            }
        }
        let writer = ModelContext(container)
        let other = try #require(try writer.fetch(FetchDescriptor<LibraryBook>()).first)
        other.title = "After"
        try writer.save()
        // Damaged after the save (a save repairs it, aSaveRepairsADamagedHistoryFloor).
        try damageFloor()

        #expect { try reader.fetch(FetchDescriptor<LibraryChapter>()) } throws: { error in
            guard let error = error as? FetchError else { return false }
            return error.code == .loadFailed && error.model == nil
                && (error.cause as? StorageError)?.code == .damagedRecord && error.message.contains("history floor")
        }
        #expect(book.title == "After", "the model was refreshed")

        // Reported once: later refreshes fall back to refreshing everything without throwing.
        other.title = "Later"
        try writer.save()
        try damageFloor()
        #expect(try reader.fetch(FetchDescriptor<LibraryChapter>()).isEmpty)
        #expect(book.title == "Later")
    }

    /// A save repairs a damaged floor (left damaged, every context would refresh everything at
    /// every commit): the floor becomes the save's commit, and older entries stay.
    @Test func aSaveRepairsADamagedHistoryFloor() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let store = container.store
        let table = try #require(store.history)
        try store.environment.write { txn in
            var value = EntryLayout.counter(7, key: StoreLayout.historyFloorKey)
            value[0] ^= 0x80
            try txn.put(value, for: StoreLayout.historyFloorKey, in: store.meta)
            try txn.put(ChangeLog().encoded(), for: EntryLayout.historyKey(commit: 3), in: table)
            var history = ChangeLog()
            history.record(.inserted, "LibraryBook", 1)
            try history.write(commit: 5_000, history: table, meta: store.meta, txn: txn)
        }
        let (floor, old, new) = try store.environment.read { txn in
            (
                try ChangeLog.floor(meta: store.meta, txn: txn),
                try txn.get(EntryLayout.historyKey(commit: 3), in: table),
                try txn.get(EntryLayout.historyKey(commit: 5_000), in: table)
            )
        }
        #expect(floor == 5_000)
        #expect(old != nil, "older entries are kept")
        #expect(new != nil)
    }

    /// Writes one history entry under a new commit's own id; returns the id.
    private func commitEntry(_ rows: [UInt64], store: Store) throws -> UInt64 {
        let table = try #require(store.history)
        return try store.environment.write { txn in
            var history = ChangeLog()
            for row in rows { history.record(.updated, "LibraryBook", row) }
            try txn.put(history.encoded(commit: txn.id), for: EntryLayout.historyKey(commit: txn.id), in: table)
            return txn.id
        }
    }

    private func changes(after seen: UInt64, skipping own: Set<UInt64> = [], store: Store) throws -> ChangeLog.Changes {
        let table = try #require(store.history)
        return try store.environment.read { txn in
            try ChangeLog.changes(after: seen, skipping: own.contains, history: table, meta: store.meta, txn: txn)
        }
    }

    @Test func changesAfterACommitLeaveOutTheSkippedOnes() throws {
        let store = try libraryContainer(TemporaryDirectory()).store
        let first = try commitEntry([1], store: store)
        let second = try commitEntry([2], store: store)
        let third = try commitEntry([3, 4], store: store)
        guard case .entries(let all) = try changes(after: first, store: store) else {
            Issue.record("the history should say")
            return
        }
        #expect(all.map(\.row).sorted() == [2, 3, 4])
        guard case .entries(let others) = try changes(after: first, skipping: [second], store: store) else {
            Issue.record("the history should say")
            return
        }
        #expect(others.map(\.row).sorted() == [3, 4])
        guard case .entries(let none) = try changes(after: third, store: store) else {
            Issue.record("the history should say")
            return
        }
        #expect(none.isEmpty)
    }

    @Test func droppedOrDamagedEntriesMeanTheHistoryCannotSay() throws {
        let store = try libraryContainer(TemporaryDirectory()).store
        let table = try #require(store.history)
        let first = try commitEntry([1], store: store)
        _ = try commitEntry([2], store: store)
        // A floor past the commit after `first`: its entry may have been dropped.
        try store.environment.write { txn in
            try txn.put(EntryLayout.counter(first + 5, key: StoreLayout.historyFloorKey), for: StoreLayout.historyFloorKey, in: store.meta)
        }
        guard case .unknown = try changes(after: first, store: store) else {
            Issue.record("dropped entries cannot say which rows changed")
            return
        }
        // Back to no floor, and a damaged entry instead.
        let damaged = try store.environment.write { txn in
            try txn.put(EntryLayout.counter(0, key: StoreLayout.historyFloorKey), for: StoreLayout.historyFloorKey, in: store.meta)
            try txn.put([0xFF, 0xFF, 0xFF], for: EntryLayout.historyKey(commit: txn.id), in: table)
            return txn.id
        }
        guard case .unknown = try changes(after: first, store: store) else {
            Issue.record("a damaged entry cannot say which rows changed")
            return
        }
        guard case .entries = try changes(after: damaged, store: store) else {
            Issue.record("entries after the damaged one still read")
            return
        }
        // A damaged floor is its own answer, so the context can report it.
        try store.environment.write { txn in
            var value = EntryLayout.counter(1, key: StoreLayout.historyFloorKey)
            value[0] ^= 0x80
            try txn.put(value, for: StoreLayout.historyFloorKey, in: store.meta)
        }
        guard case .damagedFloor(let error) = try changes(after: first, store: store) else {
            Issue.record("a damaged floor is reported")
            return
        }
        #expect(error.code == .damagedRecord)
    }
}

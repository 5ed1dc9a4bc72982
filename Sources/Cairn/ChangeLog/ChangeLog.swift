import Foundation

/// What one save changed, as the `h` table keeps it: for other contexts (in this process or
/// another) to tell which of their models are stale (pull-based freshness, ARCHITECTURE §5), and
/// for the public history (``ModelContext/fetchHistory(_:)``, ``HistoryStore``).
///
/// The rows are kept per kind, entity and set of changed fields, and stored as runs of
/// consecutive row ids (``EntryLayout/historyValue(_:)`` owns the bytes), with the saving
/// context's author, the time, and the deleted rows' preserved values. The key is the commit's
/// transaction id (u64 big-endian). Entries are kept until ``ModelContext/deleteHistory(_:)``
/// removes them; `meta`'s `history.floor` holds the commit after the newest one removed.
struct ChangeLog {
    enum Kind: UInt8 {
        case inserted = 0, updated = 1, deleted = 2, edges = 3
    }

    struct Entry: Hashable {
        let kind: Kind
        let entity: InternedName
        let row: UInt64
    }

    /// How many commits a context reads the entries of to refresh what it holds: one further
    /// behind refreshes every model it holds instead, which costs less than reading them all.
    static let readCommitsLimit: UInt64 = 1_000
    /// `meta` key of the commit after the newest one whose entry was removed (u64 big-endian).

    private struct Bucket {
        let kind: Kind
        let entity: InternedName
        /// The changed fields, by property index of `entity`: an update's changed attributes and
        /// relationships, a row's rewritten relationships.
        let fields: PropertyBits

        func matches(_ kind: Kind, _ entity: InternedName, _ fields: PropertyBits) -> Bool {
            self.kind == kind && self.entity == entity && self.fields.low == fields.low
                && self.fields.high == fields.high
        }
    }

    /// The saving context's ``ModelContext/author``.
    var author: String?

    /// This process's identifier and bundle identifier (its name where it has none), read once.
    private static let process: (identifier: UInt64, bundle: String) = (
        UInt64(clamping: ProcessInfo.processInfo.processIdentifier),
        Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    )

    /// The rows recorded, per kind, entity and fields, as runs of consecutive rows in the order
    /// they came (repeats included): a save's rows mostly come ascending, so a hundred thousand
    /// rows are a run or a few, where a list of every row was freshly mapped memory to fill,
    /// sort and deduplicate. A save touches a few entities, so the groups are searched in order,
    /// the last one used first.
    private var groups: [(bucket: Bucket, runs: [EntryLayout.HistoryGroup.Run])] = []
    /// The position in `groups` of the last row recorded.
    private var last = 0
    /// The key of `groups[last]`: its kind, entity, fields below 64, and whether it has none above.
    private var lastKey: (kind: Kind, entity: InternedName, low: UInt64, isSmall: Bool) = (.inserted, "", 0, false)
    /// Deleted rows' preserved values.
    private var tombstones: [EntryLayout.Tombstone] = []

    init(author: String? = nil) {
        self.author = author
    }

    /// Whether nothing was recorded.
    var isEmpty: Bool { groups.isEmpty }

    /// Records that `row` of `entity` was changed as `kind` says, in `fields` (property indexes
    /// of `entity`).
    @inline(__always)
    mutating func record(_ kind: Kind, _ entity: InternedName, _ row: UInt64, fields: PropertyBits) {
        if fields.high.isEmpty {
            record(kind, entity, row, low: fields.low)
        } else {
            record(kind, entity, row, wide: fields)
        }
    }

    /// Records that `row` of `entity` was changed as `kind` says, in the property at index
    /// `field` of `entity` (none when it is negative): an insert, a delete, an edge rewrite.
    @inline(__always)
    mutating func record(_ kind: Kind, _ entity: InternedName, _ row: UInt64, field: Int = -1) {
        if field < 0 {
            record(kind, entity, row, low: 0)
        } else if field < 64 {
            record(kind, entity, row, low: 1 << UInt64(field))
        } else {
            var fields = PropertyBits()
            fields.insert(field)
            record(kind, entity, row, wide: fields)
        }
    }

    /// ``record(_:_:_:fields:)`` for fields below 64, given as a word: the common case, which
    /// compares the last group's key in plain words (a save's rows mostly come in long stretches
    /// of one group, and reading the group's bucket, with its array, for each row retained and
    /// released it).
    private mutating func record(_ kind: Kind, _ entity: InternedName, _ row: UInt64, low: UInt64) {
        guard lastKey.kind == kind, lastKey.entity == entity, lastKey.low == low, lastKey.isSmall, last < groups.count
        else {
            var fields = PropertyBits()
            fields.low = low
            return record(kind, entity, row, wide: fields)
        }
        append(row)
    }

    /// Finds or makes the group of `kind`, `entity` and `fields`, and records `row` in it.
    private mutating func record(_ kind: Kind, _ entity: InternedName, _ row: UInt64, wide fields: PropertyBits) {
        if let position = groups.firstIndex(where: { $0.bucket.matches(kind, entity, fields) }) {
            last = position
        } else {
            groups.append((Bucket(kind: kind, entity: entity, fields: fields), []))
            last = groups.count - 1
        }
        lastKey = (kind, entity, fields.low, fields.high.isEmpty)
        append(row)
    }

    /// Adds `row` to the runs of `groups[last]`.
    @inline(__always)
    private mutating func append(_ row: UInt64) {
        let runs = groups[last].runs.count
        if runs > 0, groups[last].runs[runs - 1].first &+ groups[last].runs[runs - 1].count == row {
            groups[last].runs[runs - 1].count += 1
        } else {
            groups[last].runs.append(EntryLayout.HistoryGroup.Run(first: row, count: 1))
        }
    }

    /// Records a deleted row's preserved values: `record` holds the fields of its
    /// `.preserveValueOnDeletion` attributes.
    mutating func recordTombstone(_ entity: InternedName, _ row: UInt64, record: [UInt8]) {
        tombstones.append(EntryLayout.Tombstone(entity: entity.text, row: row, record: record))
    }

    /// The stored value: groups by entity, then kind; rows ascending, each once; the fields as
    /// bit sets over each entity's names, which `name` gives for a property index of an entity.
    func encoded(
        commit: UInt64 = 0, timestamp: Date = Date(), name: (InternedName, Int) -> String? = { _, _ in nil }
    ) -> [UInt8] {
        let named = namedFields(name)
        var fieldNames: [String: [String]] = [:]
        for entity in named where !entity.names.isEmpty { fieldNames[entity.entity.text] = entity.names }
        let ordered = groups.map { (entity: $0.bucket.entity.text, group: $0) }.sorted {
            ($0.entity, $0.group.bucket.kind.rawValue) < ($1.entity, $1.group.bucket.kind.rawValue)
        }
        let encodedGroups = ordered.map { entity, group in
            let kind = group.bucket.kind.rawValue
            var fields: [UInt8] = []
            let indexes = named.first { $0.entity == group.bucket.entity }?.indexes ?? []
            for index in Self.indexes(of: group.bucket.fields) {
                guard let position = indexes.firstIndex(of: index) else { continue }
                if fields.count <= position / 8 { fields += repeatElement(0, count: position / 8 + 1 - fields.count) }
                fields[position / 8] |= 1 << UInt8(position % 8)
            }
            let runs = group.runs
            // Runs that came ascending and apart are the stored runs as they are.
            if runs.indices.dropFirst().allSatisfy({ runs[$0].first > runs[$0 - 1].first &+ runs[$0 - 1].count }) {
                return EntryLayout.HistoryGroup(kind: kind, entity: entity, runs: runs, fields: fields)
            }
            var rows = runs.flatMap { $0.first..<($0.first &+ $0.count) }
            rows.sort()
            var unique: [UInt64] = []
            unique.reserveCapacity(rows.count)
            for row in rows where unique.last != row { unique.append(row) }
            return EntryLayout.HistoryGroup(kind: kind, entity: entity, rows: unique, fields: fields)
        }
        let microseconds = UInt64(max(0, (timestamp.timeIntervalSince1970 * 1_000_000).rounded()))
        return EntryLayout.historyValue(
            EntryLayout.HistoryEntry(
                author: author, process: Self.process, timestamp: microseconds, groups: encodedGroups,
                fieldNames: fieldNames,
                tombstones: tombstones), commit: commit)
    }

    /// Each entity's changed fields that `name` names, ascending by property index, with their
    /// names: a field's position in its entity's list is its bit in the groups' bit sets. A list
    /// searched in order, not dictionaries: a save changes the fields of a few entities (three
    /// dictionaries made and hashed were a sixth of a one-model save).
    private func namedFields(
        _ name: (InternedName, Int) -> String?
    ) -> [(entity: InternedName, indexes: [Int], names: [String])] {
        var named: [(entity: InternedName, indexes: [Int], names: [String])] = []
        for (bucket, _) in groups where !bucket.fields.isEmpty {
            let position: Int
            if let found = named.firstIndex(where: { $0.entity == bucket.entity }) {
                position = found
            } else {
                named.append((bucket.entity, [], []))
                position = named.count - 1
            }
            for index in Self.indexes(of: bucket.fields) where !named[position].indexes.contains(index) {
                named[position].indexes.append(index)
            }
        }
        for position in named.indices {
            let entity = named[position].entity
            var indexes: [Int] = []
            for index in named[position].indexes.sorted() {
                guard let name = name(entity, index) else { continue }
                indexes.append(index)
                named[position].names.append(name)
            }
            named[position].indexes = indexes
        }
        return named
    }

    /// The property indexes in `bits`, ascending.
    private static func indexes(of bits: PropertyBits) -> [Int] {
        var indexes: [Int] = []
        func add(_ word: UInt64, from base: Int) {
            var rest = word
            while rest != 0 {
                indexes.append(base + rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
        add(bits.low, from: 0)
        for (word, value) in bits.high.enumerated() { add(value, from: (word + 1) * 64) }
        return indexes
    }

    /// The entries of a stored value, or `nil` when it does not parse.
    static func decode(_ bytes: UnsafeRawBufferPointer, commit: UInt64 = 0) -> [Entry]? {
        EntryLayout.historyEntry(bytes, commit: commit).flatMap(entries(of:))
    }

    /// The entries of a stored entry's groups, or `nil` when a group's kind is unknown.
    static func entries(of entry: EntryLayout.HistoryEntry) -> [Entry]? {
        let groups = entry.groups
        var entries: [Entry] = []
        for group in groups {
            guard let kind = Kind(rawValue: group.kind) else { return nil }
            let entity = InternedName(group.entity)
            entries += group.rows.map { Entry(kind: kind, entity: entity, row: $0) }
        }
        return entries
    }

    /// Writes this commit's entry. A damaged floor is set to this commit: readers that had seen
    /// less then refresh everything, and older tokens expire, which is correct. Left damaged, it
    /// would make every context refresh everything at every commit from now on.
    func write(
        commit: UInt64, history: Table, meta: Table, txn: borrowing WriteTransaction,
        name: (InternedName, Int) -> String? = { _, _ in nil }
    ) throws {
        try txn.put(encoded(commit: commit, name: name), for: EntryLayout.historyKey(commit: commit), in: history)
        do {
            _ = try Self.floor(meta: meta, txn: txn)
        } catch let error as StorageError where error.code == .damagedRecord {
            try txn.put(EntryLayout.counter(commit, key: StoreLayout.historyFloorKey), for: StoreLayout.historyFloorKey, in: meta)
        }
    }

    /// What other writers' commits changed, as one read finds it (see ``changes(after:skipping:history:meta:txn:)``).
    enum Changes {
        /// The rows the commits after the one asked about touched, up to the read's snapshot.
        case entries([Entry])
        /// The history cannot say: entries were deleted, one is damaged, or there are more than
        /// ``readCommitsLimit`` to read. Every model must be refreshed.
        case unknown
        /// The history floor in `meta` is damaged: every model must be refreshed, and the damage
        /// reported.
        case damagedFloor(StorageError)
    }

    /// What the history table holds for the commits after `seen` up to `txn`'s snapshot: the one
    /// reader of it for what changed since a commit (a context's freshness, its live queries).
    enum Read {
        /// The entries of those commits, oldest first (those `isSkipped` names left out).
        case entries([EntryLayout.HistoryEntry])
        /// The history cannot say: entries were removed (the floor is past `seen`), one is
        /// damaged, or there are more than ``ChangeLog/readCommitsLimit`` to read.
        case unknown
        /// The history floor in `meta` is damaged.
        case damagedFloor(StorageError)
    }

    /// The entries of the commits after `seen` up to `txn`'s snapshot, leaving out those
    /// `isSkipped` names (a context's own), with the floor rule (``keepsEntries(after:meta:txn:)``).
    static func read(
        after seen: UInt64, skipping isSkipped: (UInt64) -> Bool = { _ in false }, history: Table, meta: Table,
        txn: borrowing ReadTransaction
    ) throws -> Read {
        let kept: Bool
        do {
            kept = try keepsEntries(after: seen, meta: meta, txn: txn)
        } catch let error as StorageError where error.code == .damagedRecord {
            // Damage, not a passing failure: trying again next time would fail forever and never
            // take another commit into account.
            return .damagedFloor(error)
        }
        // Entries were removed, or reading them all would cost more than refreshing everything.
        guard kept, txn.id >= seen, txn.id - seen <= readCommitsLimit else { return .unknown }
        var entries: [EntryLayout.HistoryEntry] = []
        var damaged = false
        let range = KeyRange(
            from: .exclusive(EntryLayout.historyKey(commit: seen)),
            to: .inclusive(EntryLayout.historyKey(commit: txn.id)))
        try scan(history, range, txn: txn) { stored in
            switch stored {
            case .entry(let commit, let entry):
                if !isSkipped(commit) { entries.append(entry) }
                return true
            case .damagedEntry(let commit) where isSkipped(commit):
                return true
            case .damagedEntry, .damagedKey:
                // A damaged entry cannot say which rows changed.
                damaged = true
                return false
            }
        }
        return damaged ? .unknown : .entries(entries)
    }

    /// One stored entry of the history table, as ``scan(_:_:txn:_:)`` finds it.
    enum StoredEntry {
        case entry(commit: UInt64, EntryLayout.HistoryEntry)
        /// The entry of `commit` fails its checksum or cannot be decoded.
        case damagedEntry(commit: UInt64)
        /// The entry's key is not a commit number.
        case damagedKey(StorageError)
    }

    /// Reads the history table's entries in `range`, oldest first, until `body` returns `false`:
    /// the one function that reads the `h` table's entries (what changed since a commit, the
    /// public history, its deletion, `cairn history`; ``commitRange(of:txn:)`` reads only its
    /// first and last keys).
    static func scan(
        _ history: Table, _ range: KeyRange, txn: borrowing some StorageTransaction & ~Copyable,
        _ body: (StoredEntry) throws -> Bool
    ) throws {
        try txn.scan(history, range) { key, value in
            let commit: UInt64
            do {
                commit = try EntryLayout.commit(historyKey: key, table: history)
            } catch let error as StorageError {
                return try body(.damagedKey(error))
            }
            guard let entry = EntryLayout.historyEntry(value, commit: commit) else {
                return try body(.damagedEntry(commit: commit))
            }
            return try body(.entry(commit: commit, entry))
        }
    }

    /// The commits of the oldest and the newest entries the history table holds (`nil` when it
    /// is empty, or for a damaged key).
    static func commitRange(
        of history: Table, txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> (first: UInt64?, last: UInt64?) {
        var range: (first: UInt64?, last: UInt64?) = (nil, nil)
        try txn.scan(history) { key, _ in
            range.first = try? EntryLayout.commit(historyKey: key, table: history)
            return false
        }
        try txn.scan(history, direction: .backward) { key, _ in
            range.last = try? EntryLayout.commit(historyKey: key, table: history)
            return false
        }
        return range
    }

    /// Whether the history still holds every entry after commit `seen`: the floor rule. Entries
    /// before the floor were deleted, so a reader that has not seen every commit before it cannot
    /// know what changed (its token expired).
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the floor in `meta` is damaged.
    static func keepsEntries(
        after seen: UInt64, meta: Table, txn: borrowing some StorageTransaction & ~Copyable
    ) throws -> Bool {
        seen &+ 1 >= (try floor(meta: meta, txn: txn))
    }

    /// The rows the commits after `seen` changed, one entry per row and kind (see ``read(after:skipping:history:meta:txn:)``).
    static func changes(
        after seen: UInt64, skipping isSkipped: (UInt64) -> Bool, history: Table, meta: Table,
        txn: borrowing ReadTransaction
    ) throws -> Changes {
        switch try read(after: seen, skipping: isSkipped, history: history, meta: meta, txn: txn) {
        case .unknown: return .unknown
        case .damagedFloor(let error): return .damagedFloor(error)
        case .entries(let stored):
            var entries: [Entry] = []
            for entry in stored {
                guard let decoded = Self.entries(of: entry) else { return .unknown }
                entries += decoded
            }
            return .entries(entries)
        }
    }

    /// The commit after the newest one whose entry was removed (0 before any was).
    static func floor(meta: Table, txn: borrowing some StorageTransaction & ~Copyable) throws -> UInt64 {
        try txn.get(StoreLayout.historyFloorKey, in: meta).map { try EntryLayout.counter($0, key: StoreLayout.historyFloorKey, table: meta) } ?? 0
    }

    /// Calls `body` with each row an entry names: the group's kind, the tables of the row's own
    /// class, the row, and the names of the fields changed (none for inserts and deletes, and in
    /// entries of the earlier formats). Rows of entities the schema no longer has are left out.
    static func forEachRow(
        of entry: EntryLayout.HistoryEntry, store: Store,
        _ body: (UInt8, Store.EntityTables, UInt64, [String]) throws -> Void
    ) rethrows {
        for group in entry.groups {
            guard let named = store.entitiesByName[InternedName(group.entity)] else { continue }
            let names = entry.fieldNames[group.entity] ?? []
            let fields = group.fieldPositions.compactMap { $0 < names.count ? names[$0] : nil }
            for run in group.runs {
                for row in run.first..<(run.first &+ run.count) {
                    guard let tables = named.tables(forRow: row) else { continue }
                    try body(group.kind, tables, row, fields)
                }
            }
        }
    }
}

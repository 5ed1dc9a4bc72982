import Foundation

/// What one save changed, as the `h` table keeps it, so other contexts (in this process or
/// another) can tell which of their models are stale: pull-based freshness (ARCHITECTURE §5).
///
/// The rows are kept per kind and entity and stored as runs of consecutive row ids
/// (``EntryLayout/historyValue(_:)`` owns the bytes). The key is the commit's transaction id
/// (u64 big-endian). Only the newest ``retainedCommits`` commits are kept; `meta`'s
/// `history.floor` holds the oldest id kept.
struct History {
    enum Kind: UInt8 {
        case inserted = 0, updated = 1, deleted = 2, edges = 3
    }

    struct Entry: Hashable {
        let kind: Kind
        let entity: InternedName
        let row: UInt64
    }

    /// How many commits the table keeps; a context that has not looked for longer refreshes
    /// every model it holds.
    static let retainedCommits: UInt64 = 1_000
    /// `meta` key of the oldest commit id whose entry is kept (u64 big-endian).
    static let floorKey = Array("history.floor".utf8)

    private struct Bucket {
        let kind: Kind
        let entity: InternedName
    }

    /// The rows recorded, per kind and entity, as runs of consecutive rows in the order they came
    /// (repeats included): a save's rows mostly come ascending, so a hundred thousand rows are a
    /// run or a few, where a list of every row was freshly mapped memory to fill, sort and
    /// deduplicate. A save touches a few entities, so the groups are searched in order, the last
    /// one used first.
    private var groups: [(bucket: Bucket, runs: [EntryLayout.HistoryGroup.Run])] = []
    /// The position in `groups` of the last row recorded.
    private var last = 0

    /// Whether nothing was recorded.
    var isEmpty: Bool { groups.isEmpty }

    mutating func record(_ kind: Kind, _ entity: InternedName, _ row: UInt64) {
        if last >= groups.count || groups[last].bucket.kind != kind || groups[last].bucket.entity != entity {
            if let position = groups.firstIndex(where: { $0.bucket.kind == kind && $0.bucket.entity == entity }) {
                last = position
            } else {
                groups.append((Bucket(kind: kind, entity: entity), []))
                last = groups.count - 1
            }
        }
        let runs = groups[last].runs.count
        if runs > 0, groups[last].runs[runs - 1].first &+ groups[last].runs[runs - 1].count == row {
            groups[last].runs[runs - 1].count += 1
        } else {
            groups[last].runs.append(EntryLayout.HistoryGroup.Run(first: row, count: 1))
        }
    }

    /// The stored value: groups by entity, then kind; rows ascending, each once.
    func encoded() -> [UInt8] {
        let ordered = groups.map { (entity: $0.bucket.entity.text, group: $0) }.sorted {
            ($0.entity, $0.group.bucket.kind.rawValue) < ($1.entity, $1.group.bucket.kind.rawValue)
        }
        let encodedGroups = ordered.map { entity, group in
            let kind = group.bucket.kind.rawValue
            let runs = group.runs
            // Runs that came ascending and apart are the stored runs as they are.
            if runs.indices.dropFirst().allSatisfy({ runs[$0].first > runs[$0 - 1].first &+ runs[$0 - 1].count }) {
                return EntryLayout.HistoryGroup(kind: kind, entity: entity, runs: runs)
            }
            var rows = runs.flatMap { $0.first..<($0.first &+ $0.count) }
            rows.sort()
            var unique: [UInt64] = []
            unique.reserveCapacity(rows.count)
            for row in rows where unique.last != row { unique.append(row) }
            return EntryLayout.HistoryGroup(kind: kind, entity: entity, rows: unique)
        }
        return EntryLayout.historyValue(encodedGroups)
    }

    /// The entries of a stored value, or `nil` when it does not parse.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [Entry]? {
        guard let groups = EntryLayout.historyGroups(bytes) else { return nil }
        var entries: [Entry] = []
        for group in groups {
            guard let kind = Kind(rawValue: group.kind) else { return nil }
            let entity = InternedName(group.entity)
            entries += group.rows.map { Entry(kind: kind, entity: entity, row: $0) }
        }
        return entries
    }

    /// Writes this commit's entry and drops entries older than ``retainedCommits``.
    func write(commit: UInt64, history: Table, meta: Table, txn: borrowing WriteTransaction) throws {
        try txn.put(encoded(), for: EntryLayout.historyKey(commit: commit), in: history)
        guard commit > Self.retainedCommits else { return }
        let floor = commit - Self.retainedCommits
        // A damaged floor is rewritten, with every entry below the new floor dropped: readers that
        // had seen less then refresh everything, which is correct. Failing here would fail every
        // save of every context from now on.
        let stored: UInt64
        do {
            stored = try Self.floor(meta: meta, txn: txn)
        } catch let error as StorageError where error.code == .damagedRecord {
            stored = 0
        }
        guard floor > stored + Self.retainedCommits / 10 else { return }  // prune in steps
        var old: [[UInt8]] = []
        try txn.scan(history, KeyRange(to: .exclusive(EntryLayout.historyKey(commit: floor)))) { key, _ in
            old.append(Array(key))
            return true
        }
        for key in old { _ = try txn.delete(key, in: history) }
        try txn.put(EntryLayout.counter(floor, key: Self.floorKey), for: Self.floorKey, in: meta)
    }

    /// What other writers' commits changed, as one read finds it (see ``changes(after:skipping:history:meta:txn:)``).
    enum Changes {
        /// The rows the commits after the one asked about touched, up to the read's snapshot.
        case entries([Entry])
        /// The history cannot say: entries were dropped by pruning, or one is damaged. Every model
        /// must be refreshed.
        case unknown
        /// The history floor in `meta` is damaged: every model must be refreshed, and the damage
        /// reported.
        case damagedFloor(StorageError)
    }

    /// The entries of the commits after `seen` up to `txn`'s snapshot, leaving out those
    /// `isSkipped` names (a context's own).
    static func changes(
        after seen: UInt64, skipping isSkipped: (UInt64) -> Bool, history: Table, meta: Table,
        txn: borrowing ReadTransaction
    ) throws -> Changes {
        let floor: UInt64
        do {
            floor = try Self.floor(meta: meta, txn: txn)
        } catch let error as StorageError where error.code == .damagedRecord {
            // Damage, not a passing failure: trying again next time would fail forever and never
            // take another commit into account.
            return .damagedFloor(error)
        }
        guard seen + 1 >= floor else { return .unknown }  // entries were dropped
        var entries: [Entry] = []
        var damaged = false
        let range = KeyRange(
            from: .exclusive(EntryLayout.historyKey(commit: seen)),
            to: .inclusive(EntryLayout.historyKey(commit: txn.id)))
        try txn.scan(history, range) { key, value in
            // A damaged entry cannot say which rows changed.
            guard let commit = try? EntryLayout.commit(historyKey: key, table: history) else {
                damaged = true
                return false
            }
            guard !isSkipped(commit) else { return true }
            guard let decoded = Self.decode(value) else {
                damaged = true
                return false
            }
            entries += decoded
            return true
        }
        return damaged ? .unknown : .entries(entries)
    }

    /// The oldest commit id whose entry is kept (0 before the first pruning).
    static func floor(meta: Table, txn: borrowing some StorageTransaction & ~Copyable) throws -> UInt64 {
        try txn.get(floorKey, in: meta).map { try EntryLayout.counter($0, key: floorKey, table: meta) } ?? 0
    }
}

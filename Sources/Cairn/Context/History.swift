import Foundation

/// What one save changed, as the `h` table keeps it, so other contexts (in this process or
/// another) can tell which of their models are stale: pull-based freshness (ARCHITECTURE §5).
///
/// Value layout: a sequence of entries, each `kind` (1 byte: 0 inserted, 1 updated, 2 deleted,
/// 3 edges rewritten), the entity name's length (1 byte) and UTF-8 bytes, and the row id (u64
/// big-endian). The key is the commit's transaction id (u64 big-endian). Only the newest
/// ``retainedCommits`` commits are kept; `meta`'s `history.floor` holds the oldest id kept.
struct History {
    enum Kind: UInt8 {
        case inserted = 0, updated = 1, deleted = 2, edges = 3
    }

    struct Entry: Hashable {
        let kind: Kind
        let entity: String
        let row: UInt64
    }

    /// How many commits the table keeps; a context that has not looked for longer refreshes
    /// every model it holds.
    static let retainedCommits: UInt64 = 1_000
    /// `meta` key of the oldest commit id whose entry is kept (u64 big-endian).
    static let floorKey = Array("history.floor".utf8)

    private(set) var entries: Set<Entry> = []

    mutating func record(_ kind: Kind, _ entity: String, _ row: UInt64) {
        entries.insert(Entry(kind: kind, entity: entity, row: row))
    }

    func encoded() -> [UInt8] {
        // Entity by entity (each name's bytes made once), then by row and kind: the order and
        // bytes are those of sorting every entry by (entity, row, kind).
        var bytes: [UInt8] = []
        let byEntity = Dictionary(grouping: entries, by: \.entity)
        for entity in byEntity.keys.sorted() {
            let name = Array(entity.utf8.prefix(255))
            bytes.reserveCapacity(bytes.count + byEntity[entity]!.count * (10 + name.count))
            for entry in byEntity[entity]!.sorted(by: { ($0.row, $0.kind.rawValue) < ($1.row, $1.kind.rawValue) }) {
                bytes.append(entry.kind.rawValue)
                bytes.append(UInt8(name.count))
                bytes += name
                bytes += EntryLayout.rowKey(entry.row)
            }
        }
        return bytes
    }

    /// The entries of a stored value; damaged bytes end the list (the reader then refreshes all).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [Entry]? {
        var entries: [Entry] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count, let kind = Kind(rawValue: bytes[offset]) else { return nil }
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length + 8 <= bytes.count,
                let entity = String(validating: bytes[(offset + 2)..<(offset + 2 + length)], as: UTF8.self),
                let row = EntryLayout.bigEndianUInt64(in: bytes, at: offset + 2 + length)
            else { return nil }
            entries.append(Entry(kind: kind, entity: entity, row: row))
            offset += 2 + length + 8
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

    /// The oldest commit id whose entry is kept (0 before the first pruning).
    static func floor(meta: Table, txn: borrowing some StorageTransaction & ~Copyable) throws -> UInt64 {
        try txn.get(floorKey, in: meta).map { try EntryLayout.counter($0, key: floorKey, table: meta) } ?? 0
    }
}

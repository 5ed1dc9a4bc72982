import CairnStorage
import Foundation

/// Keys stored end to end in one array, by position: the unique keys of a save's inserted
/// models, the keys of a captured list a fetch looks up (`ids.contains($0.id)`).
///
/// A hundred thousand keys as `[[UInt8]]` are a hundred thousand small heap arrays, scattered:
/// each later pass over them (the lookups, the claims, the writes) missed the caches on every
/// key, and each copy retained one. Here they are one array read front to back.
///
/// ```swift
/// var keys = KeyList()
/// var builder = KeyBuilder()
/// builder.append(Int64(42))
/// keys.append(builder)
/// let row = try keys.withKey(0) { try txn.uniqueRow(for: $0, in: table) }
/// ```
struct KeyList {
    /// Every key's bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where each key ends in ``bytes``.
    private var ends: [Int] = []

    init() {}

    /// Room for `keys` keys of about `bytesPerKey` bytes each.
    init(reservingCapacity keys: Int, bytesPerKey: Int = 16) {
        bytes.reserveCapacity(keys * bytesPerKey)
        ends.reserveCapacity(keys)
    }

    var count: Int { ends.count }
    var isEmpty: Bool { ends.isEmpty }

    /// The bytes the list holds, for sizing a transaction.
    var byteCount: Int { bytes.count }

    /// Appends the key `builder` holds, finalized (a key too long for LMDB is cut and hashed, as
    /// ``KeyBuilder/finalized()`` does).
    mutating func append(_ builder: KeyBuilder) {
        if builder.bytes.count >= KeyBuilder.maximumLength {
            bytes.append(contentsOf: builder.finalized())
        } else {
            bytes.append(contentsOf: builder.bytes)
        }
        ends.append(bytes.count)
    }

    /// Appends a finalized key.
    mutating func append(_ key: [UInt8]) {
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
    }

    /// Appends key `index` of `other`.
    mutating func append(_ index: Int, of other: KeyList) {
        bytes.append(contentsOf: other.bytes[other.range(of: index)])
        ends.append(bytes.count)
    }

    /// Key `index`, as an array of its own (for the rare paths that keep a key).
    subscript(index: Int) -> [UInt8] { Array(bytes[range(of: index)]) }

    /// Every key, each as an array of its own (for the rare paths that hash them).
    var arrays: [[UInt8]] { (0..<count).map { self[$0] } }

    /// Whether every key is shorter than `length` bytes (a finalized key of
    /// ``KeyBuilder/maximumLength`` bytes was cut and hashed).
    func allShorter(than length: Int) -> Bool {
        var start = 0
        for end in ends {
            if end - start >= length { return false }
            start = end
        }
        return true
    }

    /// Calls `body` with key `index`'s bytes.
    func withKey<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = range(of: index)
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Whether key `index` is empty: a unique key of a model whose values include one not equal
    /// to itself (a NaN), which claims nothing (``Store/EntityTables/UniqueConstraint/key(of:)``).
    func isEmptyKey(_ index: Int) -> Bool { range(of: index).isEmpty }

    /// Whether keys `first` and `second` have the same bytes.
    func keysEqual(_ first: Int, _ second: Int) -> Bool {
        withKey(first) { a in withKey(second) { b in a.hasSameBytes(as: b) } }
    }

    /// Feeds key `index` to `hasher` as one block of bytes.
    func hashKey(_ index: Int, into hasher: inout Hasher) {
        withKey(index) { hasher.combine(bytes: $0) }
    }

    /// Whether the keys of each table (by `table(index)`) ascend strictly in the list's order,
    /// bytes compared lexicographically (a key before any longer key it starts): then no two
    /// keys of a table are equal, which takes one comparison per key, where hashing every key
    /// into a table missed the cache at each.
    ///
    /// ```swift
    /// if keys.ascendStrictly(table: { keyTables[$0].handle }) { … }   // no key repeats
    /// ```
    func ascendStrictly(table: (Int) -> UInt32) -> Bool {
        // The last key of each table met, by handle: a save's keys span a few tables.
        var last: [(table: UInt32, index: Int)] = []
        return bytes.withUnsafeBytes { all in
            // Empty keys claim nothing (see `isEmptyKey`): they never repeat.
            for index in 0..<count where !isEmptyKey(index) {
                let handle = table(index)
                guard let position = last.firstIndex(where: { $0.table == handle }) else {
                    last.append((handle, index))
                    continue
                }
                let previous = UnsafeRawBufferPointer(rebasing: all[range(of: last[position].index)])
                guard previous.lexicographicallyPrecedes(UnsafeRawBufferPointer(rebasing: all[range(of: index)])) else {
                    return false
                }
                last[position].index = index
            }
            return true
        }
    }

    private func range(of index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }
}

/// The last of equal keys, by table: which key of a ``KeyList`` was seen last with the same bytes
/// in the same table. A hash table of key positions, where a dictionary keyed by the keys would
/// copy and retain each one.
///
/// ```swift
/// var seen = LastEqualKey(capacity: keys.count)
/// if let earlier = seen.note(3, table: table.handle, in: keys) { … }   // key 3 repeats key `earlier`
/// ```
struct LastEqualKey {
    /// Per slot, open addressing with linear probing: the noted key's position + 1 in the low 32
    /// bits (0: empty) and the upper 32 bits of its hash above them, so a probe compares keys only
    /// when those agree. One array: a save's table is allocated fresh, and each probe that read a
    /// second array, or the key's bytes, missed the cache once more.
    private var slots: [UInt64]
    /// Each noted key's table, by the key's position.
    private var tables: [UInt32]
    private let mask: Int

    /// A table for keys at positions below `capacity`.
    init(capacity: Int) {
        precondition(capacity < Int(UInt32.max), "LastEqualKey: more keys than one save can hold")
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        tables = Array(repeating: 0, count: capacity)
        mask = size - 1
    }

    /// Notes key `index` of `keys` in `table`; returns the key noted before with the same bytes
    /// and table, which it replaces.
    mutating func note(_ index: Int, table: UInt32, in keys: KeyList) -> Int? {
        var hasher = Hasher()
        hasher.combine(table)
        keys.hashKey(index, into: &hasher)
        let hash = UInt64(UInt(bitPattern: hasher.finalize()))
        let fingerprint = hash & 0xFFFF_FFFF_0000_0000
        let entry = fingerprint | UInt64(index + 1)
        tables[index] = table
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if slots[slot] & 0xFFFF_FFFF_0000_0000 == fingerprint {
                let other = Int(slots[slot] & 0xFFFF_FFFF) - 1
                if tables[other] == table && keys.keysEqual(other, index) {
                    slots[slot] = entry
                    return other
                }
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = entry
        return nil
    }
}

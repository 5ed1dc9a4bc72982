import CairnStorage
import Foundation

/// Numbers the groups of stored rows by the bytes of their grouping values, so that a grouped
/// aggregate over a million rows makes no value, string or array per row. A row's group key is
/// either bytes it already has (an index key's grouping components, ``group(of:)``) or bytes
/// written into one reused buffer (a record's fields, ``begin()``, ``append(_:of:)``,
/// ``group()``). Keys are looked up in an open-addressing table whose keys live in one buffer,
/// and the row gets its group's number.
///
/// Equal bytes mean equal values; equal values with different bytes (`0.0` and `-0.0`) become
/// two groups here, which the caller merges once it has decoded each group's key
/// (``parts(of:related:)``, ``bytes(of:)``).
///
/// ```swift
/// var groups = FieldGroups()
/// groups.begin(); groups.append(fields[0], of: scanner)
/// let group = groups.group(ordered: false)   // 0 for the first key seen, then 1, …
/// ```
struct FieldGroups {
    /// The key being built, in its first ``keyCount`` bytes.
    private var key: [UInt8] = Array(repeating: 0, count: 64)
    private var keyCount = 0
    /// Every group's key, one after another.
    private var keys: [UInt8] = []
    /// Where each group's key starts in ``keys`` (and, last, where the next would).
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Group number + 1 in each slot, 0 for none; a power of two long.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    /// The last row's group.
    private var last = -1
    /// The hash's seed, new for each aggregation: bytes a store holds cannot be chosen to
    /// collide.
    private let seed = UInt64.random(in: .min ... .max)

    /// How many groups there are.
    var count: Int { hashes.count }

    /// Starts a row's key.
    mutating func begin() { keyCount = 0 }

    /// Adds a field of the scanner's record (`nil`: absent) to the row's key: a kind byte, then
    /// the payload (a scalar's eight bytes, or bytes with their length).
    mutating func append(_ field: RecordReader.Field?, of scanner: RecordScanner) {
        guard let field else { return appendScalar(0, nil) }
        switch field.wireType {
        case .varint: appendScalar(1, field.scalar)
        case .fixed32: appendScalar(2, field.scalar)
        case .fixed64: appendScalar(3, field.scalar)
        case .lengthDelimited: scanner.withBytes(of: field) { append(kind: 4, length: UInt64($0.count), raw: $0) }
        }
    }

    /// Adds a related row (a to-one relationship's target; `nil`: none) to the row's key.
    mutating func append(row: UInt64?) { appendScalar(row == nil ? 0 : 5, row) }

    /// Adds bytes as they are (index key components, which delimit themselves).
    mutating func append(raw bytes: UnsafeRawBufferPointer) { append(kind: nil, length: nil, raw: bytes) }

    /// A kind byte, then the value's eight bytes (none for `nil`, whose kind is 0).
    private mutating func appendScalar(_ kind: UInt8, _ value: UInt64?) {
        append(kind: kind, length: value, raw: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// A kind byte and an eight-byte scalar, each if given, then bytes.
    @inline(__always)
    private mutating func append(kind: UInt8?, length: UInt64?, raw bytes: UnsafeRawBufferPointer) {
        reserve(9 + bytes.count)
        var offset = keyCount
        key.withUnsafeMutableBytes { key in
            if let kind {
                key[offset] = kind
                offset += 1
            }
            if let length {
                key.storeBytes(of: length.littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if let source = bytes.baseAddress {
                (key.baseAddress! + offset).copyMemory(from: source, byteCount: bytes.count)
                offset += bytes.count
            }
        }
        keyCount = offset
    }

    private mutating func reserve(_ count: Int) {
        if keyCount + count > key.count { key += repeatElement(0, count: max(keyCount + count, 2 * key.count) - key.count) }
    }

    /// The number of the group whose key is the row's key built with ``begin()``, made if new;
    /// `ordered` when rows come in the order of their keys (``group(of:)``), otherwise
    /// ``group(ofUnordered:)``.
    mutating func group(ordered: Bool) -> Int {
        let (key, count) = (key, keyCount)
        return key.withUnsafeBytes { key in
            let bytes = UnsafeRawBufferPointer(rebasing: key[..<count])
            return ordered ? group(of: bytes) : group(ofUnordered: bytes)
        }
    }

    /// The number of the group whose key is `bytes`, made if new. Rows read in key order come in
    /// runs of one group: a row of the last row's group costs one comparison.
    mutating func group(of bytes: UnsafeRawBufferPointer) -> Int {
        if last >= 0, isKey(of: last, bytes) { return last }
        last = lookUp(bytes, hash: ByteHashing.hash(bytes, seed: seed))
        return last
    }

    /// The same for rows in no particular order: the bytes are hashed first, and the last row's
    /// group is the answer only when its hash is equal.
    @inline(__always)
    mutating func group(ofUnordered bytes: UnsafeRawBufferPointer) -> Int {
        let hash = ByteHashing.hash(bytes, seed: seed)
        if last >= 0, hashes[last] == hash, isKey(of: last, bytes) { return last }
        last = lookUp(bytes, hash: hash)
        return last
    }

    @inline(__always)
    private mutating func lookUp(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let group = Int(slots[slot]) - 1
            if hashes[group] == hash && isKey(of: group, bytes) { return group }
            slot = (slot + 1) & mask
        }
        let group = hashes.count
        hashes.append(hash)
        keys.append(contentsOf: bytes)
        starts.append(keys.count)
        slots[slot] = Int32(truncatingIfNeeded: group + 1)
        if hashes.count * 2 > slots.count { rehash() }
        return group
    }

    /// Whether `group`'s key is `bytes`.
    @inline(__always)
    private func isKey(of group: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let (start, end) = (starts[group], starts[group + 1])
        guard end - start == bytes.count else { return false }
        return keys.withUnsafeBytes { keys in ByteHashing.equal(UnsafeRawBufferPointer(rebasing: keys[start..<end]), bytes) }
    }

    private mutating func rehash() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (group, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: group + 1)
        }
    }

    /// A group's key, as ``group(of:)`` was given it.
    func bytes(of group: Int) -> [UInt8] { Array(keys[starts[group]..<starts[group + 1]]) }

    /// The eight-byte scalar ``appendScalar(_:_:)`` wrote at `position` of ``keys``.
    private func scalar(at position: Int) -> UInt64 {
        keys[position..<position + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// What a group's key was made of, in the order it was appended: a field (`nil`: absent),
    /// or a related row.
    enum Part {
        case field(FieldPayload?)
        case row(UInt64?)
    }

    /// The parts of `group`'s key, built with ``append(_:of:)`` and ``append(row:)``; `related`
    /// says which parts are related rows (an absent one reads as `.row(nil)`).
    func parts(of group: Int, related: [Bool]) -> [Part] {
        var position = starts[group]
        var parts: [Part] = []
        for isRow in related {
            let kind = keys[position]
            position += 1
            if kind == 0 {
                parts.append(isRow ? .row(nil) : .field(nil))
                continue
            }
            let scalar = scalar(at: position)
            position += 8
            switch kind {
            case 1: parts.append(.field(.varint(scalar)))
            case 2: parts.append(.field(.fixed32(UInt32(truncatingIfNeeded: scalar))))
            case 3: parts.append(.field(.fixed64(scalar)))
            case 4:
                let end = position + Int(scalar)
                parts.append(.field(.bytes(keys[position..<end])))
                position = end
            default: parts.append(.row(scalar))
            }
        }
        return parts
    }
}

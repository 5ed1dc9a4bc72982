import CairnStorage
import Foundation

/// Numbers the groups of stored rows by the bytes of their grouping fields, so that a grouped
/// aggregate over a million records makes no value, string or array per row: a row's fields are
/// written into one reused key (``begin()``, ``append(_:of:)``), looked up in an open-addressing
/// table whose keys live in one buffer, and the row gets its group's number.
///
/// Equal bytes mean equal values; equal values with different bytes (`0.0` and `-0.0`) become
/// two groups here, which the caller merges once it has decoded each group's key
/// (``parts(of:related:)``, ``keyBytes(of:parts:)``).
///
/// ```swift
/// var groups = FieldGroups()
/// groups.begin(); groups.append(fields[0], of: scanner)
/// let group = groups.group()   // 0 for the first key seen, then 1, …
/// ```
struct FieldGroups {
    /// The key being built.
    private var key: [UInt8] = []
    /// Every group's key, one after another.
    private var keys: [UInt8] = []
    /// Where each group's key starts in ``keys`` (and, last, where the next would).
    private var starts: [Int] = [0]
    private var hashes: [Int] = []
    /// Group number + 1 in each slot, 0 for none; a power of two long.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    /// The last row's group.
    private var last: Int?

    /// How many groups there are.
    var count: Int { hashes.count }

    /// Starts a row's key.
    mutating func begin() { key.removeAll(keepingCapacity: true) }

    /// Adds a field of the scanner's record (`nil`: absent) to the row's key: a kind byte, then
    /// the payload (a scalar's eight bytes, or bytes with their length).
    mutating func append(_ field: RecordReader.Field?, of scanner: RecordScanner) {
        guard let field else { return key.append(0) }
        switch field.wireType {
        case .varint: appendScalar(1, field.scalar)
        case .fixed32: appendScalar(2, field.scalar)
        case .fixed64: appendScalar(3, field.scalar)
        case .lengthDelimited:
            appendScalar(4, UInt64(field.end - field.start))
            scanner.withBytes(of: field) { key.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// Adds a component of an index key, as its bytes, to the row's key.
    mutating func append(keyBytes bytes: ArraySlice<UInt8>) {
        appendScalar(6, UInt64(bytes.count))
        key.append(contentsOf: bytes)
    }

    /// Adds a related row (a to-one relationship's target; `nil`: none) to the row's key.
    mutating func append(row: UInt64?) {
        guard let row else { return key.append(0) }
        appendScalar(5, row)
    }

    private mutating func appendScalar(_ kind: UInt8, _ value: UInt64) {
        key.append(kind)
        withUnsafeBytes(of: value.littleEndian) { key.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// The number of the group whose key is the row's key, made if new. Rows read in key order
    /// come in runs of one group: a row of the last row's group costs one comparison.
    mutating func group() -> Int {
        if let last, isKey(of: last) { return last }
        let group = lookUp()
        last = group
        return group
    }

    private mutating func lookUp() -> Int {
        var hasher = Hasher()
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
        let hash = hasher.finalize()
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let group = Int(slots[slot]) - 1
            if hashes[group] == hash && isKey(of: group) { return group }
            slot = (slot + 1) & mask
        }
        let group = hashes.count
        hashes.append(hash)
        keys.append(contentsOf: key)
        starts.append(keys.count)
        slots[slot] = Int32(truncatingIfNeeded: group + 1)
        if hashes.count * 2 > slots.count { rehash() }
        return group
    }

    /// Whether `group`'s key is the row's key.
    private func isKey(of group: Int) -> Bool {
        let (start, end) = (starts[group], starts[group + 1])
        guard end - start == key.count else { return false }
        return keys.withUnsafeBytes { keys in
            key.withUnsafeBytes { key in memcmp(keys.baseAddress! + start, key.baseAddress!, key.count) == 0 }
        }
    }

    private mutating func rehash() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (group, hash) in hashes.enumerated() {
            var slot = hash & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: group + 1)
        }
    }

    /// The index key components a group's key was made of (``append(keyBytes:)``), `parts` of them.
    func keyBytes(of group: Int, parts: Int) -> [[UInt8]] {
        var position = starts[group]
        var components: [[UInt8]] = []
        for _ in 0..<parts {
            let count = Int(scalar(at: position + 1))
            position += 9
            components.append(Array(keys[position..<position + count]))
            position += count
        }
        return components
    }

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

    /// The parts of `group`'s key; `related` says which parts are related rows (an absent one
    /// reads as `.row(nil)`).
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

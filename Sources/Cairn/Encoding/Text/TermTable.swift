/// The terms of one save or one build, each stored once and named by a number: a term met again
/// is found by hashing its bytes where the tokenizer left them (``ByteHashing``, seeded per
/// table), with no array made for it.
///
/// ```swift
/// var terms = TermTable()
/// let id = terms.intern(termBytes)   // the same number each time these bytes come
/// terms.term(id)                     // the bytes
/// ```
struct TermTable {
    /// A slot of the open-addressed table: the term's first eight bytes, and its hash's high
    /// 24 bits, its length (up to 255) and its number + 1 (0 for an empty slot). A probe
    /// decides a term of up to eight bytes, most words and every CJK bigram, from the slot alone;
    /// in a large save the table does not fit the caches, and each further array read was a miss.
    private struct Slot {
        var prefix: UInt64 = 0
        var meta: UInt64 = 0
    }

    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    private var slots = [Slot](repeating: Slot(), count: 1024)
    private let seed: UInt64

    /// A table whose hashes are seeded at random (`seed` for tests that need the same hashes).
    init(seed: UInt64 = .random(in: .min ... .max)) { self.seed = seed }

    var count: Int { hashes.count }

    /// The number of `term`, given one when new.
    mutating func intern(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        let bytes = UnsafeRawBufferPointer(term)
        let hash = ByteHashing.hash(bytes, seed: seed)
        let wanted = Slot(prefix: Self.prefix(of: bytes), meta: Self.meta(hash: hash, length: bytes.count))
        let (found, slot) = find(bytes, hash: hash, wanted: wanted)
        if let found { return found }
        let id = hashes.count
        arena.append(contentsOf: term)
        starts.append(arena.count)
        hashes.append(hash)
        slots[slot] = Slot(prefix: wanted.prefix, meta: wanted.meta | UInt64(id + 1))
        if hashes.count * 2 > slots.count { rehash() }
        return id
    }

    /// The number of the term of `bytes` and `hash`, or `nil` and the empty slot it would take.
    private func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64, wanted: Slot) -> (id: Int?, slot: Int) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].meta != 0 {
                if slots[slot].meta >> 32 == wanted.meta >> 32 && slots[slot].prefix == wanted.prefix {
                    let id = Int(slots[slot].meta & 0xFFFF_FFFF) - 1
                    if bytes.count <= 8 || hasBytes(id, bytes) { return (id, slot) }
                }
                slot = (slot + 1) & mask
            }
            return (nil, slot)
        }
    }

    /// Whether term `id` is `bytes` (read from the arena: a term longer than a slot holds).
    private func hasBytes(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let (start, end) = (starts[id], starts[id + 1])
        guard end - start == bytes.count else { return false }
        return arena.withUnsafeBytes { ByteHashing.equal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), bytes) }
    }

    /// The first eight bytes of a term, little-endian, zeros past its end.
    private static func prefix(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        if bytes.count >= 8 { return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) }
        var value: UInt64 = 0
        for index in 0..<bytes.count { value |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        return value
    }

    /// A slot's hash and length bits (its number + 1 is added to them).
    private static func meta(hash: UInt64, length: Int) -> UInt64 {
        (hash >> 40) << 40 | UInt64(min(length, 255)) << 32
    }

    /// The bytes of term `id`.
    func term(_ id: Int) -> ArraySlice<UInt8> { arena[starts[id]..<starts[id + 1]] }

    private mutating func rehash() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        let mask = slots.count - 1
        for entry in old where entry.meta != 0 {
            var slot = Int(truncatingIfNeeded: hashes[Int(entry.meta & 0xFFFF_FFFF) - 1]) & mask
            while slots[slot].meta != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}

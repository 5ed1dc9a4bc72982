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
    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Open addressing: the hash's high 32 bits above term number + 1, or 0 for an empty slot.
    /// A probe compares the hash bits in the slot itself, and reads a term's bytes only when
    /// they agree: in a large save the table does not fit the caches, and each array read was a
    /// miss.
    private var slots = [UInt64](repeating: 0, count: 1024)
    private let seed = UInt64.random(in: .min ... .max)

    var count: Int { hashes.count }

    /// The number of `term`, given one when new.
    mutating func intern(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        let bytes = UnsafeRawBufferPointer(term)
        let hash = ByteHashing.hash(bytes, seed: seed)
        let (found, slot) = find(bytes, hash: hash)
        if let found { return found }
        let id = hashes.count
        arena.append(contentsOf: term)
        starts.append(arena.count)
        hashes.append(hash)
        slots[slot] = Self.slot(hash: hash, id: id)
        if hashes.count * 2 > slots.count { rehash() }
        return id
    }

    /// The number of the term of `bytes` and `hash`, or `nil` and the empty slot it would take.
    /// Through the arrays' buffers: a term met again, most tokens, costs the probe and one compare.
    private func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> (id: Int?, slot: Int) {
        slots.withUnsafeBufferPointer { slots in
            starts.withUnsafeBufferPointer { starts in
                arena.withUnsafeBytes { arena in
                    let mask = slots.count - 1
                    let high = hash >> 32
                    var slot = Int(truncatingIfNeeded: hash) & mask
                    while slots[slot] != 0 {
                        if slots[slot] >> 32 == high {
                            let id = Int(slots[slot] & 0xFFFF_FFFF) - 1
                            if starts[id + 1] - starts[id] == bytes.count,
                                ByteHashing.equal(UnsafeRawBufferPointer(rebasing: arena[starts[id]..<starts[id + 1]]), bytes)
                            {
                                return (id, slot)
                            }
                        }
                        slot = (slot + 1) & mask
                    }
                    return (nil, slot)
                }
            }
        }
    }

    /// A slot's value for term `id` of `hash`.
    private static func slot(hash: UInt64, id: Int) -> UInt64 { (hash >> 32) << 32 | UInt64(id + 1) }

    /// The bytes of term `id`.
    func term(_ id: Int) -> ArraySlice<UInt8> { arena[starts[id]..<starts[id + 1]] }

    private mutating func rehash() {
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Self.slot(hash: hash, id: id)
        }
    }
}

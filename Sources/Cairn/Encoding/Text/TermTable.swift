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
    /// Open addressing: term number + 1, or 0 for an empty slot.
    private var slots = [Int32](repeating: 0, count: 1024)
    private let seed = UInt64.random(in: .min ... .max)

    var count: Int { hashes.count }

    /// The number of `term`, given one when new.
    mutating func intern(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        let bytes = UnsafeRawBufferPointer(term)
        let hash = ByteHashing.hash(bytes, seed: seed)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let id = Int(slots[slot]) - 1
            if hashes[id] == hash && isTerm(id, bytes) { return id }
            slot = (slot + 1) & mask
        }
        let id = hashes.count
        arena.append(contentsOf: term)
        starts.append(arena.count)
        hashes.append(hash)
        slots[slot] = Int32(truncatingIfNeeded: id + 1)
        if hashes.count * 2 > slots.count { rehash() }
        return id
    }

    /// The bytes of term `id`.
    func term(_ id: Int) -> ArraySlice<UInt8> { arena[starts[id]..<starts[id + 1]] }

    @inline(__always)
    private func isTerm(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let (start, end) = (starts[id], starts[id + 1])
        guard end - start == bytes.count else { return false }
        return arena.withUnsafeBytes { ByteHashing.equal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), bytes) }
    }

    private mutating func rehash() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: id + 1)
        }
    }
}

/// A growable run of bytes written in place: room is asked for, written through a pointer and
/// then kept, so a many small writes cost a store each. An array appended to checked its
/// uniqueness and capacity on every append, and `append(contentsOf:)` of a few bytes cost about a
/// hundred instructions; a save's full-text postings are a few hundred thousand such writes.
///
/// A class, so the one allocation is freed once; not shared between threads.
///
/// ```swift
/// let arena = ByteArena()
/// let at = arena.reserve(16)                 // room for 16 bytes at the end
/// at.storeBytes(of: 7 as UInt64, as: UInt64.self)
/// arena.keep(8)                              // the first 8 of them are kept
/// arena.bytes(in: 0..<8)                     // the bytes written
/// ```
final class ByteArena {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    /// The bytes kept.
    private(set) var count = 0

    /// An empty arena with room for `capacity` bytes.
    init(capacity: Int = 4_096) {
        self.capacity = max(capacity, 16)
        storage = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Where the next `byteCount` bytes go, valid until the next call that asks for room; the
    /// arena grows to hold them. Nothing is kept until ``keep(_:)``.
    func reserve(_ byteCount: Int) -> UnsafeMutableRawPointer {
        if capacity - count < byteCount { grow(to: count + byteCount) }
        return storage + count
    }

    /// Keeps the first `byteCount` bytes written at the last ``reserve(_:)``.
    func keep(_ byteCount: Int) {
        precondition(byteCount >= 0 && count + byteCount <= capacity, "ByteArena.keep: more than was reserved")
        count += byteCount
    }

    /// Appends a copy of `bytes`.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The kept bytes in `range`, valid until the arena next grows or goes.
    func bytes(in range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "ByteArena.bytes: out of range")
        let start = (storage + range.lowerBound).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: start, count: range.count)
    }

    /// Forgets the kept bytes, keeping the room.
    func removeAll() { count = 0 }

    /// A new arena holding a copy of the kept bytes.
    func copy() -> ByteArena {
        let copy = ByteArena(capacity: count)
        copy.append(UnsafeRawBufferPointer(start: storage, count: count))
        return copy
    }

    private func grow(to needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }
}

/// The members of the to-many relationships being changed in place, as they were before the
/// change: what a setter compares the changed list with to find the members that came and went.
///
/// A generated `_modify` takes the list out of the model, so that `author.books.append(book)`
/// changes it without a copy (a copy retained every member, and an append to a list of n
/// copied n). The list the model held is then gone, so its members' addresses are kept here
/// first: plain words, no references. The context keeps every member alive meanwhile (its
/// identity map lets nothing go while a change is under way). Changes nest (a change's closure
/// may change another list), so the snapshots form a stack.
///
/// ```swift
/// var snapshots = MembershipSnapshots()
/// books.withUnsafeBytes { snapshots.push(ObjectIdentifier(author), 4, members: $0) }
/// snapshots.withMembers(of: ObjectIdentifier(author), 4) { before in … }
/// snapshots.pop(ObjectIdentifier(author), 4)
/// ```
struct MembershipSnapshots {
    private struct Frame {
        let model: ObjectIdentifier
        let index: Int
        /// Where the frame's addresses start in ``addresses``.
        let start: Int
    }

    /// Every frame's member addresses, frame after frame.
    private var addresses: [UnsafeRawPointer] = []
    private var frames: [Frame] = []

    /// Whether no change in place is under way.
    var isEmpty: Bool { frames.isEmpty }

    /// Keeps the addresses of the members of `model`'s list at `index`, given as the bytes of the
    /// list's references.
    mutating func push(_ model: ObjectIdentifier, _ index: Int, members: UnsafeRawBufferPointer) {
        frames.append(Frame(model: model, index: index, start: addresses.count))
        let count = members.count / MemoryLayout<UnsafeRawPointer>.stride
        addresses.reserveCapacity(addresses.count + count)
        for position in 0..<count {
            addresses.append(
                members.load(
                    fromByteOffset: position * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer.self))
        }
    }

    /// Calls `body` with the addresses kept for `model`'s list at `index`, the newest if there are
    /// several; returns whether there were any.
    func withMembers(
        of model: ObjectIdentifier, _ index: Int, _ body: (UnsafeBufferPointer<UnsafeRawPointer>) -> Void
    ) -> Bool {
        guard let position = position(of: model, index) else { return false }
        let end = position + 1 < frames.count ? frames[position + 1].start : addresses.count
        addresses.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[frames[position].start..<end])) }
        return true
    }

    /// Forgets the newest addresses kept for `model`'s list at `index`; returns whether there were
    /// any.
    @discardableResult
    mutating func pop(_ model: ObjectIdentifier, _ index: Int) -> Bool {
        guard let position = position(of: model, index) else { return false }
        let start = frames[position].start
        let end = position + 1 < frames.count ? frames[position + 1].start : addresses.count
        addresses.removeSubrange(start..<end)
        frames.remove(at: position)
        // Changes end in the reverse order they began, so this was the last frame; were it not,
        // the later frames' addresses moved down.
        for later in position..<frames.count {
            let frame = frames[later]
            frames[later] = Frame(model: frame.model, index: frame.index, start: frame.start - (end - start))
        }
        return true
    }

    private func position(of model: ObjectIdentifier, _ index: Int) -> Int? {
        frames.lastIndex { $0.model == model && $0.index == index }
    }
}

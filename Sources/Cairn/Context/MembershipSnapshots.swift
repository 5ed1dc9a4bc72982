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
/// let snapshots = MembershipSnapshots()
/// books.withUnsafeBytes { snapshots.push(ObjectIdentifier(author), 4, members: $0) }
/// let before = snapshots.members(of: ObjectIdentifier(author), 4)
/// snapshots.pop(ObjectIdentifier(author), 4)
/// ```
final class MembershipSnapshots {
    private struct Frame {
        let model: ObjectIdentifier
        let index: Int
        /// Where the frame's addresses start in ``addresses``.
        let start: Int
        /// Whether the same list was changed in place again inside this change (see
        /// ``hadNestedChange(of:_:)``).
        var hadNestedChange = false
    }

    /// Every frame's member addresses, frame after frame, in memory of the snapshots' own, so
    /// that a frame's addresses can be handed out as a buffer (see ``members(of:_:)``).
    // Used on the context's executor only, each access instantaneous: no runtime exclusivity
    // checks (a third of a change's cost here otherwise).
    @exclusivity(unchecked) private var addresses: UnsafeMutablePointer<UnsafeRawPointer>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var frames: [Frame] = []

    init() { addresses = .allocate(capacity: capacity) }

    deinit { addresses.deallocate() }

    /// Whether no change in place is under way.
    var isEmpty: Bool { frames.isEmpty }

    /// Keeps the addresses of the members of `model`'s list at `index`, given as the bytes of the
    /// list's references.
    func push(_ model: ObjectIdentifier, _ index: Int, members: UnsafeRawBufferPointer) {
        let added = members.count / MemoryLayout<UnsafeRawPointer>.stride
        if count + added > capacity {
            let grown = max(capacity * 2, count + added)
            let moved = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: grown)
            moved.moveInitialize(from: addresses, count: count)
            addresses.deallocate()
            (addresses, capacity) = (moved, grown)
        }
        if let source = members.baseAddress, added > 0 {
            UnsafeMutableRawPointer(addresses + count).copyMemory(
                from: source, byteCount: added * MemoryLayout<UnsafeRawPointer>.stride)
        }
        // The same list changed again inside its own change (an overlapping access, which Swift
        // traps on for a stored property): the outer change's addresses no longer tell all the
        // members it may drop.
        if let outer = position(of: model, index) { frames[outer].hadNestedChange = true }
        frames.append(Frame(model: model, index: index, start: count))
        count += added
    }

    /// Whether the newest change of `model`'s list at `index` had another change of the same list
    /// inside it: the list the outer change ends with replaces the inner change's, so the members
    /// the inner change added (in the model's storage when the outer change ends) may be dropped
    /// too, besides those of the addresses.
    func hadNestedChange(of model: ObjectIdentifier, _ index: Int) -> Bool {
        position(of: model, index).map { frames[$0].hadNestedChange } ?? false
    }

    /// The addresses kept for `model`'s list at `index`, the newest if there are several; `nil`
    /// when there are none. Valid until the next ``push(_:_:members:)`` or ``pop(_:_:)``.
    func members(of model: ObjectIdentifier, _ index: Int) -> UnsafeBufferPointer<UnsafeRawPointer>? {
        guard let position = position(of: model, index) else { return nil }
        let start = frames[position].start
        let end = position + 1 < frames.count ? frames[position + 1].start : count
        return UnsafeBufferPointer(start: addresses + start, count: end - start)
    }

    /// Forgets the newest addresses kept for `model`'s list at `index`; returns whether there were
    /// any.
    @discardableResult
    func pop(_ model: ObjectIdentifier, _ index: Int) -> Bool {
        guard let position = position(of: model, index) else { return false }
        let start = frames[position].start
        let end = position + 1 < frames.count ? frames[position + 1].start : count
        count -= end - start
        // Changes end in the reverse order they began, so this is the last frame; were it not,
        // the later frames' addresses move down.
        guard position < frames.count - 1 else {
            frames.removeLast()
            return true
        }
        (addresses + start).update(from: addresses + end, count: count - start)
        frames.remove(at: position)
        for later in position..<frames.count {
            let frame = frames[later]
            frames[later] = Frame(
                model: frame.model, index: frame.index, start: frame.start - (end - start),
                hadNestedChange: frame.hadNestedChange)
        }
        return true
    }

    private func position(of model: ObjectIdentifier, _ index: Int) -> Int? {
        frames.lastIndex { $0.model == model && $0.index == index }
    }
}

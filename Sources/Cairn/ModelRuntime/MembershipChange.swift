/// The members a relationship list lost and gained when it changed from one list to another, by
/// identity, each in its list's order (a model listed twice among the gained is listed twice).
/// Not for direct use: the generated setters hand only these to the context, which keeps the
/// inverses in step from them.
///
/// Appending to a list is the common change: the old list is then the start of the new one, so
/// one pass of pointer comparisons finds it and only the appended members are checked against
/// the old ones. What is left is compared pairwise unless hashing both lists costs less (long,
/// reordered lists).
///
/// ```swift
/// let change = _MembershipChange(from: [a, b], to: [a, b, c], identity: ObjectIdentifier.init)
/// change.added     // [c]
/// change.removed   // []
/// ```
@usableFromInline
struct _MembershipChange<Element> {
    @usableFromInline var removed: [Element]
    /// A slice: members appended at the end are the new list's tail, handed over without a copy
    /// (an array made for them would be an allocation per append).
    @usableFromInline var added: ArraySlice<Element>

    /// About how many pointer comparisons hashing one member costs: lists are compared pairwise
    /// while that takes fewer comparisons than hashing both would.
    @usableFromInline static var comparisonsPerHash: Int { 32 }

    /// Whether no member appears twice in `members` (compared by identity).
    @inlinable
    static func isDistinct(_ members: ArraySlice<Element>) -> Bool where Element: AnyObject {
        var seen = Set<ObjectIdentifier>(minimumCapacity: members.count)
        return members.allSatisfy { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// `members` with each member at its first place only (compared by identity).
    @inlinable
    static func firstOccurrences(_ members: ArraySlice<Element>) -> ArraySlice<Element> where Element: AnyObject {
        var seen = Set<ObjectIdentifier>(minimumCapacity: members.count)
        return members.filter { seen.insert(ObjectIdentifier($0)).inserted }[...]
    }

    @inlinable
    init(from old: [Element], to new: [Element], identity: (Element) -> ObjectIdentifier) {
        // A list that was empty gained the new one whole: handed over as it is, uncopied.
        guard !old.isEmpty else {
            (removed, added) = ([], new[...])
            return
        }
        var (removed, added) = ([Element](), Gained(new))
        Self.compare(
            old.count, { UInt(bitPattern: identity(old[$0])) }, new.count, { UInt(bitPattern: identity(new[$0])) },
            removed: { removed.append(old[$0]) }, added: { added.note($0) })
        (self.removed, self.added) = (removed, added.members)
    }

    /// The change from the members a list had before a change in place, as their addresses (no
    /// reference held: the context keeps them alive), to `new`. The lists are compared as
    /// words: no member is retained for it.
    ///
    /// ```swift
    /// let change = _MembershipChange(before: addresses, to: author.books)
    /// ```
    @inlinable
    init(before old: UnsafeBufferPointer<UnsafeRawPointer>, to new: [Element]) where Element: AnyObject {
        guard !old.isEmpty else {
            (removed, added) = ([], new[...])
            return
        }
        var (removed, added) = ([Element](), Gained(new))
        new.withUnsafeBytes { newWords in
            Self.compare(
                old.count, { UInt(bitPattern: old[$0]) }, new.count,
                { newWords.load(fromByteOffset: $0 * MemoryLayout<UInt>.stride, as: UInt.self) },
                removed: { removed.append(Unmanaged<Element>.fromOpaque(old[$0]).takeUnretainedValue()) },
                added: { added.note($0) })
        }
        (self.removed, self.added) = (removed, added.members)
    }

    /// The gained members of a new list, noted by position in order: while their positions follow
    /// each other (an append's are the list's tail), they are that slice of the list; otherwise an
    /// array of their own.
    @usableFromInline
    struct Gained {
        @usableFromInline let new: [Element]
        @usableFromInline var start = -1
        @usableFromInline var next = -1
        @usableFromInline var scattered: [Element]?

        @inlinable init(_ new: [Element]) { self.new = new }

        @inlinable mutating func note(_ position: Int) {
            if scattered == nil {
                if start < 0 {
                    (start, next) = (position, position + 1)
                    return
                }
                if position == next {
                    next += 1
                    return
                }
                scattered = Array(new[start..<next])
            }
            scattered!.append(new[position])
        }

        @inlinable var members: ArraySlice<Element> {
            if let scattered { return scattered[...] }
            return start < 0 ? [] : new[start..<next]
        }
    }

    /// Compares a list of `oldCount` members, whose identities `oldKey` gives by position, with
    /// one of `newCount`: calls `removed` with the position of each old member the new list
    /// lacks and `added` with each new member's the old one lacks, in order.
    @inlinable @inline(__always)
    static func compare(
        _ oldCount: Int, _ oldKey: (Int) -> UInt, _ newCount: Int, _ newKey: (Int) -> UInt,
        removed: (Int) -> Void, added: (Int) -> Void
    ) {
        var prefix = 0
        let common = min(oldCount, newCount)
        while prefix < common && oldKey(prefix) == newKey(prefix) { prefix += 1 }
        let (oldRest, newRest) = (oldCount - prefix, newCount - prefix)
        guard oldRest > 0 || newRest > 0 else { return }
        // What stays in place is in both lists; of the rest, each side is checked against the
        // other list whole (a member may have moved into or out of the common start).
        // An append to a long list compares the appended members only (n comparisons each),
        // where hashing would hash the whole list at every append.
        if oldRest * newCount + newRest * oldCount <= (oldCount + newCount) * Self.comparisonsPerHash {
            func contains(_ count: Int, _ key: (Int) -> UInt, _ wanted: UInt) -> Bool {
                for position in 0..<count where key(position) == wanted { return true }
                return false
            }
            for position in prefix..<oldCount where !contains(newCount, newKey, oldKey(position)) { removed(position) }
            for position in prefix..<newCount where !contains(oldCount, oldKey, newKey(position)) { added(position) }
            return
        }
        var (oldKeys, newKeys) = (Set<UInt>(minimumCapacity: oldCount), Set<UInt>(minimumCapacity: newCount))
        for position in 0..<oldCount { oldKeys.insert(oldKey(position)) }
        for position in 0..<newCount { newKeys.insert(newKey(position)) }
        for position in prefix..<oldCount where !newKeys.contains(oldKey(position)) { removed(position) }
        for position in prefix..<newCount where !oldKeys.contains(newKey(position)) { added(position) }
    }

    /// Whether no member came or went (the list is unchanged or only reordered).
    @inlinable var isEmpty: Bool { removed.isEmpty && added.isEmpty }
}

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
    @usableFromInline var added: [Element]

    /// About how many pointer comparisons hashing one member costs: lists are compared pairwise
    /// while that takes fewer comparisons than hashing both would.
    @usableFromInline static var comparisonsPerHash: Int { 32 }

    @inlinable
    init(from old: [Element], to new: [Element], identity: (Element) -> ObjectIdentifier) {
        if old.isEmpty {
            (removed, added) = ([], new)
            return
        }
        var prefix = 0
        let common = min(old.count, new.count)
        while prefix < common && identity(old[prefix]) == identity(new[prefix]) { prefix += 1 }
        let oldRest = old[prefix...]
        let newRest = new[prefix...]
        // What stays in place is in both lists; of the rest, each side is checked against the
        // other list whole (a member may have moved into or out of the common start).
        // An append to a long list compares the appended members only (n comparisons each),
        // where hashing would hash the whole list at every append.
        if oldRest.count * new.count + newRest.count * old.count <= (old.count + new.count) * Self.comparisonsPerHash {
            removed = oldRest.filter { member in !new.contains { identity($0) == identity(member) } }
            added = newRest.filter { member in !old.contains { identity($0) == identity(member) } }
            return
        }
        let oldIdentities = Set(old.map(identity))
        let newIdentities = Set(new.map(identity))
        removed = oldRest.filter { !newIdentities.contains(identity($0)) }
        added = newRest.filter { !oldIdentities.contains(identity($0)) }
    }

    /// Whether no member came or went (the list is unchanged or only reordered).
    @inlinable var isEmpty: Bool { removed.isEmpty && added.isEmpty }
}

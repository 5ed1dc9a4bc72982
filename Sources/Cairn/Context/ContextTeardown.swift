/// Lets go of a departing context's models without leaving their relationship cycles behind.
///
/// Related models hold each other strongly (an author its `books`, each book its `author`), as
/// managed objects do in Core Data, so a graph a context loaded or inserted would outlive the
/// context as cycles nothing reaches: memory lost for every context that ever held a graph. When
/// the context goes away this unloads its models' loaded relationships, finds the models something
/// other than the teardown still holds (the app's references, another object's), and loads the
/// relationships of every model reachable from those again, exactly as they were. What the app can
/// still reach reads as before; the rest, which nothing else holds, is freed.
///
/// A relationship with a target of another context (or none) is left loaded: the teardown cannot
/// know who else holds that target. Owned by `ModelContext.deinit`.
///
/// ```swift
/// var teardown = ContextTeardown(link: link, store: store)
/// identity.forEach { teardown.addIfHolding($0) }
/// teardown.unloadRelationships()
/// identity.releaseAll()                // the context's own references go
/// teardown.restoreReachable()          // the rest of the graph goes with `teardown`
/// ```
struct ContextTeardown: ~Copyable {
    /// A model of the context, held once by `object`.
    private struct Member {
        /// The teardown's one reference, tested for uniqueness.
        var object: AnyObject?
        /// The same model with its conformance, not retained again: `object` keeps it alive.
        unowned(unsafe) let model: any PersistentModel
        /// Its unloaded relationships, in ``ContextTeardown/unloaded``.
        var unloaded: Range<Int> = 0..<0
        /// Whether something outside the teardown reaches it.
        var isReached = false
    }

    /// A relationship the teardown unloaded, and its targets as they were (in ``targets``).
    private struct Unloaded {
        let access: RelationshipAccess
        let targets: Range<Int>
    }

    private let link: _ContextLink
    private let store: Store
    private var members: [Member] = []
    private var unloaded: [Unloaded] = []
    /// The targets of every unloaded relationship, in order, as positions in ``members``.
    private var targets: [Int32] = []
    /// The relationships of the entity last looked up (``relationships(of:)``).
    private var lastEntity: (type: ObjectIdentifier, relationships: [RelationshipAccess])?

    init(link: _ContextLink, store: Store) {
        self.link = link
        self.store = store
    }

    /// Takes `model` in if one of its loaded relationships has targets: only such a model can
    /// hold another, and the models it holds come in as its targets. One that holds none stays
    /// out and goes with the context's own references (a fetch of models whose relationships
    /// were never read costs a look at each, no more).
    mutating func addIfHolding(_ model: any PersistentModel) {
        guard relationships(of: model).contains(where: { $0.hasTargets(model) }) else { return }
        add(model)
    }

    /// Takes `model` into the teardown, once, if it belongs to the departing context; returns its
    /// position among the members, or `nil` for a model of another context or of none. The
    /// position is kept in the model's plan slot, which only a save being planned uses.
    @discardableResult
    private mutating func add(_ model: any PersistentModel) -> Int? {
        let state = model._$state
        guard state.link === link else { return nil }
        let position = state.planPosition
        if position >= 0 && position < members.count && members[position].model === model { return position }
        state.planPosition = members.count
        members.append(Member(object: model, model: model))
        return members.count - 1
    }

    /// The relationships of `model`'s entity. Models of one entity come together (the identity
    /// map keeps them by entity), so the last entity's are kept.
    private mutating func relationships(of model: any PersistentModel) -> [RelationshipAccess] {
        let type = ObjectIdentifier(type(of: model))
        if lastEntity?.type != type {
            lastEntity = (type, store.entitiesByType[type]?.entity.relationships.map(\.access) ?? [])
        }
        return lastEntity!.relationships
    }

    /// Unloads the members' loaded relationships that have targets, recording the targets. A
    /// target of the context not taken in yet becomes a member too, so every model a recorded
    /// target names stays alive while the teardown runs.
    mutating func unloadRelationships() {
        var position = 0
        while position < members.count {
            let model = members[position].model
            let start = unloaded.count
            for access in relationships(of: model) where access.hasTargets(model) {
                unload(access, of: model)
            }
            members[position].unloaded = start..<unloaded.count
            position += 1
        }
    }

    /// Records the targets of one relationship and unloads it, unless a target is not the
    /// context's.
    private mutating func unload(_ access: RelationshipAccess, of model: any PersistentModel) {
        let start = targets.count
        var isForeign = false
        access.forEachTarget(model) { target in
            if let position = add(target) { targets.append(Int32(position)) } else { isForeign = true }
        }
        guard !isForeign else { return targets.removeSubrange(start...) }
        unloaded.append(Unloaded(access: access, targets: start..<targets.count))
        access.unload(model)
    }

    /// Finds the members something else holds, and loads again the relationships of every member
    /// they reach; consumes the teardown, so the members nothing reaches are freed with it.
    /// Call once the context has let go of its own references.
    consuming func restoreReachable() {
        var reached: [Int] = []
        for position in members.indices where !isKnownUniquelyReferenced(&members[position].object) {
            members[position].isReached = true
            reached.append(position)
        }
        while let position = reached.popLast() {
            let member = members[position]
            for relationship in unloaded[member.unloaded] {
                var loaded: [any PersistentModel] = []
                loaded.reserveCapacity(relationship.targets.count)
                for target in targets[relationship.targets].map(Int.init) {
                    loaded.append(members[target].model)
                    if !members[target].isReached {
                        members[target].isReached = true
                        reached.append(target)
                    }
                }
                relationship.access.load(member.model, loaded)
            }
        }
    }
}

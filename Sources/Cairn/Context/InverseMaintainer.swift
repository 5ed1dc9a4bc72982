/// Keeps the other side of a relationship in step when one side changes, as SwiftData does:
/// setting `book.author` appends the book to `author.books` and removes it from the previous
/// author's; appending to `author.books` sets `book.author`; a one-to-one partner leaves its
/// previous partner.
///
/// It sets the other side through ``RelationshipAccess`` as the generated setter would (so
/// observers hear of it and the change is recorded), and while it does, ``isMaintaining`` is
/// `true`: those setters then report nothing back, or every change would start another round.
///
/// A class, owned by its context: the generated setters it calls read ``isMaintaining`` while
/// ``update(_:relationship:inverse:from:to:)`` runs, which a stored struct would not allow.
final class InverseMaintainer {
    /// Loads property `index` of a model that is a fault (the context's row loader): set once,
    /// by the context that owns the maintainer, before any relationship changes.
    @exclusivity(unchecked) var loadProperty: (any PersistentModel, Int) -> Void
    /// Whether the maintainer is setting relationships itself.
    @exclusivity(unchecked) private(set) var isMaintaining = false
    /// The members of the to-many relationships being changed in place, before the change: the
    /// generated setters compare the changed lists with them.
    let membersBeforeChange = MembershipSnapshots()

    init(loadProperty: @escaping (any PersistentModel, Int) -> Void = { _, _ in }) {
        self.loadProperty = loadProperty
    }

    /// Takes in a change that `context`'s generated setters report: `model`'s relationship at
    /// `index` changed from `knownOldTargets` (`nil`: the stored targets, not loaded) to
    /// `newTargets`. A model outside any context that joins the relationship joins `context` too,
    /// as in SwiftData; then the inverse side follows (``update(_:relationship:inverse:from:to:)``).
    /// Nothing happens while the maintainer sets relationships itself.
    ///
    /// ```swift
    /// maintainer.relationshipDidChange(book, 3, from: [], to: [author], in: context)
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from knownOldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel], in context: ModelContext
    ) {
        guard !isMaintaining, let (tables, relationship, inverse, rowID) = join(model, index, in: context) else {
            return
        }
        for target in newTargets { admit(target, to: relationship, of: model, in: context) }
        guard let inverse else { return }
        // Targets that were not loaded are the stored ones (nothing changed them since).
        let oldTargets: [any PersistentModel]
        if let knownOldTargets {
            oldTargets = knownOldTargets
        } else if let rowID {
            oldTargets = (try? context.rows.storedTargets(relationship, rowID: rowID, tables: tables)) ?? []
        } else {
            oldTargets = []
        }
        update(model, relationship: relationship, inverse: inverse, from: oldTargets, to: newTargets)
    }

    /// The same for a to-one relationship, with its old target (`nil`: not loaded, the stored
    /// one; `.some(nil)`: none) and its new one: no lists are made for the one model on each side.
    ///
    /// ```swift
    /// maintainer.relationshipDidChange(book, 3, from: .some(nil), to: author, in: context)
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from knownOldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?, in context: ModelContext
    ) {
        guard !isMaintaining,
            let (tables, relationship, inverse, rowID) = join(model, index, in: context)
        else { return }
        if let newTarget { admit(newTarget, to: relationship, of: model, in: context) }
        guard let inverse else { return }
        let oldTarget: (any PersistentModel)?
        if let knownOldTarget {
            oldTarget = knownOldTarget
        } else if let rowID {
            oldTarget = (try? context.rows.storedTargets(relationship, rowID: rowID, tables: tables))?.first
        } else {
            oldTarget = nil
        }
        guard oldTarget !== newTarget else { return }
        isMaintaining = true
        defer { isMaintaining = false }
        if let oldTarget { detach(model, from: oldTarget, inverse: inverse) }
        if let newTarget { attach(model, to: newTarget, relationship: relationship, inverse: inverse) }
    }

    /// What a reported change needs before the inverse follows: the model's tables, the relationship, its inverse (`nil`
    /// when it has none) and the model's row. `nil` when the model is not one of the context's saved or inserted
    /// models (a model outside any context joins instead).
    private func join(
        _ model: any PersistentModel, _ index: Int, in context: ModelContext
    ) -> (
        tables: Store.EntityTables, relationship: Schema.Relationship, inverse: Schema.Relationship?, rowID: UInt64?
    )? {
        let state = model._$state
        guard state.isInContext else {
            // A model outside any context was related to one of this context's: it joins, and
            // inserting it relates everything it points at.
            context.insert(model)
            return nil
        }
        guard let id = state.persistentIdentifier,
            let tables = context.store.entitiesByType[ObjectIdentifier(type(of: model))],
            let relationship = tables.relationshipsByIndex[index]
        else { return nil }
        return (tables, relationship, tables.inverses[index]?.inverse, id.rowID)
    }

    /// A model that `model`'s `relationship` now reaches joins `context`, as in SwiftData; one of
    /// another context is a programming error.
    private func admit(
        _ target: any PersistentModel, to relationship: Schema.Relationship, of model: any PersistentModel,
        in context: ModelContext
    ) {
        let state = target._$state
        if !state.isInContext { context.insert(target) }
        precondition(
            state { $0.belongs(to: context.link) },
            "\(type(of: model)).\(relationship.name) was set to a \(relationship.destination) of another context")
    }

    /// Makes the inverse side agree with `model`'s `relationship` having changed from
    /// `oldTargets` to `newTargets` (`inverse` is the targets' relationship back to `model`'s
    /// entity).
    func update(
        _ model: any PersistentModel, relationship: Schema.Relationship, inverse: Schema.Relationship,
        from oldTargets: [any PersistentModel], to newTargets: [any PersistentModel]
    ) {
        isMaintaining = true
        defer { isMaintaining = false }
        let change = _MembershipChange(from: oldTargets, to: newTargets, identity: { ObjectIdentifier($0) })
        for target in change.removed { detach(model, from: target, inverse: inverse) }
        for target in change.added { attach(model, to: target, relationship: relationship, inverse: inverse) }
    }

    /// `target` no longer has `model` through `inverse`.
    private func detach(_ model: any PersistentModel, from target: any PersistentModel, inverse: Schema.Relationship) {
        let current = loadedTargets(inverse, of: target)
        if current.contains(where: { $0 === model }) { inverse.access.set(target, current.filter { $0 !== model }) }
    }

    /// `target` has `model` through `inverse` (`relationship` is `model`'s side): appended to a
    /// to-many; a to-one target leaves its previous partner, whose side loses it.
    private func attach(
        _ model: any PersistentModel, to target: any PersistentModel, relationship: Schema.Relationship,
        inverse: Schema.Relationship
    ) {
        if !inverse.access.isLoaded(target) { loadProperty(target, inverse.index) }
        guard !inverse.access.contains(target, model) else { return }
        if inverse.isToOneRelationship {
            if let previous = inverse.access.firstTarget(target) {
                let previousTargets = loadedTargets(relationship, of: previous)
                relationship.access.set(previous, previousTargets.filter { $0 !== target })
            }
            inverse.access.setTarget(target, model)
        } else if inverse.access.canAppend {
            inverse.access.append(target, model)
        } else {
            inverse.access.set(target, inverse.access.targets(target) + [model])
        }
    }

    /// A relationship's targets, loading them first if needed.
    private func loadedTargets(
        _ relationship: Schema.Relationship, of model: any PersistentModel
    ) -> [any PersistentModel] {
        if !relationship.access.isLoaded(model) { loadProperty(model, relationship.index) }
        return relationship.access.targets(model)
    }
}

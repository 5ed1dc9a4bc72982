/// Sets the other side of a relationship so that it agrees with a change of one side, as
/// SwiftData does: setting `book.author` appends the book to `author.books` and removes it from
/// the previous author's; appending to `author.books` sets `book.author`; a one-to-one partner
/// leaves its previous partner.
///
/// It knows nothing of contexts: it sets the other side through ``RelationshipAccess`` as the
/// generated setter would (so observers hear of it and the change is recorded), and while it
/// does, ``isMaintaining`` is `true`: those setters then report nothing back, or every change
/// would start another round. A context's `InverseMaintainer` uses one for the models it owns;
/// ``UnmanagedRelationships`` uses one for models that belong to no context yet.
///
/// A class: the generated setters it calls read ``isMaintaining`` while it works, which a stored
/// struct would not allow.
///
/// ```swift
/// links.update(author, relationship: books, inverse: bookAuthor, from: [], to: [book])
/// book.author === author   // true
/// ```
final class InverseLinks {
    /// Loads property `index` of a model that is a fault, before the links read or change it
    /// (a context's row loader; nothing for models outside a context, which are whole).
    @exclusivity(unchecked) var loadProperty: (any PersistentModel, Int) -> Void
    /// Whether the links are setting relationships themselves.
    @exclusivity(unchecked) private(set) var isMaintaining = false

    init(loadProperty: @escaping (any PersistentModel, Int) -> Void = { _, _ in }) {
        self.loadProperty = loadProperty
    }

    /// Makes the inverse side agree with `model`'s `relationship` having changed from
    /// `oldTargets` to `newTargets` (`inverse` is the targets' relationship back to `model`'s
    /// entity). Only membership counts: lists of the members that went and came will do.
    ///
    /// ```swift
    /// links.update(author, relationship: books, inverse: bookAuthor, from: [old], to: [new])
    /// ```
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

    /// The same for one target on each side (a to-one relationship, or a list that gained one
    /// member), without a list made for either.
    ///
    /// ```swift
    /// links.update(book, relationship: author, inverse: books, from: oldAuthor, to: newAuthor)
    /// ```
    func update(
        _ model: any PersistentModel, relationship: Schema.Relationship, inverse: Schema.Relationship,
        from oldTarget: (any PersistentModel)?, to newTarget: (any PersistentModel)?
    ) {
        guard oldTarget !== newTarget else { return }
        isMaintaining = true
        defer { isMaintaining = false }
        if let oldTarget { detach(model, from: oldTarget, inverse: inverse) }
        if let newTarget { attach(model, to: newTarget, relationship: relationship, inverse: inverse) }
    }

    /// `target` no longer has `model` through `inverse`.
    private func detach(_ model: any PersistentModel, from target: any PersistentModel, inverse: Schema.Relationship) {
        guard let current = loadedTargets(inverse, of: target) else { return }
        if current.contains(where: { $0 === model }) { inverse.access.set(target, current.filter { $0 !== model }) }
    }

    /// `target` has `model` through `inverse` (`relationship` is `model`'s side): appended to a
    /// to-many; a to-one target leaves its previous partner, whose side loses it.
    private func attach(
        _ model: any PersistentModel, to target: any PersistentModel, relationship: Schema.Relationship,
        inverse: Schema.Relationship
    ) {
        guard isLoaded(inverse, of: target), !inverse.access.contains(target, model) else { return }
        if inverse.isToOneRelationship {
            if let previous = inverse.access.firstTarget(target),
                let previousTargets = loadedTargets(relationship, of: previous)
            {
                relationship.access.set(previous, previousTargets.filter { $0 !== target })
            }
            inverse.access.setTarget(target, model)
        } else if inverse.access.canAppend {
            inverse.access.append(target, model)
        } else {
            inverse.access.set(target, inverse.access.targets(target) + [model])
        }
    }

    /// A relationship's targets, loading them first if needed; `nil` when they cannot be loaded
    /// (a load that failed, or a model whose context is gone: its side is left as it is).
    private func loadedTargets(
        _ relationship: Schema.Relationship, of model: any PersistentModel
    ) -> [any PersistentModel]? {
        isLoaded(relationship, of: model) ? relationship.access.targets(model) : nil
    }

    /// Whether `model`'s `relationship` is loaded, after loading it if it was not.
    private func isLoaded(_ relationship: Schema.Relationship, of model: any PersistentModel) -> Bool {
        if relationship.access.isLoaded(model) { return true }
        loadProperty(model, relationship.index)
        return relationship.access.isLoaded(model)
    }
}

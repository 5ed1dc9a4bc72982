/// Keeps the other side of a context's relationships in step when one side changes: it finds
/// the relationship, its inverse and the targets before the change (the stored ones when they
/// were not loaded), brings models outside any context that joined a relationship into the
/// context, as SwiftData does, and has ``InverseLinks`` set the other side.
///
/// A class, owned by its context: the generated setters read ``isMaintaining`` while it works.
final class InverseMaintainer {
    /// Sets the other side; loads faults through the context (bound once, by the context that
    /// owns the maintainer, before any relationship changes: ``loadProperty``).
    let links = InverseLinks()
    /// Loads property `index` of a model that is a fault (the context's row loader).
    var loadProperty: (any PersistentModel, Int) -> Void {
        get { links.loadProperty }
        set { links.loadProperty = newValue }
    }
    /// Whether the maintainer is setting relationships itself.
    var isMaintaining: Bool { links.isMaintaining }
    /// The members of the to-many relationships being changed in place, before the change: the
    /// generated setters compare the changed lists with them.
    let membersBeforeChange = MembershipSnapshots()

    /// Takes in a change that `context`'s generated setters report: `model`'s relationship at
    /// `index` changed from `knownOldTargets` (`nil`: the stored targets, not loaded) to
    /// `newTargets`. A model outside any context that joins the relationship joins `context` too,
    /// as in SwiftData; then the inverse side follows (``InverseLinks``).
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
        links.update(model, relationship: relationship, inverse: inverse, from: oldTargets, to: newTargets)
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
        links.update(model, relationship: relationship, inverse: inverse, from: oldTarget, to: newTarget)
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
            let relationship = tables.layout.relationshipsByIndex[index]
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

    /// SwiftData's nullify rule, shown at once rather than at the save: each model that
    /// deleting `model` (and what its cascades take) leaves behind drops the deleted models from
    /// the inverse of every `.nullify` relationship, as its setter would. A required to-one
    /// inverse has no empty value and is left for the save to report; `.noAction` and `.deny`
    /// leave the other side as it is.
    ///
    /// ```swift
    /// maintainer.nullifyInverses(deleting: author, in: context)   // book.author == nil
    /// ```
    func nullifyInverses(deleting model: any PersistentModel, in context: ModelContext) {
        // A model of an entity without relationships reaches no other model, by cascade or
        // inverse: nothing to nullify (the walk below cost about 2,600 instructions a model of a
        // batch delete of such models).
        if context.store.entitiesByType[ObjectIdentifier(type(of: model))]?.entity.relationships.isEmpty == true {
            return
        }
        let doomed = CascadedDeletes([model], rows: context.rows)
        for deleted in doomed.models {
            guard let tables = context.store.entitiesByType[ObjectIdentifier(type(of: deleted))] else { continue }
            for relationship in tables.entity.relationships where relationship.deleteRule == .nullify {
                guard let inverse = tables.inverses[relationship.index]?.inverse,
                    inverse.isOptional || !inverse.isToOneRelationship
                else { continue }
                let survivors = context.rows.loadedTargets(relationship, of: deleted).filter {
                    !doomed.identities.contains(ObjectIdentifier($0)) && !context.pending.deleted.contains($0)
                }
                guard !survivors.isEmpty else { continue }
                links.update(deleted, relationship: relationship, inverse: inverse, from: survivors, to: [])
            }
        }
    }

    /// Takes back what ``nullifyInverses(deleting:in:)`` did when `model`'s delete is taken
    /// back: each relationship of the model and of what its cascades reach points back again.
    ///
    /// ```swift
    /// maintainer.relink(author, in: context)   // book.author === author again
    /// ```
    func relink(_ model: any PersistentModel, in context: ModelContext) {
        for restored in CascadedDeletes([model], rows: context.rows).models {
            guard let tables = context.store.entitiesByType[ObjectIdentifier(type(of: restored))] else { continue }
            for relationship in tables.entity.relationships
            where relationship.deleteRule == .nullify && relationship.access.hasTargets(restored) {
                relationshipDidChange(
                    restored, relationship.index, from: [], to: relationship.access.targets(restored), in: context)
            }
        }
    }
}

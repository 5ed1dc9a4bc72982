/// How the model layer reads, sets, loads and unloads one relationship of a model without knowing
/// its types: closures built where they are known (``Schema/PropertyMetadata``'s generic
/// initialisers), over the property's setter and its generated storage.
///
/// Targets travel as arrays whatever the relationship's shape: none or one for a to-one.
///
/// A class, so that code walking an entity's relationships copies one reference, not seven
/// closure contexts.
///
/// `@unchecked Sendable`: the closures capture only key paths, and touch a model only on the
/// thread that owns it.
@usableFromInline
final class RelationshipAccess: @unchecked Sendable {
    /// Whether the relationship of the model is loaded.
    @usableFromInline let isLoadedBody: (AnyObject) -> Bool
    /// The loaded targets.
    @usableFromInline let targetsBody: (AnyObject) -> [any PersistentModel]
    /// Hands each loaded target to the closure, in order, as `targets` lists them, without
    /// building the list (a save of a large graph built one per relationship of every model).
    @usableFromInline let forEachTargetBody: (AnyObject, (any PersistentModel) -> Void) -> Void
    /// The first loaded target (a to-one's target), without building the list.
    @usableFromInline let firstTargetBody: (AnyObject) -> (any PersistentModel)?
    /// Sets the relationship to one target or none as `set` does, without a list (a to-one's
    /// inverse is set this way).
    @usableFromInline let setTargetBody: (AnyObject, (any PersistentModel)?) -> Void
    /// Sets the targets as the property's setter does, so observers see it and the change is
    /// recorded (and, through the context, the inverse follows).
    @usableFromInline let setBody: (AnyObject, [any PersistentModel]) -> Void
    /// Sets the targets loaded from the store, without recording a change.
    @usableFromInline let loadBody: (AnyObject, [any PersistentModel]) -> Void
    /// Forgets the loaded targets, so the next read loads them from the store.
    @usableFromInline let unloadBody: (AnyObject) -> Void
    /// Adds one target at the end, as the property's setter would, like `set` (to-many only;
    /// `nil` for to-one). Keeping an inverse up to date appends one model at a time, and `set`
    /// would rebuild and re-cast the whole list each time.
    @usableFromInline let appendBody: ((AnyObject, any PersistentModel) -> Void)?
    /// Whether the relationship is loaded and has at least one target: what `targets` tells,
    /// without building the list of existentials.
    @usableFromInline let hasTargetsBody: (AnyObject) -> Bool
    /// Whether the loaded targets include the given model, compared by identity, without
    /// building the list of existentials.
    @usableFromInline let containsBody: (AnyObject, AnyObject) -> Bool

    @usableFromInline
    init(
        isLoaded: @escaping (AnyObject) -> Bool, targets: @escaping (AnyObject) -> [any PersistentModel],
        forEachTarget: @escaping (AnyObject, (any PersistentModel) -> Void) -> Void,
        firstTarget: @escaping (AnyObject) -> (any PersistentModel)?,
        setTarget: @escaping (AnyObject, (any PersistentModel)?) -> Void,
        set: @escaping (AnyObject, [any PersistentModel]) -> Void,
        load: @escaping (AnyObject, [any PersistentModel]) -> Void, unload: @escaping (AnyObject) -> Void,
        append: ((AnyObject, any PersistentModel) -> Void)?, hasTargets: @escaping (AnyObject) -> Bool,
        contains: @escaping (AnyObject, AnyObject) -> Bool
    ) {
        self.isLoadedBody = isLoaded
        self.targetsBody = targets
        self.forEachTargetBody = forEachTarget
        self.firstTargetBody = firstTarget
        self.setTargetBody = setTarget
        self.setBody = set
        self.loadBody = load
        self.unloadBody = unload
        self.appendBody = append
        self.hasTargetsBody = hasTargets
        self.containsBody = contains
    }

    // The closures are called through these methods: a closure called straight off an access
    // that was read from a relationship retained and released the closure's context around every
    // call (the access itself is not known to the caller to be alive); a method has its access
    // as `self`, held for the call.

    /// Whether the relationship of `model` is loaded.
    @inlinable func isLoaded(_ model: AnyObject) -> Bool { isLoadedBody(model) }
    /// The loaded targets of `model`.
    @inlinable func targets(_ model: AnyObject) -> [any PersistentModel] { targetsBody(model) }
    /// Hands each loaded target of `model` to `body`, in order.
    @inlinable func forEachTarget(_ model: AnyObject, _ body: (any PersistentModel) -> Void) {
        forEachTargetBody(model, body)
    }
    /// The first loaded target of `model`.
    @inlinable func firstTarget(_ model: AnyObject) -> (any PersistentModel)? { firstTargetBody(model) }
    /// Sets the relationship of `model` to `target` or none, as its setter does.
    @inlinable func setTarget(_ model: AnyObject, _ target: (any PersistentModel)?) { setTargetBody(model, target) }
    /// Sets the targets of `model` as its setter does.
    @inlinable func set(_ model: AnyObject, _ targets: [any PersistentModel]) { setBody(model, targets) }
    /// Sets the targets of `model` loaded from the store, without recording a change.
    @inlinable func load(_ model: AnyObject, _ targets: [any PersistentModel]) { loadBody(model, targets) }
    /// Forgets the loaded targets of `model`.
    @inlinable func unload(_ model: AnyObject) { unloadBody(model) }
    /// Whether ``append(_:_:)`` can be used: to-many relationships only.
    @inlinable var canAppend: Bool { appendBody != nil }
    /// Appends `target` to the targets of `model`, as its setter would.
    /// - Precondition: ``canAppend``.
    @inlinable func append(_ model: AnyObject, _ target: any PersistentModel) {
        guard let appendBody else { preconditionFailure("append(_:_:) on a to-one relationship's access") }
        appendBody(model, target)
    }
    /// Whether `model`'s relationship is loaded and has a target.
    @inlinable func hasTargets(_ model: AnyObject) -> Bool { hasTargetsBody(model) }
    /// Whether `model`'s loaded targets include `target`, by identity.
    @inlinable func contains(_ model: AnyObject, _ target: AnyObject) -> Bool { containsBody(model, target) }

    @inlinable
    static func toMany<Model: PersistentModel, Target: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, [Target]>,
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]>>,
        name: String, index: Int
    ) -> RelationshipAccess {
        let location = StorageLocation(storage, name: name)
        return list(
            keyPath, location, index, members: { $0 }, value: { $0 },
            didSet: { $0._$didSet(index, from: $1, to: $2) },
            hasTargets: { model in
                // An array of class references has one layout whatever the class, so the
                // storage can be read as `[AnyObject]` in code that is not generic.
                if let offset = location.offset {
                    return slot(model, offset, [AnyObject].self).pointee.loadedValue.map { !$0.isEmpty } ?? false
                }
                return location.get(model).loadedValue.map { !$0.isEmpty } ?? false
            })
    }

    /// An optional to-many relationship (`[Target]?`, as CloudKit-ready SwiftData models declare
    /// them): `nil` is no targets. Loaded from the store it is a list, empty when there are none.
    @inlinable
    static func toManyOptional<Model: PersistentModel, Target: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, [Target]?>,
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]?>>,
        name: String, index: Int
    ) -> RelationshipAccess {
        let location = StorageLocation(storage, name: name)
        return list(
            keyPath, location, index, members: { $0 ?? [] }, value: { $0 },
            didSet: { $0._$didSet(index, from: $1, to: $2) },
            hasTargets: { model in location.get(model).loadedValue.map { !($0 ?? []).isEmpty } ?? false })
    }

    /// A to-many relationship whose stored value (`[Target]`, `[Target]?`) gives its members
    /// through `members` and is made from a list by `value`.
    @inlinable
    static func list<Model: PersistentModel, Target: PersistentModel, Value>(
        _ keyPath: ReferenceWritableKeyPath<Model, Value>, _ location: StorageLocation<Model, Value>, _ index: Int,
        members: @escaping (Value) -> [Target], value: @escaping ([Target]) -> Value,
        didSet: @escaping (Model, Value?, Value) -> Void, hasTargets: @escaping (AnyObject) -> Bool
    ) -> RelationshipAccess {
        RelationshipAccess(
            isLoaded: { location.read($0) { $0.isLoaded } },
            // Element by element: converting the whole `[Target]` at once is a checked cast of each
            // element (`_arrayForceCast`), about 1,000 instructions apiece.
            targets: { members(location.get($0).value).map { $0 as any PersistentModel } },
            forEachTarget: { model, body in
                for target in members(location.get(model).value) { body(target) }
            },
            firstTarget: { members(location.get($0).value).first },
            setTarget: { model, target in
                assign(
                    unsafeDowncast(model, to: Model.self),
                    value(target.map { [unsafeDowncast($0, to: Target.self)] } ?? []), location, keyPath, index,
                    didSet: didSet)
            },
            set: { model, targets in
                assign(
                    unsafeDowncast(model, to: Model.self), value(targets.map { unsafeDowncast($0, to: Target.self) }),
                    location, keyPath, index, didSet: didSet)
            },
            load: { model, targets in
                location.set(model, _PersistedValue(value(targets.map { unsafeDowncast($0, to: Target.self) })))
            },
            unload: { location.set($0, _PersistedValue()) },
            append: { model, target in
                // Taken out of the storage first (an empty list stands in, so nothing faults), so
                // the append does not copy the list; set back through the property, so observers
                // hear of it.
                var list = location.exchange(model, _PersistedValue(value([]))).loadedValue.map(members) ?? []
                list.append(unsafeDowncast(target, to: Target.self))
                assign(unsafeDowncast(model, to: Model.self), value(list), location, keyPath, index, didSet: didSet)
            },
            hasTargets: hasTargets,
            contains: { model, target in
                location.get(model).loadedValue.map(members)?.contains { $0 === target } ?? false
            })
    }

    @inlinable
    static func toOne<Model: PersistentModel, Target: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, Target?>,
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target?>>,
        name: String, index: Int
    ) -> RelationshipAccess {
        let location = StorageLocation(storage, name: name)
        let didSet: (Model, Target??, Target?) -> Void = { $0._$didSet(index, from: $1, to: $2) }
        return RelationshipAccess(
            isLoaded: { location.read($0) { $0.isLoaded } },
            targets: { model in location.get(model).value.map { [$0] } ?? [] },
            forEachTarget: { model, body in
                location.read(model) {
                    if case .some(.some(let target)) = $0.storage { body(target) }
                }
            },
            firstTarget: { location.get($0).value },
            setTarget: { model, target in
                assign(
                    unsafeDowncast(model, to: Model.self), target.map { unsafeDowncast($0, to: Target.self) }, location,
                    keyPath, index, didSet: didSet)
            },
            set: { model, targets in
                assign(
                    unsafeDowncast(model, to: Model.self), targets.first.map { unsafeDowncast($0, to: Target.self) },
                    location, keyPath, index, didSet: didSet)
            },
            load: { model, targets in
                location.set(model, _PersistedValue(targets.first.map { unsafeDowncast($0, to: Target.self) }))
            },
            unload: { location.set($0, _PersistedValue()) },
            append: nil,
            hasTargets: {
                location.read($0) {
                    if case .some(.some) = $0.storage { return true }
                    return false
                }
            },
            contains: { model, target in
                location.read(model) {
                    if case .some(.some(let current)) = $0.storage { return current === target }
                    return false
                }
            })
    }

    @inlinable
    static func toOneRequired<Model: PersistentModel, Target: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, Target>,
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target>>,
        name: String, index: Int
    ) -> RelationshipAccess {
        let location = StorageLocation(storage, name: name)
        let didSet: (Model, Target?, Target) -> Void = { $0._$didSet(index, from: $1, to: $2) }
        return RelationshipAccess(
            isLoaded: { location.read($0) { $0.isLoaded } },
            targets: { [location.get($0).value] },
            forEachTarget: { model, body in body(location.get(model).value) },
            firstTarget: { location.get($0).value },
            setTarget: { model, target in
                guard let target else {
                    cannotClear(Model.self, name)
                }
                assign(
                    unsafeDowncast(model, to: Model.self), unsafeDowncast(target, to: Target.self), location, keyPath,
                    index, didSet: didSet)
            },
            set: { model, targets in
                guard let target = targets.first else {
                    cannotClear(Model.self, name)
                }
                assign(
                    unsafeDowncast(model, to: Model.self), unsafeDowncast(target, to: Target.self), location, keyPath,
                    index, didSet: didSet)
            },
            load: { model, targets in
                guard let target = targets.first else {
                    preconditionFailure(
                        "A stored \(Model.self) has no \(name), which is not optional; make the relationship optional")
                }
                location.set(model, _PersistedValue(unsafeDowncast(target, to: Target.self)))
            },
            unload: { location.set($0, _PersistedValue()) },
            append: nil,
            hasTargets: { location.read($0) { $0.isLoaded } },
            contains: { model, target in
                location.read(model) {
                    if case .some(let current) = $0.storage { return current === target }
                    return false
                }
            })
    }
}

/// Stops on an attempt to clear a relationship that is not optional (a programming error, as
/// assigning `nil` to a non-optional property would be).
@usableFromInline
func cannotClear(_ model: Any.Type, _ name: String) -> Never {
    preconditionFailure(
        "\(model).\(name) is not optional and cannot be cleared; delete the model or make the relationship optional")
}

// What a relationship's generated setter does, without its getter: a key-path write to a
// computed property reads it first (the setter is handed an `inout` copy), which would fault
// the old targets in and register an observation access no one asked for. `didSet` is the
// generated `_$didSet` overload for the relationship's shape.
@inlinable
func assign<Model: PersistentModel, Value>(
    _ model: Model, _ value: Value, _ location: StorageLocation<Model, Value>,
    _ keyPath: ReferenceWritableKeyPath<Model, Value>, _ index: Int, didSet: (Model, Value?, Value) -> Void
) {
    model._$state { state in
        state.withMutation(of: model, keyPath: keyPath, index) {
            let oldValue = location.exchange(model, _PersistedValue(value)).loadedValue
            didSet(model, oldValue, value)
        }
    }
}

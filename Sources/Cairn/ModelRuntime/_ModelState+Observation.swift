import Observation

// Observation that costs nothing until something can observe.
//
// `withObservationTracking` and SwiftUI register an observer for a property only through
// `ObservationRegistrar.access`, which a property's getter calls while a tracking closure runs.
// So a property whose getter has never run on a model cannot have an observer there, and
// its setter need not tell the registrar anything. Telling it costs about 4,000 instructions
// per set (a lock and a dictionary lookup by key path, twice, in code that is generic over
// the model), and making a registrar costs two allocations per model.
//
// Each model's state keeps a bit per property whose getter ran while the model had a registrar,
// and makes the registrar at the first getter call that a tracking closure may be making: its
// context's `ObservationProbe` tells whether one is running on the thread (a model in no context
// makes it at its first getter call). A setter goes through the registrar only when its
// property's bit is set. The bit is never cleared: a property read once with a registrar, tracked
// or not, stays observed, which errs toward notifying.

extension _ModelState {
    /// Registers a read of the persisted property at `index` with the model's observation
    /// registrar (made now if the model has none and a tracking closure may be running), so that
    /// a `withObservationTracking` closure or a SwiftUI view running this getter observes it.
    /// Called by generated getters; not for direct use.
    ///
    /// ```swift
    /// _$modelState.access(self, keyPath: \.title, 2)   // generated code
    /// ```
    @inlinable
    public mutating func access<Model: Observable & AnyObject, Member>(
        _ model: Model, keyPath: KeyPath<Model, Member>, _ index: Int
    ) {
        guard let observation = observation ?? observationIfTracked() else { return }
        if !observation.observed.contains(index) { observation.observed.insert(index) }
        observation.registrar.access(model, keyPath: keyPath)
    }

    /// What observing the model needs, for a getter's access on a model that has none yet: made
    /// when a tracking closure may be running (or when that cannot be told: a model in no
    /// context, or no probe), `nil` when none is, since the access would then register nothing.
    @usableFromInline
    mutating func observationIfTracked() -> _ModelObservation? {
        // The link reached unretained (its reference's bits read in place): the state holds it,
        // and retaining and releasing it, and its probe, were four atomic operations per getter.
        let link = withUnsafeMutablePointer(to: &link) { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) }
        if let link, !Unmanaged<_ContextLink>.fromOpaque(link)._withUnsafeGuaranteedRef({ $0.mayBeTracked() }) {
            return nil
        }
        return makeObservation()
    }

    /// Runs `mutation`, the change of the persisted property at `index`, telling the model's
    /// observation registrar before and after when the property can have observers: when its
    /// getter has run. Called by generated setters; not for direct use.
    ///
    /// ```swift
    /// _$modelState.withMutation(of: self, keyPath: \.title, 2) { _$title = … }   // generated code
    /// ```
    @inlinable
    public func withMutation<Model: Observable & AnyObject, Member, Result>(
        of model: Model, keyPath: KeyPath<Model, Member>, _ index: Int, _ mutation: () throws -> Result
    ) rethrows -> Result {
        guard let observation, observation.observed.contains(index) else { return try mutation() }
        return try observation.registrar.withMutation(of: model, keyPath: keyPath, mutation)
    }

    /// Whether the model has an observation registrar yet (made at its first getter call that
    /// something may observe).
    var hasRegistrar: Bool { observation != nil }
}

/// What observing one model needs, made only for a model that something may observe: its
/// observation registrar, and the properties whose getter has run while it had one, by index
/// (only those can have observers, so a setter of any other skips the registrar). The bits are
/// never cleared: a property read once with a registrar, tracked or not, stays observed, which
/// errs toward notifying.
///
/// ```swift
/// let observation = state.makeObservation()   // at the first getter call that may be tracked
/// ```
@usableFromInline
final class _ModelObservation {
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline @exclusivity(unchecked) var observed = PropertyBits()

    @usableFromInline init() {}
}

extension PersistentModel {
    /// Registers a read of the persisted property at `index` (``_ModelState/access(_:keyPath:_:)``),
    /// with the model's state reached unretained: calling the state's method through
    /// `_$modelState` retained and released the state at every getter call. Called by generated
    /// getters; not for direct use.
    ///
    /// ```swift
    /// _$access(Book._$keyPath_title, 2)   // generated code
    /// ```
    @inlinable
    public func _$access<Member>(_ keyPath: KeyPath<Self, Member>, _ index: Int) {
        _$state { $0.access(self, keyPath: keyPath, index) }
    }

    /// Runs `mutation`, the change of the persisted property at `index`, through
    /// ``_ModelState/withMutation(of:keyPath:_:_:)``, with the state reached unretained. Called by
    /// generated setters; not for direct use.
    ///
    /// ```swift
    /// _$withMutation(Book._$keyPath_title, 2) { _$title = … }   // generated code
    /// ```
    @inlinable
    public func _$withMutation<Member, Result>(
        _ keyPath: KeyPath<Self, Member>, _ index: Int, _ mutation: () throws -> Result
    ) rethrows -> Result {
        try _$state { try $0.withMutation(of: self, keyPath: keyPath, index, mutation) }
    }
}

extension PersistentModel {
    /// Runs `change` (the context unloading the property at `index`, whose key path is
    /// `keyPath`, so it reads the stored value again) as a change of the property that observers
    /// hear of, as its setter's would be: a refresh, a rollback or another context's save changes
    /// what the property reads. Observers only ever registered through a getter, so a property
    /// whose getter has not run with a registrar has none, and nothing is told.
    ///
    /// ```swift
    /// book._$changeObserved(\Book.title, 2) { access.unload(book) }
    /// ```
    func _$changeObserved(_ keyPath: AnyKeyPath, _ index: Int, _ change: () -> Void) {
        guard let observation = _$state.observation, observation.observed.contains(index) else { return change() }
        // The registrar takes a key path typed by the member: opened from the key path's own
        // value type (its observers are found by key path, whatever the member's type).
        func notify<Member>(_: Member.Type) {
            guard let keyPath = keyPath as? KeyPath<Self, Member> else { return change() }
            observation.registrar.withMutation(of: self, keyPath: keyPath, change)
        }
        _openExistential(type(of: keyPath).valueType, do: notify)
    }
}

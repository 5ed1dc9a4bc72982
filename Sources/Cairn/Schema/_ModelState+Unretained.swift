/// A model's state, reached without reference counting: what the context's passes over models
/// and the generated accessors' helpers read and write.
///
/// Reading `_$modelState` through `any PersistentModel` lends the state only for the read, so
/// keeping it in a local, or reading one of its properties, retained and released it (an atomic
/// operation each, on an object that a pass over a hundred thousand models finds cold). The
/// state lives as long as its model and is never replaced, so while the caller holds the model,
/// the state can be used unretained: a property read or written through this handle is a load
/// or a store, with no reference counting. Properties are reached by dynamic member lookup over
/// key paths, which the optimizer turns into direct accesses.
///
/// ```swift
/// let state = model._$state      // no retain
/// state.planPosition = 3         // a store
/// if state.hasChanges { … }      // a load
/// ```
///
/// Not for direct use; and never kept past the statement's hold on the model.
@dynamicMemberLookup
@usableFromInline
struct _UnretainedModelState {
    @usableFromInline let reference: Unmanaged<_ModelState>

    @inlinable @inline(__always)
    init(_ state: _ModelState) { reference = .passUnretained(state) }

    /// A stored property of the state, read or written in place.
    @inlinable @inline(__always)
    subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<_ModelState, Value>) -> Value {
        get { reference._withUnsafeGuaranteedRef { $0[keyPath: keyPath] } }
        nonmutating set { reference._withUnsafeGuaranteedRef { $0[keyPath: keyPath] = newValue } }
    }

    /// A read-only property of the state (`hasChanges`, `loader`).
    @inlinable @inline(__always)
    subscript<Value>(dynamicMember keyPath: KeyPath<_ModelState, Value>) -> Value {
        reference._withUnsafeGuaranteedRef { $0[keyPath: keyPath] }
    }

    /// The state itself, for `body` only, unretained (for its methods).
    @inlinable @inline(__always)
    func callAsFunction<Result>(_ body: (_ModelState) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// Records that the persisted property at `index` changed (``_ModelState/markChanged(_:)``).
    @inlinable @inline(__always)
    func markChanged(_ index: Int) { reference._withUnsafeGuaranteedRef { $0.markChanged(index) } }

    /// Whether the persisted property at `index` changed (``_ModelState/isChanged(_:)``).
    @inlinable @inline(__always)
    func isChanged(_ index: Int) -> Bool { reference._withUnsafeGuaranteedRef { $0.isChanged(index) } }

    /// Whether the context hears of every change to the attribute at `index`
    /// (``_ModelState/reportsChanges(to:)``). A method, not the bits through a key path: a
    /// property reached through a key path is checked for exclusive access at run time.
    @inline(__always)
    func reportsChanges(to index: Int) -> Bool {
        reference._withUnsafeGuaranteedRef { $0.reportsChanges(to: index) }
    }

    /// Forgets every change (``_ModelState/clearChanges()``).
    @inlinable @inline(__always)
    func clearChanges() { reference._withUnsafeGuaranteedRef { $0.clearChanges() } }

    /// Joins the context behind `link` (``_ModelState/attach(to:reporting:)``).
    func attach(to link: _ContextLink, reporting reportedAttributes: UInt64) {
        reference._withUnsafeGuaranteedRef { $0.attach(to: link, reporting: reportedAttributes) }
    }

    /// Leaves the model's context (``_ModelState/detach()``).
    func detach() { reference._withUnsafeGuaranteedRef { $0.detach() } }
}

extension PersistentModel {
    /// The model's state without reference counting (see ``_UnretainedModelState``); valid while
    /// the model is held.
    @inlinable @inline(__always)
    var _$state: _UnretainedModelState { _UnretainedModelState(_$modelState) }
}

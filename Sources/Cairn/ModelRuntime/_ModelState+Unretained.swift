/// A model's state, reached in place: what the context's passes over models and the generated
/// accessors' helpers read and write.
///
/// The state is stored in its model (``_ModelState``), at an offset each model class knows
/// (``PersistentModel/_$modelStateOffset``): this handle is a pointer to it, so a property read or
/// written through it is a load or a store, with no reference counting and no copy of the state
/// (reading `_$modelState` through `any PersistentModel` would copy it whole). Properties are
/// reached by dynamic member lookup over key paths, which the optimizer turns into direct accesses.
///
/// ```swift
/// let state = model._$state      // a pointer into the model
/// state.planPosition = 3         // a store
/// if state.hasChanges { … }      // a load
/// ```
///
/// Not for direct use; and never kept past the statement's hold on the model.
@dynamicMemberLookup
@usableFromInline
struct _UnretainedModelState {
    @usableFromInline let pointer: UnsafeMutablePointer<_ModelState>

    @inlinable @inline(__always)
    init(_ pointer: UnsafeMutablePointer<_ModelState>) { self.pointer = pointer }

    /// A stored property of the state, read or written in place.
    @inlinable @inline(__always)
    subscript<Value>(dynamicMember keyPath: WritableKeyPath<_ModelState, Value>) -> Value {
        get { pointer.pointee[keyPath: keyPath] }
        nonmutating set { pointer.pointee[keyPath: keyPath] = newValue }
    }

    /// A read-only property of the state (`hasChanges`, `loader`).
    @inlinable @inline(__always)
    subscript<Value>(dynamicMember keyPath: KeyPath<_ModelState, Value>) -> Value {
        pointer.pointee[keyPath: keyPath]
    }

    /// The state itself, for `body` only, in place (for its methods).
    @inlinable @inline(__always)
    func callAsFunction<Result>(_ body: (inout _ModelState) throws -> Result) rethrows -> Result {
        try body(&pointer.pointee)
    }

    /// Records that the persisted property at `index` changed (``_ModelState/markChanged(_:)``).
    @inlinable @inline(__always)
    func markChanged(_ index: Int) { pointer.pointee.markChanged(index) }

    /// Whether the persisted property at `index` changed (``_ModelState/isChanged(_:)``).
    @inlinable @inline(__always)
    func isChanged(_ index: Int) -> Bool { pointer.pointee.isChanged(index) }

    /// Whether the context hears of every change to the attribute at `index`
    /// (``_ModelState/reportsChanges(to:)``).
    @inline(__always)
    func reportsChanges(to index: Int) -> Bool { pointer.pointee.reportsChanges(to: index) }

    /// Forgets every change (``_ModelState/clearChanges()``).
    @inlinable @inline(__always)
    func clearChanges() { pointer.pointee.clearChanges() }

    /// Joins the context behind `link` (``_ModelState/attach(to:reporting:)``).
    func attach(to link: _ContextLink, reporting reportedAttributes: UInt64) {
        pointer.pointee.attach(to: link, reporting: reportedAttributes)
    }

    /// Leaves the model's context (``_ModelState/detach()``).
    func detach() { pointer.pointee.detach() }
}

extension PersistentModel {
    /// The model's state in place (see ``_UnretainedModelState``); valid while the model is held.
    @inlinable @inline(__always)
    var _$state: _UnretainedModelState {
        _UnretainedModelState(
            UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
                .advanced(by: Self._$modelStateOffset).assumingMemoryBound(to: _ModelState.self))
    }
}

/// Where a model class stores its state: the byte offset of its `_$modelState` property in an
/// instance, found once per class (``PersistentModel/_$modelStateOffset``, which `@Model`
/// generates as a static constant).
///
/// ```swift
/// static let _$modelStateOffset = Cairn._modelStateOffset(of: Book.self)   // generated code
/// ```
public func _modelStateOffset(of model: AnyClass) -> Int {
    guard let offset = storageOffset(in: model, field: "_$modelState", type: _ModelState.self) else {
        preconditionFailure("\(model) stores no `_$modelState: _ModelState`: declare it with @Model")
    }
    return offset
}

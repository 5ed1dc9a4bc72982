import Observation

/// A model's bookkeeping: which persisted properties changed, which may be observed, and who can
/// load the ones that are not loaded yet. `@Model` gives every model one, stored in the model
/// (`_$modelState`); not for direct use.
///
/// A value stored in the model, not an object of its own: one allocation and one free per model
/// fewer, and the bookkeeping beside the model's fields in memory (a pass over a hundred thousand
/// models missed the caches on the state as well as on the model). The context reaches it in
/// place, through a pointer at the class's offset for it (``_UnretainedModelState``,
/// `model._$state`), never through the protocol, which would copy it.
///
/// ```swift
/// book._$modelState.hasChanges   // the model's stored state
/// ```
public struct _ModelState {
    // The state is read and written only on its context's executor, in place through a pointer
    // (`_UnretainedModelState`), and no access to a property outlives the statement that makes
    // it.

    // In the order the save's passes over the models read them: what each pass reads (the
    // identifier, the position in the plan, the changes) first, so that a pass over a hundred
    // thousand models far apart in memory misses the caches on as few lines of each as it can;
    // what only getters read last. The small fields fill the room the identifier leaves before
    // the next word: the state is 88 bytes, where its fields took 136 as an object of its own
    // (each model's share of a large fetch or save that no longer fits the caches: a state 8
    // bytes larger made ids.contains over a hundred thousand models 2.7% slower).
    /// The model's identity in its context; `nil` until it is inserted or fetched.
    var persistentIdentifier: PersistentIdentifier?
    /// Whether the model was deleted and the deletion saved.
    var isDeleted = false
    /// Whether its context's identity map holds the model as its stored row's instance: only such
    /// a model's changes are tracked (an instance whose row an insert took over is not). Set and
    /// cleared by the map (`RowSlots`), so that a first change asks this instead of looking the
    /// model up by its identifier.
    var isRegisteredRow = false
    /// The checksum of the stored record the loaded values came from (or were saved as), so a
    /// fetch can tell that another context rewrote the row since.
    var recordChecksum: UInt32?
    /// ``planPosition``, in four bytes.
    private var planSlot: Int32 = -1
    /// Changed properties by index.
    var changed = PropertyBits()
    /// The link to the context that owns the model (none for a model that was only created),
    /// shared by all the context's models; see ``_ContextLink``.
    @usableFromInline var link: _ContextLink?
    /// Loads faulted properties and keeps relationships consistent: the context that owns the
    /// model, while it exists. Not a strong reference, as in Core Data: related models hold each
    /// other, and if they also held their context, any relationship would keep the context, its
    /// container and its store alive for good. Keep the context while you use its models; a
    /// fault whose context is gone cannot load.
    @inlinable var loader: (any _ModelLoader)? { link?.loader }
    /// The attributes whose every change the loader hears of (``_ModelLoader/attributeDidChange(_:_:)``),
    /// as bits 0…63: those a unique or index table keys. Attributes past 63 are always reported.
    @usableFromInline var reportedAttributes: UInt64 = 0
    /// The model's position in each of its context's lists of pending changes (inserted,
    /// changed, key-changed, deleted), -1 for none; see `ModelList`.
    var listPositions = ListPositions()
    /// What observing the model needs: its observation registrar and the properties whose getter
    /// has run (see `_ModelState+Observation.swift`). Made when something may observe the model
    /// (most models never have it). One word in every state, where the property bits and the
    /// registrar's pointer were three.
    @usableFromInline var observation: _ModelObservation?

    /// The model's position among the new rows of the save being planned, or, for a changed
    /// model, among the changed ones (see `SavePlanner`); meaningful only while that plan is made.
    var planPosition: Int {
        get { Int(planSlot) }
        set { planSlot = Int32(truncatingIfNeeded: newValue) }
    }

    /// A state with no changes, belonging to no context.
    ///
    /// ```swift
    /// var _$modelState = _ModelState()
    /// ```
    public init() {}

    /// Makes what observing the model needs (its registrar).
    @usableFromInline
    mutating func makeObservation() -> _ModelObservation {
        let made = _ModelObservation()
        observation = made
        return made
    }

    /// Whether any persisted property changed.
    ///
    /// ```swift
    /// if book._$modelState.hasChanges { … }
    /// ```
    public var hasChanges: Bool { !changed.isEmpty }

    /// Whether the persisted property at `index` changed.
    ///
    /// ```swift
    /// book._$modelState.isChanged(2)
    /// ```
    public func isChanged(_ index: Int) -> Bool { changed.contains(index) }

    /// Records that the persisted property at `index` changed.
    ///
    /// ```swift
    /// _$modelState.markChanged(2)
    /// ```
    public mutating func markChanged(_ index: Int) { changed.insert(index) }

    /// Whether the context hears of every change to the attribute at `index` (see
    /// ``reportedAttributes``).
    func reportsChanges(to index: Int) -> Bool {
        index >= 64 || reportedAttributes & (1 << UInt64(index)) != 0
    }

    /// Makes `loader` the model's context, which hears of changes to the attributes in
    /// `reportedAttributes`.
    mutating func attach(to link: _ContextLink, reporting reportedAttributes: UInt64) {
        self.link = link
        self.reportedAttributes = reportedAttributes
    }

    /// Leaves the model's context.
    mutating func detach() { link = nil }

    /// Whether the model belongs to a context that still exists: what `loader != nil` tells,
    /// without reading the context (a read of the unowned reference retains and releases it).
    var isInContext: Bool { link?.isConnected ?? false }

    /// Whether the model belongs to the context behind `link`, which still exists.
    func belongs(to link: _ContextLink) -> Bool { self.link === link && link.isConnected }

    /// Forgets every change, as after a save.
    ///
    /// ```swift
    /// _$modelState.clearChanges()
    /// ```
    public mutating func clearChanges() { changed.removeAll() }
}

/// What a context's models reach it through: one per context, held by each of its models and
/// emptied when the context goes away. Not for direct use.
///
/// A weak reference to the context in every model cost each model a weak reference's
/// bookkeeping (the context's side table, a weak count changed atomically at every assignment,
/// copy and release, and a strong retain at every read); a strong reference to this object is one
/// atomic increment when the model joins and one decrement when it goes, and reading the context
/// is two loads.
///
/// ```swift
/// model._$modelState.loader?.fulfill(model, 2)   // through the context's link
/// ```
public final class _ContextLink {
    /// The context, until it is deinitialized (it empties the link then, so no model can reach
    /// it afterwards).
    @usableFromInline @exclusivity(unchecked) unowned(unsafe) private(set) var loader: (any _ModelLoader)?
    /// Whether the link reaches its owner: what ``loader`` tells, without reading it (a read of
    /// the unowned reference retains and releases the context).
    @exclusivity(unchecked) private(set) var isConnected = false
    /// Tells the getters of the link's models whether a tracking closure may be reading them, so
    /// that a model read while none is makes no observation registrar; `nil` where that cannot
    /// be told (every read then makes one).
    let probe: ObservationProbe?

    /// Whether an observation tracking closure may be running on this thread: `false` only when
    /// the probe can tell that none is.
    func mayBeTracked() -> Bool { probe?.isTracking() ?? true }

    /// A link with a probe of its own.
    init() { probe = ObservationProbe.make() }

    /// A link whose models share `probe` with another's (a fetch's images with their context's
    /// models: a probe is three objects to make).
    init(sharing probe: ObservationProbe?) { self.probe = probe }

    /// Makes `loader` the owner the link reaches.
    func connect(_ loader: any _ModelLoader) {
        self.loader = loader
        isConnected = true
    }

    /// Empties the link: its owner is going away.
    func disconnect() {
        loader = nil
        isConnected = false
    }
}

/// A set of property indexes: bits 0…63 inline, the rest in an array that exists only for
/// models with more than 64 persisted properties.
@usableFromInline struct PropertyBits {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: [UInt64] = []

    @inlinable init() {}

    @inlinable var isEmpty: Bool { low == 0 && !high.contains { $0 != 0 } }

    @inlinable func contains(_ index: Int) -> Bool {
        if index < 64 { return low & (1 << UInt64(truncatingIfNeeded: index)) != 0 }
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    @inlinable mutating func insert(_ index: Int) {
        precondition(index >= 0, "a persisted property index is never negative")
        if index < 64 {
            low |= 1 << UInt64(index)
            return
        }
        let word = index / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(index % 64)
    }

    @inlinable mutating func removeAll() {
        low = 0
        high.removeAll()
    }

    /// Takes `index` out of the set.
    mutating func remove(_ index: Int) {
        if index < 64 {
            low &= ~(1 << UInt64(truncatingIfNeeded: index))
        } else if index / 64 - 1 < high.count {
            high[index / 64 - 1] &= ~(1 << UInt64(index % 64))
        }
    }
}

/// What a context does for the models it owns: load faulted properties, and react to
/// relationship changes (maintaining inverses). Not for direct use.
///
/// ```swift
/// model._$modelState.loader?.fulfill(model, 2)
/// ```
public protocol _ModelLoader: AnyObject {
    /// Loads the persisted property at `index` of `model` (and whatever else it loads with it).
    ///
    /// ```swift
    /// loader.fulfill(book, 2)
    /// ```
    func fulfill(_ model: any PersistentModel, _ index: Int)

    /// Called when a model without changes gets its first one, so the context keeps it until it is
    /// saved or rolled back.
    ///
    /// ```swift
    /// loader.modelDidChange(book)
    /// ```
    func modelDidChange(_ model: any PersistentModel)

    /// Called after the relationship at `index` of `model` changed from `oldTargets` (`nil` when
    /// they were not loaded: the stored ones) to `newTargets`. Only membership matters, so a
    /// caller that knows the old list may hand over just the members that went and came (the
    /// members in both lists left out).
    ///
    /// ```swift
    /// loader.relationshipDidChange(book, 3, from: [oldAuthor], to: [newAuthor])
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel])

    /// The same for a to-one relationship: its old target (`nil` when it was not loaded: the
    /// stored one; `.some(nil)` for none) and its new one, without a list for either. A to-many
    /// list that gained one member and lost none is handed over this way too (`.some(nil)` to
    /// the member): the inverses follow the same way, without two lists made for it.
    ///
    /// ```swift
    /// loader.relationshipDidChange(book, 3, from: .some(oldAuthor), to: newAuthor)
    /// ```
    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?)

    /// Removes repeated members from the to-many relationship at `index` of `model`, each member
    /// keeping its first place, without recording a change (the setter that repeated one did).
    ///
    /// ```swift
    /// loader.keepFirstOccurrences(playlist, 1)
    /// ```
    func keepFirstOccurrences(_ model: any PersistentModel, _ index: Int)

    /// Whether the loader is itself setting relationships to keep inverses in step: a setter then
    /// reports nothing (and converts nothing), since the loader made the change.
    ///
    /// ```swift
    /// if loader.isUpdatingInverses { return }
    /// ```
    var isUpdatingInverses: Bool { get }

    /// Called after every change of the attribute at `index` of `model`, first or not.
    ///
    /// ```swift
    /// loader.attributeDidChange(book, 1)
    /// ```
    func attributeDidChange(_ model: any PersistentModel, _ index: Int)

    /// Called by a generated `_modify` before a to-many relationship is changed in place
    /// (`author.books.append(book)`), with the list's members as the bytes of its references. A
    /// loader that returns `true` keeps their addresses, and keeps the members alive, until
    /// ``endMembershipChange(_:_:)``: the list can then be taken out of the model and changed
    /// without a copy, and the setter finds what came and went from the addresses
    /// (``membersBeforeChange(_:_:)``).
    ///
    /// ```swift
    /// let kept = books.withUnsafeBytes { loader.beginMembershipChange(author, 4, members: $0) }
    /// ```
    func beginMembershipChange(_ model: AnyObject, _ index: Int, members: UnsafeRawBufferPointer) -> Bool

    /// The member addresses kept for the change in place of `model`'s list at `index`, if one is
    /// under way. Valid until the loader begins or ends another change: read them at once.
    ///
    /// ```swift
    /// if let before = loader.membersBeforeChange(author, 4) { change = _MembershipChange(before: before, to: books) }
    /// ```
    func membersBeforeChange(_ model: AnyObject, _ index: Int) -> UnsafeBufferPointer<UnsafeRawPointer>?

    /// Whether the change in place of `model`'s list at `index` had another change of the same
    /// list inside it; the setter then counts the members the model's storage held before it as
    /// members before the change too.
    ///
    /// ```swift
    /// if loader.membershipChangeWasNested(author, 4) { … }
    /// ```
    func membershipChangeWasNested(_ model: AnyObject, _ index: Int) -> Bool

    /// Ends the change in place that ``beginMembershipChange(_:_:members:)`` began.
    ///
    /// ```swift
    /// loader.endMembershipChange(author, 4)
    /// ```
    func endMembershipChange(_ model: AnyObject, _ index: Int)
}

extension _ModelLoader {
    /// Keeps nothing: the generated `_modify` then changes a copy of the list, and the setter
    /// compares it with the list the model still holds.
    ///
    /// ```swift
    /// loader.beginMembershipChange(author, 4, members: bytes)   // false
    /// ```
    public func beginMembershipChange(_ model: AnyObject, _ index: Int, members: UnsafeRawBufferPointer) -> Bool {
        false
    }

    /// Finds nothing kept.
    ///
    /// ```swift
    /// loader.membersBeforeChange(author, 4)   // nil
    /// ```
    public func membersBeforeChange(_ model: AnyObject, _ index: Int) -> UnsafeBufferPointer<UnsafeRawPointer>? {
        nil
    }

    /// No change in place is kept, so none was nested.
    ///
    /// ```swift
    /// loader.membershipChangeWasNested(author, 4)   // false
    /// ```
    public func membershipChangeWasNested(_ model: AnyObject, _ index: Int) -> Bool { false }

    /// Nothing to end.
    ///
    /// ```swift
    /// loader.endMembershipChange(author, 4)
    /// ```
    public func endMembershipChange(_ model: AnyObject, _ index: Int) {}
}

extension _ModelLoader {
    /// Hands the change over as lists of none or one target, to the form that takes lists.
    ///
    /// ```swift
    /// loader.relationshipDidChange(book, 3, from: .some(nil), to: author)
    /// ```
    public func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?
    ) {
        relationshipDidChange(
            model, index, from: oldTarget.map { $0.map { [$0] } ?? [] }, to: newTarget.map { [$0] } ?? [])
    }

    /// `false`: a loader that never sets relationships itself.
    ///
    /// ```swift
    /// loader.isUpdatingInverses   // false
    /// ```
    public var isUpdatingInverses: Bool { false }

    /// Does nothing: a loader that does not track single attributes.
    ///
    /// ```swift
    /// loader.attributeDidChange(book, 1)
    /// ```
    public func attributeDidChange(_ model: any PersistentModel, _ index: Int) {}
}

/// A model's position in each of its context's four lists of pending changes (see `ModelList`),
/// -1 for none. Four plain fields: as a `SIMD4<Int32>` they made the state 16-byte aligned, and
/// the runtime on Linux takes malloc's alignment to be 8, so it allocated every state with
/// `posix_memalign`, about a hundred instructions more per model made.
struct ListPositions {
    private var inserted: Int32 = -1
    private var changed: Int32 = -1
    private var keyChanged: Int32 = -1
    private var deleted: Int32 = -1

    subscript(slot: Int) -> Int32 {
        get {
            switch slot {
            case 0: inserted
            case 1: changed
            case 2: keyChanged
            default: deleted
            }
        }
        set {
            switch slot {
            case 0: inserted = newValue
            case 1: changed = newValue
            case 2: keyChanged = newValue
            default: deleted = newValue
            }
        }
    }
}

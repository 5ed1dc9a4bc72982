/// What generated model code calls on the context that owns a model (``_ModelLoader``): loading
/// a fault, reporting a change, keeping inverses in step. A separate object, so that these entry
/// points stay off ``ModelContext``'s public API, which is SwiftData's; each forwards to the
/// context's internal method of the same name.
///
/// The context holds it, and its models reach it through their ``_ContextLink``, which the context
/// empties when it goes: nothing calls it after its context is gone.
///
/// ```swift
/// model._$modelState.loader?.fulfill(model, 2)   // generated code, through the link
/// ```
final class ContextHooks: _ModelLoader {
    /// The context, which owns this object and outlives every call through it.
    unowned(unsafe) let context: ModelContext

    init(_ context: ModelContext) { self.context = context }

    func fulfill(_ model: any PersistentModel, _ index: Int) { context.fulfill(model, index) }

    func modelDidChange(_ model: any PersistentModel) { context.modelDidChange(model) }

    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel]
    ) {
        context.relationshipDidChange(model, index, from: oldTargets, to: newTargets)
    }

    func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?
    ) {
        context.relationshipDidChange(model, index, from: oldTarget, to: newTarget)
    }

    func keepFirstOccurrences(_ model: any PersistentModel, _ index: Int) {
        context.keepFirstOccurrences(model, index)
    }

    var isUpdatingInverses: Bool { context.isUpdatingInverses }

    func attributeDidChange(_ model: any PersistentModel, _ index: Int) { context.attributeDidChange(model, index) }

    func beginMembershipChange(_ model: AnyObject, _ index: Int, members: UnsafeRawBufferPointer) -> Bool {
        context.beginMembershipChange(model, index, members: members)
    }

    func membersBeforeChange(_ model: AnyObject, _ index: Int) -> UnsafeBufferPointer<UnsafeRawPointer>? {
        context.membersBeforeChange(model, index)
    }

    func membershipChangeWasNested(_ model: AnyObject, _ index: Int) -> Bool {
        context.membershipChangeWasNested(model, index)
    }

    func endMembershipChange(_ model: AnyObject, _ index: Int) { context.endMembershipChange(model, index) }
}

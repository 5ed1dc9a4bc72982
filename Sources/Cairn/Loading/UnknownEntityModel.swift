/// What ``ModelContext/model(for:)`` returns for an identifier whose entity is not in the
/// container's schema (one decoded from another app's data, say): an empty, deleted model with
/// that identifier, which casts to none of the app's model classes. Asking for it records a load
/// error, as for any identifier that names no model of the store; it never stops the process.
final class UnknownEntityModel: PersistentModel {
    var _$modelState: _ModelState
    static let _$modelStateOffset = _modelStateOffset(of: UnknownEntityModel.self)
    init(_$modelState: _ModelState, _$constants: _ConstantFields = .none) { self._$modelState = _$modelState }
    static var schemaMetadata: [Schema.PropertyMetadata] { [] }
}

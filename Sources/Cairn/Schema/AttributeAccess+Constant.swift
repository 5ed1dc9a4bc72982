import Foundation

// A `let` property of a model (a constant): the class stores the value itself, with no `_$`
// storage and no accessors (a `let` cannot have them), so the value is loaded for as long as the
// model lives. Cairn writes it from the property's key path and hands it, read from the record, to
// the fault initialiser `@Model` generates (``_ConstantFields``). Docs/Macros.md, "Constants".

/// How Cairn reads a constant attribute from a record for the fault initialiser, without knowing
/// its type: the decoded value as `Any` (of the property's exact type), and the value a model
/// whose row cannot be read takes.
///
/// `@unchecked Sendable`: immutable after initialisation; the closure captures only the codec.
final class ConstantAccess: @unchecked Sendable {
    /// The property's name, for errors.
    let name: String
    /// Decodes the field `tag` of a record; `nil` when the record has no such field.
    let decodeBody: (RecordReader, UInt32) throws(StorageError) -> Any?
    /// The value of a model whose row is gone or unreadable (see ``placeholder(_:)``); `nil` when
    /// the type has none, which ``Schema`` reports as a problem.
    let placeholder: Any?

    init(name: String, decode: @escaping (RecordReader, UInt32) throws(StorageError) -> Any?, placeholder: Any?) {
        self.name = name
        self.decodeBody = decode
        self.placeholder = placeholder
    }

    /// The value of the field `tag` of `reader`.
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the field is absent (a `let` has no
    ///   default to take) or cannot be decoded.
    func decode(_ reader: RecordReader, tag: UInt32, entity: String) throws(StorageError) -> Any {
        guard let value = try decodeBody(reader, tag) else {
            throw AttributeAccess.missingValue(entity: entity, attribute: name)
        }
        return value
    }
}

extension AttributeAccess {
    /// Access to the constant `keyPath` of `Model`, or `nil` when `Value` cannot be stored.
    ///
    /// A constant is always loaded: decoding, unloading and filling a placeholder leave it as it
    /// is (the fault initialiser gave it its value). Encoding and key building read the property.
    static func constant<Model: PersistentModel, Value>(
        _ keyPath: KeyPath<Model, Value>, name: String
    ) -> AttributeAccess? {
        guard let codec = AttributeCodec<Value>.resolve(Value.self) else { return nil }
        return AttributeAccess(
            isLoaded: { _ in true },
            encode: { (model, tag, writer) throws(StorageError) in
                try codec.encode(unsafeDowncast(model, to: Model.self)[keyPath: keyPath], tag: tag, into: &writer)
            },
            decode: { (_, _, _) throws(StorageError) in },
            unload: { _ in },
            appendKey: (Value.self as? any KeyComponent.Type).map { keyType in
                constantKeyAccess(keyPath, as: keyType)
            },
            fillPlaceholder: { _ in true },
            value: { (tag, reader) throws(StorageError) in try codec.decode(tag: tag, from: reader) },
            constant: ConstantAccess(
                name: name,
                decode: { (reader, tag) throws(StorageError) in try codec.decode(tag: tag, from: reader) },
                placeholder: placeholder(Value.self)))
    }
}

/// Appends the constant's value to a key as `Key`, which is `Value` itself.
private func constantKeyAccess<Model: PersistentModel, Value, Key: KeyComponent>(
    _ keyPath: KeyPath<Model, Value>, as _: Key.Type
) -> (AnyObject, inout KeyBuilder) -> Bool {
    precondition(Value.self == Key.self, "a key component type is the attribute's own type")
    return { model, key in
        let value = unsafeDowncast(model, to: Model.self)[keyPath: keyPath]
        return withUnsafePointer(to: value) { pointer in
            pointer.withMemoryRebound(to: Key.self, capacity: 1) { component in
                component.pointee.appendKey(to: &key)
                return component.pointee.equalsItself()
            }
        }
    }
}

/// The values of a model's `let` properties, which its fault initialiser takes: read from the
/// model's record, or placeholders for a row that cannot be read. Made by Cairn only.
///
/// ```swift
/// required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
///     self.isbn = _$constants.value(0)   // generated for `let isbn: String`, property 0
///     self._$modelState = _$modelState
/// }
/// ```
public struct _ConstantFields {
    /// The values by persisted property index (`()` at the indexes of other properties).
    let values: [Any]

    init(values: [Any]) { self.values = values }

    /// No values: for a class without `let` properties.
    ///
    /// ```swift
    /// let fault = Book(_$modelState: _ModelState(), _$constants: .none)
    /// ```
    public static var none: _ConstantFields { _ConstantFields(values: []) }

    /// The value of the `let` property whose persisted property index is `index`.
    ///
    /// ```swift
    /// self.isbn = _$constants.value(0)   // generated
    /// ```
    public func value<Value>(_ index: Int) -> Value {
        precondition(
            index < values.count, "a model with `let` properties was made without their values; only Cairn makes faults"
        )
        return values[index] as! Value
    }
}

/// The number of persisted properties of a model class, its superclasses' included: where a
/// subclass's own properties start. Called by generated code, once per subclass.
///
/// ```swift
/// static let _$firstIndex_Dog = Cairn._persistedPropertyCount(of: Animal.self)   // generated
/// ```
public func _persistedPropertyCount(of model: any PersistentModel.Type) -> Int {
    (model.schemaMetadata.compactMap(\.index).max() ?? -1) + 1
}

import Foundation

/// How the model layer reads, writes, loads and unloads one attribute of a model without knowing
/// its type: closures built where the type is known (``Schema/PropertyMetadata``'s generic
/// initialisers), over the generated storage (`_$name`) and the attribute's ``AttributeCodec``.
///
/// A class, so that the save and fetch loops that walk an entity's attributes copy one reference
/// per attribute, not six closure contexts (retained and released each time).
///
/// `@unchecked Sendable`: the closures capture only immutable values (key paths, the codec, the
/// default value) and are shared read-only; they touch a model only on the thread that owns it.
final class AttributeAccess: @unchecked Sendable {
    /// Whether the attribute of the model is loaded.
    let isLoadedBody: (AnyObject) -> Bool
    /// Writes the loaded value of the model's attribute into a record field.
    let encodeBody: (AnyObject, UInt32, inout RecordWriter) throws(StorageError) -> Void
    /// Loads the attribute from a record, unless it is loaded already. An absent field takes the
    /// property's default value; without one, it is damage.
    let decodeBody: (AnyObject, UInt32, RecordReader) throws(StorageError) -> Void
    /// Forgets the loaded value, so the next read loads it from the store.
    let unloadBody: (AnyObject) -> Void
    /// Appends the loaded value to an order-preserving key (uniqueness constraints, indexes) and
    /// returns whether the value is equal to itself (`false` for a NaN, see
    /// ``KeyComponent/equalsItself()``); `nil` when the type has no key encoding.
    let appendKey: ((AnyObject, inout KeyBuilder) -> Bool)?
    /// Loads the attribute's placeholder into an unloaded attribute of a model whose row is gone
    /// (deleted elsewhere): the declared default, `nil`, an empty collection or string, zero, `false`,
    /// or the first case. Returns `false` when the type has none.
    let fillPlaceholderBody: (AnyObject) -> Bool
    /// For a `let` property, how its value is read for the fault initialiser; `nil` otherwise.
    let constant: ConstantAccess?
    /// The value of the record field, with no model to load it into (a history tombstone's
    /// preserved values); `nil` when the record has no such field.
    let valueBody: (UInt32, RecordReader) throws(StorageError) -> Any?

    init(
        isLoaded: @escaping (AnyObject) -> Bool,
        encode: @escaping (AnyObject, UInt32, inout RecordWriter) throws(StorageError) -> Void,
        decode: @escaping (AnyObject, UInt32, RecordReader) throws(StorageError) -> Void,
        unload: @escaping (AnyObject) -> Void, appendKey: ((AnyObject, inout KeyBuilder) -> Bool)?,
        fillPlaceholder: @escaping (AnyObject) -> Bool,
        value: @escaping (UInt32, RecordReader) throws(StorageError) -> Any?, constant: ConstantAccess? = nil
    ) {
        self.constant = constant
        self.valueBody = value
        self.isLoadedBody = isLoaded
        self.encodeBody = encode
        self.decodeBody = decode
        self.unloadBody = unload
        self.appendKey = appendKey
        self.fillPlaceholderBody = fillPlaceholder
    }

    // Called through methods: a closure called straight off an access read from an attribute
    // or a table retained and released its context around every call; a method holds its
    // access as `self` for the call.

    /// Whether the attribute of `model` is loaded.
    func isLoaded(_ model: AnyObject) -> Bool { isLoadedBody(model) }
    /// Writes the loaded value of `model`'s attribute into the record field `tag`.
    func encode(_ model: AnyObject, _ tag: UInt32, _ writer: inout RecordWriter) throws(StorageError) {
        try encodeBody(model, tag, &writer)
    }
    /// Loads `model`'s attribute from the record field `tag`, unless it is loaded.
    func decode(_ model: AnyObject, _ tag: UInt32, _ reader: RecordReader) throws(StorageError) {
        try decodeBody(model, tag, reader)
    }
    /// Forgets the loaded value of `model`'s attribute.
    func unload(_ model: AnyObject) { unloadBody(model) }
    /// Loads the attribute's placeholder into `model` (see `fillPlaceholderBody`); `false` when the
    /// type has none.
    func fillPlaceholder(_ model: AnyObject) -> Bool { fillPlaceholderBody(model) }
    /// The value of the record field `tag` in `reader`, or `nil` when there is none.
    func value(tag: UInt32, in reader: RecordReader) throws(StorageError) -> Any? { try valueBody(tag, reader) }

    /// Access to `storage` of `Model`, or `nil` when `Value` cannot be stored.
    /// Uses direct access (AttributeAccess+Direct.swift) for built-in value types, else
    /// ``general(_:name:defaultValue:)``.
    static func make<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String, defaultValue: Value?
    ) -> AttributeAccess? {
        guard let general = general(storage, name: name, defaultValue: defaultValue) else { return nil }
        return direct(
            Model.self, Value.self, name: name, entity: Schema.entityName(of: Model.self), defaultValue: defaultValue,
            general: general) ?? general
    }

    /// Access through the storage key path and the value's ``AttributeCodec``: works for every
    /// storable type.
    static func general<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String, defaultValue: Value?
    ) -> AttributeAccess? {
        guard let codec = AttributeCodec<Value>.resolve(Value.self) else { return nil }
        let entity = Schema.entityName(of: Model.self)
        return AttributeAccess(
            isLoaded: isLoaded(storage),
            encode: { (model, tag, writer) throws(StorageError) in
                try codec.encode(unsafeDowncast(model, to: Model.self)[keyPath: storage].value, tag: tag, into: &writer)
            },
            decode: { (model, tag, reader) throws(StorageError) in
                let model = unsafeDowncast(model, to: Model.self)
                guard !model[keyPath: storage].isLoaded else { return }
                if let value = try codec.decode(tag: tag, from: reader) {
                    model[keyPath: storage] = _PersistedValue(value)
                } else if let defaultValue {
                    model[keyPath: storage] = _PersistedValue(defaultValue)
                } else {
                    throw AttributeAccess.missingValue(entity: entity, attribute: name)
                }
            },
            unload: unload(storage),
            appendKey: (Value.self as? any KeyComponent.Type).map { keyType in
                appendKeyAccess(storage, as: keyType)
            },
            fillPlaceholder: fillPlaceholder(storage, defaultValue: defaultValue),
            value: { (tag, reader) throws(StorageError) in try codec.decode(tag: tag, from: reader) })
    }
}

extension AttributeAccess {
    // What every access over a property's generated storage does alike, whatever its codec.

    /// Whether `storage` of a model is loaded.
    static func isLoaded<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>
    ) -> (AnyObject) -> Bool {
        { model in unsafeDowncast(model, to: Model.self)[keyPath: storage].isLoaded }
    }

    /// Forgets the value in `storage` of a model.
    static func unload<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>
    ) -> (AnyObject) -> Void {
        { model in unsafeDowncast(model, to: Model.self)[keyPath: storage] = _PersistedValue() }
    }

    /// Loads the placeholder (`defaultValue`, else the type's empty value) into an unloaded
    /// `storage` of a model; `false` when there is none.
    static func fillPlaceholder<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, defaultValue: Value?
    ) -> (AnyObject) -> Bool {
        { model in
            let model = unsafeDowncast(model, to: Model.self)
            guard !model[keyPath: storage].isLoaded else { return true }
            guard let value = defaultValue ?? placeholder(Value.self) else { return false }
            model[keyPath: storage] = _PersistedValue(value)
            return true
        }
    }
}

extension AttributeAccess {
    /// The error for a record without a value for a non-optional attribute that has no default.
    static func missingValue(entity: String, attribute: String) -> StorageError {
        StorageError(
            code: .damagedRecord,
            message: "A stored \(entity) has no value for \(attribute), which has no default value. Give "
                + "\(entity).\(attribute) a default value or make it optional, so records written before it "
                + "existed can be read.")
    }
}

/// Appends `storage`'s value to a key as `Key`, which is `Value` itself: no dynamic cast per
/// call, which a cast to `any KeyComponent` would cost.
private func appendKeyAccess<Model: PersistentModel, Value, Key: KeyComponent>(
    _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, as _: Key.Type
) -> (AnyObject, inout KeyBuilder) -> Bool {
    precondition(Value.self == Key.self, "a key component type is the attribute's own type")
    return { model, key in
        let value = unsafeDowncast(model, to: Model.self)[keyPath: storage].value
        return withUnsafePointer(to: value) { pointer in
            pointer.withMemoryRebound(to: Key.self, capacity: 1) { component in
                component.pointee.appendKey(to: &key)
                return component.pointee.equalsItself()
            }
        }
    }
}

/// The value a never-loaded attribute of a deleted model reads as, when its type has an obvious
/// empty value: `nil`, an empty collection or string, zero, `false`, the first case of an
/// enumeration, the reference date, the all-zero UUID, or, for another `Decodable` type, what it
/// decodes from empty values (``EmptyValueDecoder``).
func placeholder<Value>(_ type: Value.Type) -> Value? {
    func empty<T: ExpressibleByNilLiteral>(_: T.Type) -> T { nil }
    func empty<T: ExpressibleByArrayLiteral>(_: T.Type) -> T { [] }
    func empty<T: ExpressibleByDictionaryLiteral>(_: T.Type) -> T { [:] }
    func firstCase<T: CaseIterable>(_: T.Type) -> T? { T.allCases.first }
    if let optional = type as? any ExpressibleByNilLiteral.Type { return empty(optional) as? Value }
    if let collection = type as? any RangeReplaceableCollection.Type { return collection.init() as? Value }
    if let array = type as? any ExpressibleByArrayLiteral.Type { return empty(array) as? Value }
    if let dictionary = type as? any ExpressibleByDictionaryLiteral.Type { return empty(dictionary) as? Value }
    if let set = type as? any SetAlgebra.Type { return set.init() as? Value }
    if let number = type as? any AdditiveArithmetic.Type { return number.zero as? Value }
    if let cases = type as? any CaseIterable.Type { return firstCase(cases) as? Value }
    if let native = type as? any NativeValue.Type { return native.emptyValue as? Value }
    // A struct of plain fields: what it decodes from empty values.
    if let decodable = type as? any Decodable.Type {
        return (try? EmptyValueDecoder.empty(decodable, at: [])) as? Value
    }
    return nil
}

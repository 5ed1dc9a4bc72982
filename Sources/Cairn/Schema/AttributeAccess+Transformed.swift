import Foundation

extension AttributeAccess {
    /// Access to a `.transformable(by:)` attribute: its value stored as the `Data` `transformer`
    /// makes of it, read back through the reverse transformation. `nil` stands for itself (an
    /// absent field) in an optional attribute. As Core Data does, an
    /// `NSSecureUnarchiveFromDataTransformer` is used the other way round (it archives to store,
    /// unarchives to read).
    ///
    /// A value the transformer cannot turn into `Data` fails the save (`.unsupportedValue`,
    /// nothing written); stored bytes it cannot turn back are a damaged record.
    static func transformed<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String, defaultValue: Value?,
        transformer: ValueTransformer
    ) -> AttributeAccess {
        let entity = Schema.entityName(of: Model.self)
        let reversed = transformer is NSSecureUnarchiveFromDataTransformer
        let transformerName = String(describing: type(of: transformer))
        /// The stored form of `value`; `nil` for an optional's `nil`.
        func data(of value: Value) throws(StorageError) -> Data? {
            // An optional's `nil` is stored as an absent field; a value is handed over unwrapped.
            guard let unwrapped = unwrap(value) else { return nil }
            let transformed =
                reversed ? transformer.reverseTransformedValue(unwrapped) : transformer.transformedValue(unwrapped)
            guard let data = transformed as? Data else {
                throw StorageError(
                    code: .unsupportedValue,
                    message:
                        "\(transformerName) turned \(entity).\(name) into \(transformed.map { "\(type(of: $0))" } ?? "nil"), "
                        + "not Data, so it cannot be stored. Make its transformedValue(_:) return Data for every value "
                        + "the property holds.")
            }
            return data
        }
        /// The value stored as `data`.
        func value(of data: Data) throws(StorageError) -> Value {
            let restored = reversed ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
            if let value = restored as? Value { return value }
            throw StorageError(
                code: .damagedRecord,
                message:
                    "\(transformerName) could not turn the stored \(entity).\(name) (\(data.count) bytes) back into "
                    + "\(Value.self). Check that its reverseTransformedValue(_:) reads what transformedValue(_:) writes, "
                    + "and that the transformer is the one the store was written with.")
        }
        return throughData(storage, name: name, defaultValue: defaultValue, data: data(of:), value: value(of:))
    }
}

extension AttributeAccess {
    /// Access to a `.codable` attribute: its value stored as its JSON encoding (keys sorted, so
    /// equal values are equal bytes), read back through the type's `init(from:)`. `nil` stands
    /// for itself (an absent field) in an optional attribute.
    ///
    /// A value that does not encode fails the save (`.unsupportedValue`, nothing written); stored
    /// bytes the type cannot decode are a damaged record.
    static func codable<Model: PersistentModel, Value: Codable>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String, defaultValue: Value?
    ) -> AttributeAccess {
        let entity = Schema.entityName(of: Model.self)
        func data(of value: Value) throws(StorageError) -> Data? {
            guard unwrap(value) != nil else { return nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            do {
                return try encoder.encode(value)
            } catch {
                throw StorageError(
                    code: .unsupportedValue,
                    message: "\(entity).\(name) is .codable, but its \(Value.self) value did not encode: "
                        + "\(ErrorText.describing(error)). Make its encode(to:) succeed for every value the property holds."
                )
            }
        }
        func value(of data: Data) throws(StorageError) -> Value {
            do {
                return try JSONDecoder().decode(Value.self, from: data)
            } catch {
                throw StorageError(
                    code: .damagedRecord,
                    message: "The stored \(entity).\(name) (\(data.count) bytes) does not decode as \(Value.self): "
                        + "\(ErrorText.describing(error)). A .codable type's init(from:) must read what every earlier "
                        + "version of it wrote (make new fields optional, or decode them with a default).")
            }
        }
        return throughData(storage, name: name, defaultValue: defaultValue, data: data(of:), value: value(of:))
    }

    /// Access to an attribute stored as `Data` that `data` makes of its value (`nil` for an
    /// optional's `nil`, an absent field) and `value` turns back: the transformable and `.codable`
    /// attributes.
    private static func throughData<Model: PersistentModel, Value>(
        _ storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String, defaultValue: Value?,
        data: @escaping (Value) throws(StorageError) -> Data?, value: @escaping (Data) throws(StorageError) -> Value
    ) -> AttributeAccess {
        let entity = Schema.entityName(of: Model.self)
        let isOptional = Value.self is any _OptionalType.Type
        return AttributeAccess(
            isLoaded: isLoaded(storage),
            encode: { (model, tag, writer) throws(StorageError) in
                guard let data = try data(unsafeDowncast(model, to: Model.self)[keyPath: storage].value) else {
                    return
                }
                writer.write(data, tag: tag)
            },
            decode: { (model, tag, reader) throws(StorageError) in
                let model = unsafeDowncast(model, to: Model.self)
                guard !model[keyPath: storage].isLoaded else { return }
                if let stored = try reader.read(Data.self, tag: tag) {
                    model[keyPath: storage] = _PersistedValue(try value(stored))
                } else if let defaultValue {
                    model[keyPath: storage] = _PersistedValue(defaultValue)
                } else if isOptional, let none = placeholder(Value.self) {
                    model[keyPath: storage] = _PersistedValue(none)
                } else {
                    throw AttributeAccess.missingValue(entity: entity, attribute: name)
                }
            },
            unload: unload(storage),
            appendKey: nil,
            fillPlaceholder: fillPlaceholder(storage, defaultValue: defaultValue),
            value: { (tag, reader) throws(StorageError) in
                try reader.read(Data.self, tag: tag).map { (stored) throws(StorageError) in try value(stored) }
            })
    }
}

/// `value` with every level of optional removed; `nil` when one of them is `nil`.
private func unwrap(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first.flatMap { unwrap($0.value) }
}

import Foundation
@_spi(Reflection) import Swift

// Direct access to an attribute's generated storage, for every type in the registry of native
// values (NativeValue.swift).
//
// The general closures in AttributeAccess.make go through the storage key path and the
// attribute's codec, in code generic over the model and the value type, which Cairn cannot
// specialize (the types are the app's): a key-path read, an unspecialized getter and a metadata
// lookup for every value. Here the storage is found once, by its field offset in the class (the
// runtime's own field table, `_forEachField`), and the closures are specialized for the value
// type, so reading `_$name` is a load at a fixed offset and the encoding is inlined.
//
// The bytes are those of the codec (the same RecordWriter/RecordReader overloads a native
// codec calls), so records do not depend on which path wrote them; tests check both paths
// against each other.

extension AttributeAccess {
    /// Direct access to `Model`'s storage for the attribute `name` when its value type is a
    /// built-in one and the storage field is found; else `nil` (use the general access).
    static func direct<Model: PersistentModel, Value>(
        _: Model.Type, _: Value.Type, name: String, entity: String, defaultValue: Value?, general: AttributeAccess
    ) -> AttributeAccess? {
        guard let native = NativeValues.type(of: Value.self)?.native,
            let offset = storageOffset(in: Model.self, field: "_$" + name, type: _PersistedValue<Value>.self)
        else {
            return nil
        }
        return native.directAccess(
            DirectAccessContext(
                valueType: Value.self, offset: offset, name: name, entity: entity, defaultValue: defaultValue,
                general: general))
    }
}

/// The byte offset of the stored property `field` in instances of `model`, when it has
/// exactly the type `type`.
@usableFromInline
func storageOffset(in model: AnyClass, field: String, type: Any.Type) -> Int? {
    var found: Int?
    // `.classType` (raw value 1), spelled by value: the static is a `var`, which strict
    // concurrency refuses to read.
    _ = _forEachField(of: model, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
        if String(cString: name) == field, fieldType == type {
            found = offset
            return false
        }
        return true
    }
    return found
}

/// What the specialized closures need, without the generic `Value`: each native type's
/// ``NativeValue/directAccess(_:)`` calls ``attempt(_:)`` with itself, a call the compiler
/// specializes for that type.
struct DirectAccessContext {
    let valueType: Any.Type
    let offset: Int
    let name: String
    let entity: String
    let defaultValue: Any?
    let general: AttributeAccess

    /// The access for `V` or `V?`, when that is the attribute's type.
    func attempt<V: NativeValue>(_: V.Type) -> AttributeAccess? {
        if valueType == V.self { return plain(V.self) }
        if valueType == V?.self { return optional(V.self) }
        return nil
    }

    private func plain<V: NativeValue>(_: V.Type) -> AttributeAccess {
        let offset = offset
        let defaultValue = defaultValue.map { $0 as! V }
        let (entity, name) = (entity, name)
        return AttributeAccess(
            isLoaded: { model in slot(model, offset, V.self).pointee.isLoaded },
            encode: { model, tag, writer in writer.write(slot(model, offset, V.self).pointee.value, tag: tag) },
            decode: { (model, tag, reader) throws(StorageError) in
                let storage = slot(model, offset, V.self)
                guard !storage.pointee.isLoaded else { return }
                if let value = try reader.read(V.self, tag: tag) {
                    storage.pointee = _PersistedValue(value)
                } else if let defaultValue {
                    storage.pointee = _PersistedValue(defaultValue)
                } else {
                    throw AttributeAccess.missingValue(entity: entity, attribute: name)
                }
            },
            unload: general.unloadBody,
            appendKey: { model, key in
                let value = slot(model, offset, V.self).pointee.value
                value.appendKey(to: &key)
                return value.equalsItself()
            },
            fillPlaceholder: general.fillPlaceholderBody, value: general.valueBody)
    }

    private func optional<V: NativeValue>(_: V.Type) -> AttributeAccess {
        let offset = offset
        return AttributeAccess(
            isLoaded: { model in slot(model, offset, V?.self).pointee.isLoaded },
            encode: { model, tag, writer in writer.write(slot(model, offset, V?.self).pointee.value, tag: tag) },
            decode: { (model, tag, reader) throws(StorageError) in
                let storage = slot(model, offset, V?.self)
                guard !storage.pointee.isLoaded else { return }
                storage.pointee = _PersistedValue(try reader.read(V?.self, tag: tag))
            },
            unload: general.unloadBody,
            appendKey: { model, key in
                let value = slot(model, offset, V?.self).pointee.value
                value.appendKey(to: &key)
                return value.equalsItself()
            },
            fillPlaceholder: general.fillPlaceholderBody, value: general.valueBody)
    }
}

/// The storage of type `_PersistedValue<V>` at `offset` in `model`. The caller keeps `model`
/// alive (it is an argument of the closure that asks) and uses the pointer at once.
@inlinable @inline(__always)
func slot<V>(_ model: AnyObject, _ offset: Int, _: V.Type) -> UnsafeMutablePointer<_PersistedValue<V>> {
    (UnsafeMutableRawPointer(Unmanaged.passUnretained(model).toOpaque()) + offset)
        .assumingMemoryBound(to: _PersistedValue<V>.self)
}

/// A model's generated storage for one property: at its field offset when the runtime's field
/// table has it, else through the key path. Used by relationships, whose value types are the
/// app's models, so only the key path (not the generic code) can be saved.
@usableFromInline
struct StorageLocation<Model: PersistentModel, Value> {
    @usableFromInline let keyPath: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>
    @usableFromInline let offset: Int?

    @inlinable
    init(_ keyPath: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, name: String) {
        self.keyPath = keyPath
        offset = storageOffset(in: Model.self, field: "_$" + name, type: _PersistedValue<Value>.self)
    }

    @inlinable
    func get(_ model: AnyObject) -> _PersistedValue<Value> {
        if let offset { return slot(model, offset, Value.self).pointee }
        return unsafeDowncast(model, to: Model.self)[keyPath: keyPath]
    }

    /// Hands the storage to `body` where it lies: ``get(_:)`` returns a copy, a retain and a
    /// release of the target or the list, where a check of the value needs none.
    @inlinable
    func read<Result>(_ model: AnyObject, _ body: (borrowing _PersistedValue<Value>) -> Result) -> Result {
        if let offset { return body(slot(model, offset, Value.self).pointee) }
        return body(unsafeDowncast(model, to: Model.self)[keyPath: keyPath])
    }

    /// Puts `value` in the storage and hands back what it held, moved out (reading it with
    /// ``get(_:)`` and then setting would be a copy and a destruction: a retain and a release).
    @inlinable
    func exchange(_ model: AnyObject, _ value: __owned _PersistedValue<Value>) -> _PersistedValue<Value> {
        if let offset {
            let storage = slot(model, offset, Value.self)
            let old = storage.move()
            storage.initialize(to: value)
            return old
        }
        let target = unsafeDowncast(model, to: Model.self)
        let old = target[keyPath: keyPath]
        target[keyPath: keyPath] = value
        return old
    }

    @inlinable
    func set(_ model: AnyObject, _ value: _PersistedValue<Value>) {
        if let offset {
            slot(model, offset, Value.self).pointee = value
        } else {
            unsafeDowncast(model, to: Model.self)[keyPath: keyPath] = value
        }
    }
}

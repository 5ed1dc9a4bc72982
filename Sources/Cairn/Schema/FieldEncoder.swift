import CairnStorage
import Foundation

// The writing half of the generated record codec (see `FieldCoding.swift`).

/// Writes a model's record from the storage of its persisted properties; used by the code
/// `@Model` generates, not for direct use.
///
/// ```swift
/// func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(StorageError) {
///     try encoder.encode(&_$title, 0)   // generated
/// }
/// ```
///
/// Each storage is handed over `inout`, though nothing changes it, so that it is read where it
/// lies in the model: a value argument loaded from the class copied it (a retain and a release
/// of every string and list, at every save).
public struct _FieldEncoder {
    /// The record being written.
    var writer: RecordWriter
    /// Each persisted property's field tag in the entity's records, by property index; 0 for a
    /// property the record does not hold (a relationship, an external value).
    let tags: UnsafeBufferPointer<UInt32>
    /// Each persisted attribute's general codec, by property index, for a property whose type
    /// has no concrete function here.
    let accesses: UnsafeBufferPointer<AttributeAccess?>
    /// The model being encoded, for the same.
    unowned(unsafe) let model: AnyObject
    /// Whether a property the record holds was not loaded: the record is then incomplete.
    var isIncomplete = false
    /// Whether the model's class had no generated codec (the protocol's default ran).
    var isGenerated = true

    init(
        tags: UnsafeBufferPointer<UInt32>, accesses: UnsafeBufferPointer<AttributeAccess?>, model: AnyObject,
        writer: RecordWriter
    ) {
        self.writer = writer
        self.tags = tags
        self.accesses = accesses
        self.model = model
    }

    // The value is written where it lies, borrowed: bound to a local (`if let`), a string was
    // retained and released around its write.
    @inline(__always)
    private mutating func plain<V: NativeValue>(_ value: _PersistedValue<V>, _ index: Int) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard value.isLoaded else { return isIncomplete = true }
        writer.write(value.storage.unsafelyUnwrapped, tag: tag)
    }

    @inline(__always)
    private mutating func optional<V: NativeValue>(_ value: _PersistedValue<V?>, _ index: Int) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard value.isLoaded else { return isIncomplete = true }
        writer.write(value.storage.unsafelyUnwrapped, tag: tag)
    }

    /// A to-one relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(&_$author, 3)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: inout _PersistedValue<Target>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-one relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(&_$author, 3)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: inout _PersistedValue<Target?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// A to-many relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(&_$books, 4)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: inout _PersistedValue<[Target]>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-many relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(&_$books, 4)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: inout _PersistedValue<[Target]?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// A `.transformable(by:)` attribute: written by its access, through its transformer,
    /// whatever its type (a `String` too).
    ///
    /// ```swift
    /// try encoder.encode(transformed: &_$tint, 1)   // generated
    /// ```
    public mutating func encode<Value>(
        transformed value: inout _PersistedValue<Value>, _ index: Int
    )
        throws(StorageError)
    {
        try encode(&value, index)
    }

    /// Any other attribute type: written by the attribute's general codec.
    ///
    /// ```swift
    /// try encoder.encode(&_$tags, 2)   // generated, for `var tags: [String]`
    /// ```
    public mutating func encode<Value>(_ value: inout _PersistedValue<Value>, _ index: Int) throws(StorageError) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard value.isLoaded else { return isIncomplete = true }
        guard let access = accesses[index] else { return }
        try access.encode(model, tag, &writer)
    }

    /// A `String` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<String>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `String?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<String?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int64` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int64>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int64?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int64?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Double` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Double>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Double?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Double?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Bool` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Bool>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Bool?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Bool?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Date` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Date>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Date?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Date?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UUID` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UUID>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UUID?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UUID?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Data` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Data>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Data?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Data?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int32` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int32>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int32?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int32?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int16` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int16>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int16?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int16?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int8` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int8>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int8?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Int8?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt64` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt64>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt64?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt64?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt32` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt32>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt32?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt32?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt16` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt16>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt16?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt16?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt8` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt8>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt8?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<UInt8?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Float` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Float>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Float?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Float?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Decimal` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Decimal>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Decimal?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<Decimal?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `URL` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<URL>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `URL?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(&_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: inout _PersistedValue<URL?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
}

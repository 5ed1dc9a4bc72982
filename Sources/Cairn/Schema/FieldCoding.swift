import CairnStorage
import Foundation

// The record codec `@Model` generates: `_$encodeFields(into:)` and `_$decodeFields(from:)` name
// every persisted property's storage in declaration order, and overload resolution in the app's
// module picks, for each property's type, one of the functions below. For the common value types
// that is a concrete function that reads or writes the storage in place; for a relationship it
// does nothing; for any other type it hands the property to the attribute's general codec.
//
// A record used to be written and read one attribute at a time through closures kept per
// attribute (`AttributeAccess`): two closure calls and two retains and releases per attribute,
// atomic operations that cost more than the encoding itself. Docs/Design.md, "Record codec".

/// The error the generated record codec throws: ``StorageError``, named in `Cairn` so that the
/// generated code can spell it.
///
/// ```swift
/// func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError)
/// ```
public typealias _FieldCodingError = StorageError

/// Writes a model's record from the storage of its persisted properties; used by the code
/// `@Model` generates, not for direct use.
///
/// ```swift
/// func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(StorageError) {
///     try encoder.encode(_$title, 0)   // generated
/// }
/// ```
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
        capacity: Int
    ) {
        writer = RecordWriter(capacity: capacity)
        self.tags = tags
        self.accesses = accesses
        self.model = model
    }

    /// The record written, sealed by its checksum; the encoder is left empty. The bytes are
    /// swapped out, not copied: a second reference to them would make appending the checksum
    /// copy the record.
    mutating func takeRecord() -> EncodedRecord {
        var written = RecordWriter.empty
        swap(&written, &writer)
        return written.encoded()
    }

    @inline(__always)
    private mutating func plain<V: FieldCodable>(_ value: _PersistedValue<V>, _ index: Int) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard let stored = value.loadedValue else { return isIncomplete = true }
        writer.write(stored, tag: tag)
    }

    @inline(__always)
    private mutating func optional<V: FieldCodable>(_ value: _PersistedValue<V?>, _ index: Int) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard let stored = value.loadedValue else { return isIncomplete = true }
        writer.write(stored, tag: tag)
    }

    /// A to-one relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(_$author, 3)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: _PersistedValue<Target>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-one relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(_$author, 3)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: _PersistedValue<Target?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// A to-many relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(_$books, 4)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: _PersistedValue<[Target]>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-many relationship: not in the record.
    ///
    /// ```swift
    /// try encoder.encode(_$books, 4)   // generated; writes nothing
    /// ```
    public mutating func encode<Target: PersistentModel>(
        _ value: _PersistedValue<[Target]?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// Any other attribute type: written by the attribute's general codec.
    ///
    /// ```swift
    /// try encoder.encode(_$tags, 2)   // generated, for `var tags: [String]`
    /// ```
    public mutating func encode<Value>(_ value: _PersistedValue<Value>, _ index: Int) throws(StorageError) {
        let tag = tags[index]
        guard tag != 0 else { return }
        guard value.isLoaded else { return isIncomplete = true }
        guard let access = accesses[index] else { return }
        try access.encode(model, tag, &writer)
    }

    /// A `String` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<String>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `String?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<String?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int64` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int64>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int64?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int64?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Double` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Double>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Double?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Double?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Bool` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Bool>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Bool?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Bool?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Date` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Date>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Date?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Date?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UUID` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UUID>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UUID?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UUID?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Data` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Data>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Data?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Data?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int32` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int32>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int32?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int32?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int16` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int16>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int16?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int16?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Int8` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int8>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Int8?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Int8?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt64` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt64>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt64?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt64?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt32` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt32>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt32?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt32?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt16` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt16>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt16?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt16?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `UInt8` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt8>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `UInt8?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<UInt8?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
    /// A `Float` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Float>, _ index: Int) throws(StorageError) {
        plain(value, index)
    }
    /// A `Float?` attribute: its field written from the storage.
    ///
    /// ```swift
    /// try encoder.encode(_$name, 1)   // generated
    /// ```
    public mutating func encode(_ value: _PersistedValue<Float?>, _ index: Int) throws(StorageError) {
        optional(value, index)
    }
}

/// Reads a model's record into the storage of its persisted properties; used by the code
/// `@Model` generates, not for direct use.
///
/// A property that is already loaded keeps its value. A field the record does not have, and a
/// property whose type has no concrete function here, are left to the attribute's general codec
/// once the generated code returns (``deferred``): it knows the default value, and it writes the
/// storage itself, which it must not do while the generated code has the storage `inout`.
///
/// ```swift
/// func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(StorageError) {
///     try decoder.decode(&_$title, 0)   // generated
/// }
/// ```
public struct _FieldDecoder {
    /// The record being read.
    let reader: RecordReader
    /// Each persisted property's field tag, by property index; 0 for none (see ``_FieldEncoder``).
    let tags: UnsafeBufferPointer<UInt32>
    /// The tags to decode; all when `nil`.
    let only: Set<UInt32>?
    /// The property indexes left to the general codec.
    var deferred: [Int] = []
    /// Whether the model's class had no generated codec (the protocol's default ran).
    var isGenerated = true

    init(reader: RecordReader, tags: UnsafeBufferPointer<UInt32>, only: Set<UInt32>?) {
        self.reader = reader
        self.tags = tags
        self.only = only
    }

    /// The tag of the property at `index` when it is to be decoded now, else 0.
    @inline(__always)
    private func wanted(_ index: Int) -> UInt32 {
        let tag = tags[index]
        guard tag != 0, only?.contains(tag) ?? true else { return 0 }
        return tag
    }

    @inline(__always)
    private mutating func plain<V: FieldCodable>(_ slot: inout _PersistedValue<V>, _ index: Int) throws(StorageError) {
        let tag = wanted(index)
        guard tag != 0, !slot.isLoaded else { return }
        guard let value = try reader.read(V.self, tag: tag) else { return deferred.append(index) }
        slot = _PersistedValue(value)
    }

    @inline(__always)
    private mutating func optional<V: FieldCodable>(
        _ slot: inout _PersistedValue<V?>, _ index: Int
    )
        throws(StorageError)
    {
        let tag = wanted(index)
        guard tag != 0, !slot.isLoaded else { return }
        slot = _PersistedValue(try reader.read(V?.self, tag: tag))
    }

    /// A to-one relationship: not in the record.
    ///
    /// ```swift
    /// try decoder.decode(&_$author, 3)   // generated; reads nothing
    /// ```
    public mutating func decode<Target: PersistentModel>(
        _ slot: inout _PersistedValue<Target>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-one relationship: not in the record.
    ///
    /// ```swift
    /// try decoder.decode(&_$author, 3)   // generated; reads nothing
    /// ```
    public mutating func decode<Target: PersistentModel>(
        _ slot: inout _PersistedValue<Target?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// A to-many relationship: not in the record.
    ///
    /// ```swift
    /// try decoder.decode(&_$books, 4)   // generated; reads nothing
    /// ```
    public mutating func decode<Target: PersistentModel>(
        _ slot: inout _PersistedValue<[Target]>, _ index: Int
    )
        throws(StorageError)
    {}

    /// An optional to-many relationship: not in the record.
    ///
    /// ```swift
    /// try decoder.decode(&_$books, 4)   // generated; reads nothing
    /// ```
    public mutating func decode<Target: PersistentModel>(
        _ slot: inout _PersistedValue<[Target]?>, _ index: Int
    )
        throws(StorageError)
    {}

    /// Any other attribute type: left to the attribute's general codec (``deferred``).
    ///
    /// ```swift
    /// try decoder.decode(&_$tags, 2)   // generated, for `var tags: [String]`
    /// ```
    public mutating func decode<Value>(_ slot: inout _PersistedValue<Value>, _ index: Int) throws(StorageError) {
        guard wanted(index) != 0, !slot.isLoaded else { return }
        deferred.append(index)
    }

    /// A `String` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<String>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `String?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<String?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Int` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Int?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Int64` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int64>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Int64?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int64?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Double` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Double>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Double?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Double?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Bool` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Bool>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Bool?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Bool?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Date` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Date>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Date?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Date?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UUID` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UUID>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UUID?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UUID?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Data` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Data>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Data?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Data?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Int32` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int32>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Int32?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int32?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Int16` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int16>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Int16?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int16?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Int8` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int8>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Int8?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Int8?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UInt` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UInt?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UInt64` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt64>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UInt64?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt64?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UInt32` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt32>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UInt32?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt32?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UInt16` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt16>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UInt16?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt16?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `UInt8` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt8>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `UInt8?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<UInt8?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `Float` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Float>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Float?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Float?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
}

import CairnStorage
import Foundation

// The reading half of the generated record codec (see `FieldCoding.swift`).

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

    init(reader: __owned RecordReader, tags: UnsafeBufferPointer<UInt32>, only: Set<UInt32>?) {
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
    private mutating func plain<V: NativeValue>(_ slot: inout _PersistedValue<V>, _ index: Int) throws(StorageError) {
        let tag = wanted(index)
        guard tag != 0, !slot.isLoaded else { return }
        guard let value = try reader.read(V.self, tag: tag) else { return deferred.append(index) }
        slot = _PersistedValue(value)
    }

    @inline(__always)
    private mutating func optional<V: NativeValue>(
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

    /// A `.transformable(by:)` attribute: left to its access, which reads it through its
    /// transformer, whatever its type (a `String` too).
    ///
    /// ```swift
    /// try decoder.decode(transformed: &_$tint, 1)   // generated
    /// ```
    public mutating func decode<Value>(
        transformed slot: inout _PersistedValue<Value>, _ index: Int
    )
        throws(StorageError)
    {
        try decode(&slot, index)
    }

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
    /// A `Decimal` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Decimal>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `Decimal?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<Decimal?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
    /// A `URL` attribute: its field read into the storage (an absent one left to the general codec).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<URL>, _ index: Int) throws(StorageError) {
        try plain(&slot, index)
    }
    /// A `URL?` attribute: its field read into the storage (an absent one is `nil`).
    ///
    /// ```swift
    /// try decoder.decode(&_$name, 1)   // generated
    /// ```
    public mutating func decode(_ slot: inout _PersistedValue<URL?>, _ index: Int) throws(StorageError) {
        try optional(&slot, index)
    }
}

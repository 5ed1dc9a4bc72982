/// How the values of one attribute type are stored in a record field, decided once per type.
///
/// Generated model code knows only that a property's type is `Codable` (or `RawRepresentable`
/// with a `Codable` raw value), so it cannot pick one of the statically dispatched overloads of
/// ``RecordWriter`` and ``RecordReader``. ``resolve(_:)`` makes that choice once, when the schema
/// is built, in this order:
///
/// 1. `Optional<Wrapped>`: `nil` is an absent field; any other value is stored as `Wrapped`
///    would be (see "Nested optionals" below).
/// 2. ``FieldCodable``: the native field encoding.
/// 3. `RawRepresentable` whose `RawValue` is ``FieldCodable``: stored as its raw value; a stored
///    raw value that names no case reads as `StorageError` `.unsupportedValue`.
/// 4. Any other `Codable`: the binary coder (``BinaryEncoder`` / ``BinaryDecoder``),
///    length-delimited.
///
/// The codec keeps the chosen path, so ``encode(_:tag:into:)`` and ``decode(tag:from:)`` do no
/// type test, dynamic cast or reflection per value. They call the same ``RecordWriter`` /
/// ``RecordReader`` overloads that a statically typed caller would, so the fields are
/// byte-identical to `writer.write(value, tag: tag)` for the same type.
///
/// ## Absent fields and optionals
///
/// ``decode(tag:from:)`` returns `nil` only for "no value": the record has no such field and
/// `Value` is not optional. For an optional `Value` an absent field *is* the stored `nil`, so it
/// decodes as `.some(nil)`. A caller loading a property therefore reads the result as:
///
/// | `Value`      | field present    | field absent                                        |
/// |--------------|------------------|-----------------------------------------------------|
/// | `String`     | `.some("Ada")`   | `nil`: no value; use the property's default or fail |
/// | `String?`    | `.some("Ada")`   | `.some(nil)`: the property is `nil`                 |
///
/// A property added to a model after records were saved is absent from those records: a
/// non-optional one takes its default (or the load fails), an optional one is `nil`. Since
/// `nil` is stored as no field, an optional property whose *default* is non-`nil` still reads as
/// `nil` from an old record; a record cannot tell "never stored" from "stored `nil`".
///
/// ## Nested optionals
///
/// Only the outermost `Optional` maps to the field's absence. An inner one (the `String?` of a
/// `String??`) has no field form of its own, so it is stored with the binary coder, exactly as
/// ``RecordWriter``'s `Optional` overloads store it: `.none` is no field, `.some(nil)` is a
/// binary-coded `nil`, and `.some("x")` a binary-coded string, so both levels of `nil` survive a
/// round trip. Deeper nesting follows `Codable`, whose `Optional` encodes every inner `nil` alike
/// (`Int???.some(.some(nil))` reads back as `.some(nil)`). A nested optional of a type that is
/// not `Codable` cannot be stored.
///
/// ```swift
/// // Resolved once, when the schema is built:
/// guard let codec = AttributeCodec.resolve(Status.self) else { throw unsupportedAttribute }
///
/// // Then, for every object saved or loaded:
/// var writer = RecordWriter()
/// try codec.encode(book.status, tag: 3, into: &writer)
/// let reader = try RecordReader(writer.finished())
/// let status = try codec.decode(tag: 3, from: reader) ?? .draft   // nil: absent, use the default
/// ```
package struct AttributeCodec<Value>: Sendable {
    // The chosen path is an existential strategy rather than a pair of `@Sendable` closures: a
    // closure may only use `Value`'s conformances where the compiler knows `Value:
    // SendableMetatype` (Swift 6.2's SendableMetatypes check), which a conformance found at run
    // time never gives. Calling it is one witness call; measurements are in
    // AttributeCodec+Strategies.swift.
    private let strategy: any AttributeStrategy<Value>

    /// Creates a codec from a strategy.
    ///
    /// ```swift
    /// let codec = AttributeCodec<[Int]>(strategy: binaryStrategy)
    /// ```
    ///
    /// - Parameters:
    ///   - strategy: Writes and reads the fields.
    init(strategy: some AttributeStrategy<Value>) {
        self.strategy = strategy
    }

    /// Decides how `Value` is stored, or returns `nil` when it cannot be stored.
    ///
    /// Call it once per property type and keep the result (it is `Sendable`); the decision costs
    /// a few runtime conformance checks, which encoding a value never repeats. The order of the
    /// checks is in the type's documentation: `Optional`, ``FieldCodable``, `RawRepresentable`
    /// with a ``FieldCodable`` raw value, any other `Codable`.
    ///
    /// ```swift
    /// let title = AttributeCodec.resolve(String.self)        // native
    /// let status = AttributeCodec.resolve(Status?.self)      // optional raw value
    /// let tags = AttributeCodec.resolve([String].self)       // binary coder
    /// assert(AttributeCodec.resolve(NSObject.self) == nil)   // neither Codable nor RawRepresentable
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's type.
    /// - Returns: The codec, or `nil` when `Value` is neither `Codable` nor `RawRepresentable`
    ///   with a ``FieldCodable`` raw value (nor an optional of such a type).
    package static func resolve(_ type: Value.Type) -> AttributeCodec<Value>? {
        if isOptional { return resolveOptional() }
        return resolveFieldCodable() ?? resolveRawValue() ?? resolveBinary()
    }

    /// Writes a value's field, or nothing for `nil` when `Value` is optional.
    ///
    /// The bytes are those of ``RecordWriter``'s `write(_:tag:)` overload for `Value`. Tags must
    /// ascend across all writes into one ``RecordWriter``, as ``RecordWriter/write(_:tag:)-(Value)``
    /// requires.
    ///
    /// ```swift
    /// var writer = RecordWriter()
    /// try titleCodec.encode("Dune", tag: 1, into: &writer)
    /// try subtitleCodec.encode(nil, tag: 2, into: &writer)   // String?: no field
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - tag: The field's stable number.
    ///   - writer: The record being built.
    /// - Throws: `StorageError` with code `.unsupportedValue` when a value stored with the
    ///   binary coder cannot be encoded (its `encode(to:)` throws, or it nests too deeply); the
    ///   message names the type and the cause, and nothing is written.
    package func encode(_ value: Value, tag: UInt32, into writer: inout RecordWriter) throws(StorageError) {
        try strategy.encode(value, tag: tag, into: &writer)
    }

    /// Reads a field's value; `nil` means "no value", which only a non-optional `Value` can give.
    ///
    /// - Field present: `.some(value)`.
    /// - Field absent, `Value` not optional: `nil`. The record does not hold this property (for
    ///   example it was added to the model later); use the property's default, or fail.
    /// - Field absent, `Value` optional: `.some(nil)`, because an absent field is how a record
    ///   stores `nil`. The caller can rely on a non-`nil` result for every optional property.
    ///
    /// ```swift
    /// let reader = try RecordReader(record)
    /// guard let title = try titleCodec.decode(tag: 1, from: reader) else {   // String
    ///     throw missingValue("title")
    /// }
    /// let subtitle = try subtitleCodec.decode(tag: 2, from: reader)!          // String?: never nil
    /// ```
    ///
    /// - Parameters:
    ///   - tag: The field's stable number.
    ///   - reader: The record.
    /// - Returns: The value; `nil` only when the field is absent and `Value` is not optional.
    /// - Throws: `StorageError` as the matching ``RecordReader`` overload does: `.unsupportedValue`
    ///   when the stored field does not fit `Value` (another wire type, an integer out of range,
    ///   a raw value that names no case, a changed `Codable` shape), `.damagedRecord` when the
    ///   payload is no valid encoding.
    package func decode(tag: UInt32, from reader: RecordReader) throws(StorageError) -> Value? {
        try strategy.decode(tag: tag, from: reader)
    }

    /// Recovers a codec that resolution built for a type only known to equal `Value` at run time.
    ///
    /// The cast runs once per resolution, never per value. It cannot fail: the
    /// codec was built for the very type `Value` was checked against.
    ///
    /// ```swift
    /// let codec: AttributeCodec<Int>? = AttributeCodec<Int>.unerase(AttributeCodec<Int>.native())
    /// ```
    ///
    /// - Parameters:
    ///   - erased: An `AttributeCodec<Value>` typed as `Any`.
    /// - Returns: The codec.
    static func unerase(_ erased: Any) -> AttributeCodec? {
        guard let codec = erased as? AttributeCodec else {
            assertionFailure("resolution built \(type(of: erased)) for \(Value.self)")
            return nil
        }
        return codec
    }
}

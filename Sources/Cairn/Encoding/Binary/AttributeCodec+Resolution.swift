// How `AttributeCodec.resolve(_:)` learns, without reflection, which constraints an unconstrained
// `Value` satisfies. All of it runs once per resolved type; a built codec only makes witness
// calls.
//
// - `Optional` conforms to `OptionalAttribute`, so `Value.self is any OptionalAttribute.Type`
//   says whether `Value` is an optional, and the conformance builds the codec with `Wrapped`
//   known to the compiler.
// - `Probe<Value>` conforms to one protocol per strategy, each conditionally on that strategy's
//   constraints. Casting the probe's metatype asks the runtime whether `Value` meets them
//   (including `RawValue: FieldCodable`, which no cast of `Value` itself can express), and the
//   conformance builds the codec where the compiler knows them.

extension AttributeCodec {
    /// Whether `Value` is an `Optional`.
    ///
    /// ```swift
    /// assert(AttributeCodec<Int?>.isOptional && !AttributeCodec<Int>.isOptional)
    /// ```
    static var isOptional: Bool { Value.self is any OptionalAttribute.Type }

    /// Step 1: an `Optional`, whose wrapped type is resolved in turn.
    ///
    /// ```swift
    /// let codec = AttributeCodec<Status?>.resolveOptional()
    /// ```
    ///
    /// - Returns: The optional codec, or `nil` when `Value` is no `Optional` or its wrapped type
    ///   cannot be stored.
    static func resolveOptional() -> AttributeCodec? {
        guard let optional = Value.self as? any OptionalAttribute.Type else { return nil }
        return optional.cairnAttributeCodec().flatMap(unerase)
    }

    /// Step 2: a ``FieldCodable`` type.
    ///
    /// ```swift
    /// let codec = AttributeCodec<Int>.resolveFieldCodable()
    /// ```
    ///
    /// - Returns: The native codec, or `nil` when `Value` is not ``FieldCodable``.
    static func resolveFieldCodable() -> AttributeCodec? {
        guard let probe = Probe<Value>.self as? any NativeProbe.Type else { return nil }
        return unerase(probe.nativeCodec())
    }

    /// Step 3: a `RawRepresentable` type whose raw value is ``FieldCodable``.
    ///
    /// ```swift
    /// let codec = AttributeCodec<Status>.resolveRawValue()
    /// ```
    ///
    /// - Returns: The raw-value codec, or `nil` when `Value` does not qualify.
    static func resolveRawValue() -> AttributeCodec? {
        guard let probe = Probe<Value>.self as? any RawValueProbe.Type else { return nil }
        return unerase(probe.rawValueCodec())
    }

    /// Step 4, and the storage of a nested optional: any `Codable` type, with the binary coder.
    ///
    /// ```swift
    /// let codec = AttributeCodec<[String]>.resolveBinary()
    /// ```
    ///
    /// - Returns: The binary codec, or `nil` when `Value` is not `Codable`.
    static func resolveBinary() -> AttributeCodec? {
        guard let probe = Probe<Value>.self as? any BinaryProbe.Type else { return nil }
        return unerase(probe.binaryCodec())
    }
}

// MARK: - Optional

/// Lets resolution recognise an `Optional` and reach its `Wrapped` type.
private protocol OptionalAttribute {
    /// Builds this optional type's codec (an `AttributeCodec<Self>` as `Any`), or `nil` when the
    /// wrapped type cannot be stored.
    static func cairnAttributeCodec() -> Any?
}

extension Optional: OptionalAttribute {
    // `nil` is an absent field; any other value is stored as `Wrapped` is, except that a nested
    // optional (`Wrapped` is itself an `Optional`) goes through the binary coder, as
    // RecordWriter's `Optional` overloads store it, so `.some(nil)` stays distinct from `nil`.
    fileprivate static func cairnAttributeCodec() -> Any? {
        if AttributeCodec<Wrapped>.isOptional {
            return AttributeCodec<Wrapped>.resolveBinary().map { AttributeCodec<Wrapped?>.optional(wrapping: $0) }
        }
        if let native = Probe<Wrapped>.self as? any NativeProbe.Type {
            return native.optionalNativeCodec()  // one witness call per value instead of two
        }
        return AttributeCodec<Wrapped>.resolve(Wrapped.self).map { AttributeCodec<Wrapped?>.optional(wrapping: $0) }
    }
}

// MARK: - Conformance probes

/// Conforms to a probe protocol exactly when `Value` meets that strategy's constraints.
private enum Probe<Value> {}

private protocol NativeProbe {
    static func nativeCodec() -> Any
    static func optionalNativeCodec() -> Any
}

private protocol RawValueProbe {
    static func rawValueCodec() -> Any
}

private protocol BinaryProbe {
    static func binaryCodec() -> Any
}

extension Probe: NativeProbe where Value: FieldCodable {
    fileprivate static func nativeCodec() -> Any { AttributeCodec<Value>.native() }
    fileprivate static func optionalNativeCodec() -> Any { AttributeCodec<Value?>.optional(of: Value.self) }
}

extension Probe: RawValueProbe where Value: RawRepresentable, Value.RawValue: FieldCodable {
    fileprivate static func rawValueCodec() -> Any { AttributeCodec<Value>.rawValue() }
}

extension Probe: BinaryProbe where Value: Codable {
    fileprivate static func binaryCodec() -> Any { AttributeCodec<Value>.binary() }
}

import Foundation

// The overloads a generated `@Model` body calls to read each stored property, mirroring
// RecordWriter+Values. Every one returns nil for an absent tag; the caller decides whether that
// means nil, the property's default, or a missing required value.

extension RecordReader {
    /// Reads a native value, or `nil` when the field is absent.
    ///
    /// ```swift
    /// let name = try reader.read(String.self, tag: 1) ?? ""
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil` when the record has no such field.
    /// - Throws: `StorageError` as ``FieldCodable/init(fieldPayload:)`` does.
    package func read<Value: FieldCodable>(_ type: Value.Type, tag: UInt32) throws(StorageError) -> Value? {
        guard let payload = payload(tag: tag) else { return nil }
        return try Value(fieldPayload: payload)
    }

    /// Reads an optional native value: `nil` when the field is absent.
    ///
    /// ```swift
    /// let nickname: String? = try reader.read(String?.self, tag: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's optional type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil`.
    /// - Throws: `StorageError` as ``FieldCodable/init(fieldPayload:)`` does.
    package func read<Value: FieldCodable>(_ type: Value?.Type, tag: UInt32) throws(StorageError) -> Value? {
        try read(Value.self, tag: tag)
    }

    /// Reads a `RawRepresentable` value stored as its raw value.
    ///
    /// ```swift
    /// let status = try reader.read(Status.self, tag: 3) ?? .active
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil` when the field is absent.
    /// - Throws: `StorageError` with code `.unsupportedValue` when the stored raw value names no
    ///   case, or as the raw value's decoding does.
    package func read<Value: RawRepresentable>(_ type: Value.Type, tag: UInt32) throws(StorageError) -> Value?
    where Value.RawValue: FieldCodable {
        guard let raw = try read(Value.RawValue.self, tag: tag) else { return nil }
        return try RecordReader.convert(raw, to: Value.self)
    }

    /// Reads an optional `RawRepresentable` value.
    ///
    /// ```swift
    /// let status = try reader.read(Status?.self, tag: 3)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's optional type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil`.
    /// - Throws: `StorageError` as ``read(_:tag:)-(Value.Type,_)`` does.
    package func read<Value: RawRepresentable>(_ type: Value?.Type, tag: UInt32) throws(StorageError) -> Value?
    where Value.RawValue: FieldCodable {
        try read(Value.self, tag: tag)
    }

    /// Reads a `Codable` raw-valued enum stored as its raw value.
    ///
    /// ```swift
    /// let status = try reader.read(Status.self, tag: 3)   // Status: String, Codable
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil` when the field is absent.
    /// - Throws: `StorageError` as the `RawRepresentable` overload does.
    package func read<Value: RawRepresentable & Decodable>(
        _ type: Value.Type,
        tag: UInt32
    ) throws(StorageError) -> Value? where Value.RawValue: FieldCodable {
        guard let raw = try read(Value.RawValue.self, tag: tag) else { return nil }
        return try RecordReader.convert(raw, to: Value.self)
    }

    /// Reads an optional `Codable` raw-valued enum.
    ///
    /// ```swift
    /// let status = try reader.read(Status?.self, tag: 3)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's optional type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil`.
    /// - Throws: `StorageError` as the `RawRepresentable` overload does.
    package func read<Value: RawRepresentable & Decodable>(
        _ type: Value?.Type,
        tag: UInt32
    ) throws(StorageError) -> Value? where Value.RawValue: FieldCodable {
        guard let raw = try read(Value.RawValue.self, tag: tag) else { return nil }
        return try RecordReader.convert(raw, to: Value.self)
    }

    /// Reads any other `Decodable` value written by the binary coder.
    ///
    /// ```swift
    /// let address = try reader.read(Address.self, tag: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil` when the field is absent.
    /// - Throws: `StorageError` with code `.damagedRecord` when the bytes are no valid binary
    ///   encoding, or `.unsupportedValue` when they are valid but do not match `Value` (its
    ///   `Codable` shape changed); the `DecodingError` is the error's `cause`.
    package func read<Value: Decodable>(_ type: Value.Type, tag: UInt32) throws(StorageError) -> Value? {
        guard let payload = payload(tag: tag) else { return nil }
        guard case .bytes(let raw) = payload else { throw payload.mismatch(Value.self) }
        return try BinaryDecoder.decodeFromStorage(Value.self, from: raw)
    }

    /// Reads an optional `Decodable` value written by the binary coder.
    ///
    /// ```swift
    /// let address = try reader.read(Address?.self, tag: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The property's optional type.
    ///   - tag: The field's stable number.
    /// - Returns: The value, or `nil`.
    /// - Throws: `StorageError` as ``read(_:tag:)-(Decodable.Type,_)`` does.
    package func read<Value: Decodable>(_ type: Value?.Type, tag: UInt32) throws(StorageError) -> Value? {
        try read(Value.self, tag: tag)
    }

    private static func convert<Value: RawRepresentable>(
        _ raw: Value.RawValue, to type: Value.Type
    ) throws(StorageError)
        -> Value
    {
        guard let value = Value(rawValue: raw) else {
            throw StorageError.unsupported(
                "The stored raw value \(raw) is not a case of \(Value.self).",
                remedy: "Add the case back, or migrate the stored values before removing a case."
            )
        }
        return value
    }
}

import Foundation

// The overloads a generated `@Model` body calls for each stored property. Swift picks the most
// specific one: FieldCodable (native) over RawRepresentable (raw value) over Codable (binary
// coder), and the `Optional` forms skip `nil`, because an absent tag is how a record says nil.

extension RecordWriter {
    /// Writes an optional native value, or nothing when it is `nil`.
    ///
    /// ```swift
    /// writer.write(person.nickname, tag: 2)   // String?
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store, or `nil` to leave the field absent.
    ///   - tag: The field's stable number.
    package mutating func write<Value: FieldCodable>(_ value: Value?, tag: UInt32) {
        if let value { write(value, tag: tag) }
    }

    /// Writes an enum (or other `RawRepresentable`) as its raw value.
    ///
    /// ```swift
    /// enum Status: String { case active, archived }
    /// writer.write(Status.active, tag: 3)   // stored like "active"
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - tag: The field's stable number.
    package mutating func write<Value: RawRepresentable>(_ value: Value, tag: UInt32)
    where Value.RawValue: FieldCodable {
        write(value.rawValue, tag: tag)
    }

    /// Writes an optional `RawRepresentable` value as its raw value, or nothing when it is `nil`.
    ///
    /// ```swift
    /// writer.write(Status?.none, tag: 3)   // no field
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store, or `nil`.
    ///   - tag: The field's stable number.
    package mutating func write<Value: RawRepresentable>(_ value: Value?, tag: UInt32)
    where Value.RawValue: FieldCodable {
        if let value { write(value.rawValue, tag: tag) }
    }

    /// Writes a `Codable` enum that has a raw value as its raw value, not through the coder.
    ///
    /// ```swift
    /// enum Status: String, Codable { case active, archived }
    /// writer.write(Status.archived, tag: 3)   // stored like "archived"
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - tag: The field's stable number.
    package mutating func write<Value: RawRepresentable & Encodable>(_ value: Value, tag: UInt32)
    where Value.RawValue: FieldCodable {
        write(value.rawValue, tag: tag)
    }

    /// Writes an optional `Codable` raw-valued enum as its raw value, or nothing when `nil`.
    ///
    /// ```swift
    /// writer.write(Optional(Status.archived), tag: 3)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store, or `nil`.
    ///   - tag: The field's stable number.
    package mutating func write<Value: RawRepresentable & Encodable>(_ value: Value?, tag: UInt32)
    where Value.RawValue: FieldCodable {
        if let value { write(value.rawValue, tag: tag) }
    }

    /// Writes any other `Encodable` value with the compact binary coder, length-delimited.
    ///
    /// ```swift
    /// struct Address: Codable { var street: String; var zip: String? }
    /// try writer.write(Address(street: "Main St", zip: nil), tag: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - tag: The field's stable number.
    /// - Throws: `StorageError` with code `.unsupportedValue` when the value cannot be encoded
    ///   (its `encode(to:)` throws, encodes nothing, or nests too deeply); nothing is written then.
    package mutating func write<Value: Encodable>(_ value: Value, tag: UInt32) throws(StorageError) {
        let encoded = try BinaryEncoder.encodeForStorage(value)
        write(payload: .bytes(encoded[...]), tag: tag)
    }

    /// Writes an optional `Encodable` value with the binary coder, or nothing when it is `nil`.
    ///
    /// ```swift
    /// try writer.write(person.address, tag: 4)   // Address?
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store, or `nil`.
    ///   - tag: The field's stable number.
    /// - Throws: `StorageError` as ``write(_:tag:)-(Encodable)`` does.
    package mutating func write<Value: Encodable>(_ value: Value?, tag: UInt32) throws(StorageError) {
        if let value { try write(value, tag: tag) }
    }
}

import Foundation

/// Encodes `Encodable` values into Cairn's compact, self-describing binary format.
///
/// Records store `Codable` attributes (structs, enums with associated values, arrays, sets,
/// dictionaries) with this coder instead of JSON: a one-byte tag per value, varint integers,
/// raw IEEE floats, length-prefixed strings and containers. Keyed containers are written with
/// their keys in ascending UTF-8 order, so equal values of types with keyed encodings (structs,
/// `String`- and `Int`-keyed dictionaries) always produce equal bytes. `Set` and dictionaries
/// with other key types encode in their iteration order, which varies between processes.
/// `Data` and `UUID` are stored as raw bytes. The format is in `Docs/Design.md`,
/// "Binary Codable".
///
/// ```swift
/// struct Point: Codable { var x: Int; var y: Int }
/// let bytes = try BinaryEncoder().encode(Point(x: 1, y: -1))
/// let point = try BinaryDecoder().decode(Point.self, from: bytes)
/// ```
package struct BinaryEncoder: Sendable {
    /// Creates an encoder.
    ///
    /// ```swift
    /// let encoder = BinaryEncoder()
    /// ```
    package init() {}

    /// Encodes a value.
    ///
    /// ```swift
    /// let bytes = try BinaryEncoder().encode(["a": [1, 2], "b": []])
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    /// - Returns: A version byte followed by one tagged value.
    /// - Throws: `EncodingError.invalidValue` when the value nests more than 256 levels deep,
    ///   or whatever the value's `encode(to:)` throws.
    package func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        if Value.self == [Float].self, let floats = value as? [Float] { return BinaryFloatArray.encode(floats) }
        let root = BinaryEncodingSlot()
        try BinaryEncodingSlot.encode(value, into: root, codingPath: [])
        var bytes: [UInt8] = [BinaryFormat.version]
        bytes.reserveCapacity(64)
        root.serialize(into: &bytes)
        return bytes
    }

    static func encodeForStorage<Value: Encodable>(_ value: Value) throws(StorageError) -> [UInt8] {
        do {
            return try BinaryEncoder().encode(value)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(
                code: .unsupportedValue,
                message: "A value of type \(Value.self) could not be encoded for storage (\(ErrorText.describing(error))). "
                    + "Fix its encode(to:) or store it as a supported type.",
                cause: ErrorText.cause(error)
            )
        }
    }
}

import Foundation

/// Decodes `Decodable` values from the bytes ``BinaryEncoder`` produces.
///
/// Decoding checks every tag and length against the bytes that remain before using it, rejects
/// keyed containers whose keys are duplicated or out of order and containers whose element
/// count does not match their bytes, and never allocates more than its input holds. Invalid
/// input is a `DecodingError`, never a crash; nesting deeper than 256 levels is refused.
///
/// ```swift
/// let bytes = try BinaryEncoder().encode([1, 2, 3])
/// let numbers = try BinaryDecoder().decode([Int].self, from: bytes)
/// ```
package struct BinaryDecoder: Sendable {
    /// Creates a decoder.
    ///
    /// ```swift
    /// let decoder = BinaryDecoder()
    /// ```
    package init() {}

    /// Decodes a value of the given type.
    ///
    /// ```swift
    /// let point = try BinaryDecoder().decode(Point.self, from: bytes)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: The bytes ``BinaryEncoder/encode(_:)`` produced.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError.dataCorrupted` when the bytes are not a valid encoding, and
    ///   `typeMismatch`, `keyNotFound` or `valueNotFound` when they are valid but do not match
    ///   `Value`, plus whatever `Value.init(from:)` throws.
    package func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        if Value.self == [Float].self, let floats = BinaryFloatArray.decode(bytes) as? Value { return floats }
        var scanner = BinaryFormat.Scanner(bytes: bytes, position: 0, end: bytes.count, codingPath: [])
        let version = try scanner.readByte()
        guard version == BinaryFormat.version else {
            throw scanner.corrupted(
                "The binary value has format \(version); this version reads format \(BinaryFormat.version).")
        }
        let start = scanner.position
        let end = try scanner.skipValue()
        guard end == bytes.count else {
            throw scanner.corrupted("\(bytes.count - end) unexpected bytes follow the binary value.")
        }
        return try BinaryDecoderImplementation.decode(Value.self, bytes: bytes, range: start..<end, codingPath: [])
    }

    static func decodeFromStorage<Value: Decodable>(
        _ type: Value.Type,
        from bytes: ArraySlice<UInt8>
    ) throws(StorageError) -> Value {
        do {
            return try BinaryDecoder().decode(Value.self, from: Array(bytes))
        } catch let error as StorageError {
            throw error
        } catch let error as DecodingError {
            if case .dataCorrupted = error {
                throw StorageError(
                    code: .damagedRecord,
                    message: "A stored \(Value.self) value is not a valid binary encoding (\(ErrorText.describing(error))). "
                        + "Restore the store from a backup, or delete and re-save the affected object.",
                    cause: ErrorText.cause(error)
                )
            }
            throw StorageError(
                code: .unsupportedValue,
                message: "A stored value cannot be read as \(Value.self) (\(ErrorText.describing(error))). Its Codable shape changed since "
                    + "it was saved; keep the old coding keys and types, or migrate the stored values.",
                cause: ErrorText.cause(error)
            )
        } catch {
            throw StorageError(
                code: .unsupportedValue,
                message: "\(Value.self).init(from:) rejected a stored value (\(ErrorText.describing(error))). "
                    + "Relax its validation or migrate the stored values.",
                cause: ErrorText.cause(error)
            )
        }
    }
}

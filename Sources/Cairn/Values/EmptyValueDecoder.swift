import Foundation

/// A `Decoder` that answers every request with the empty value of what is asked: `""`, zero,
/// `false`, `nil` for an optional, an empty collection, and, for a nested type, what its own
/// `init(from:)` makes of those. ``placeholder(_:)`` uses it for `Decodable` types with no
/// obvious empty value (a struct of plain fields): the value a model whose row cannot be read
/// shows. A native value inside it takes its registered empty value (``NativeValue/emptyValue``,
/// the all-zero `UUID` too); a type that refuses those values (an enumeration whose raw values
/// do not include `""`, a `URL` decoded from a string) has no empty value.
///
/// ```swift
/// struct Point: Codable { var x = 0.0, y = 0.0 }
/// let origin = try Point(from: EmptyValueDecoder())   // Point(x: 0, y: 0)
/// ```
struct EmptyValueDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }

    func singleValueContainer() -> any SingleValueDecodingContainer { Single(codingPath: codingPath) }

    /// The empty value of `type`: a native value's own (``NativeValue/emptyValue``), or what
    /// the type decodes from an ``EmptyValueDecoder``.
    static func empty<T: Decodable>(_ type: T.Type, at codingPath: [any CodingKey]) throws -> T {
        let plain = NativeValues.type(of: type).flatMap { $0.isOptional ? nil : $0.native.emptyValue }
        if let plain = plain as? T { return plain }
        return try T(from: EmptyValueDecoder(codingPath: codingPath))
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try EmptyValueDecoder.empty(type, at: codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer {
            Unkeyed(codingPath: codingPath + [key])
        }
        func superDecoder() -> any Decoder { EmptyValueDecoder(codingPath: codingPath) }
        func superDecoder(forKey key: Key) -> any Decoder { EmptyValueDecoder(codingPath: codingPath + [key]) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let codingPath: [any CodingKey]
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath, debugDescription: "an empty value has no elements"))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }
        mutating func superDecoder() -> any Decoder { EmptyValueDecoder(codingPath: codingPath) }
    }

    private struct Single: SingleValueDecodingContainer {
        let codingPath: [any CodingKey]
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try EmptyValueDecoder.empty(type, at: codingPath) }
    }
}

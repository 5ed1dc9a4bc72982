import Foundation

/// An attribute's value as read from a record without the app's model types: what a tool that
/// opens a store by itself (`cairn dump`) can tell about it from the stored type name and the
/// field's wire type.
///
/// Native types (the registry, ``NativeValues/all``) decode exactly, by the type the store's
/// description records. A `Codable` value
/// (a struct, an array, a dictionary) decodes into its structure from the binary coder's tags;
/// a value of a type the store names but this reader does not know (a `RawRepresentable` enum)
/// is read by its wire type: an integer, a number, or text when its bytes are UTF-8.
///
/// ```swift
/// let value = try StoredValue(field: reader.payload(tag: 3)!, type: "Swift.String")
/// if case .string(let title) = value { print(title) }
/// ```
package enum StoredValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case url(String)
    case bytes(Data)
    /// A keyed container, its entries in the order they are stored (ascending keys).
    case object([(key: String, value: StoredValue)])
    case array([StoredValue])

    package static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): a == b
        case (.string(let a), .string(let b)), (.url(let a), .url(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        default: false
        }
    }

    /// Whether the value is `==` to itself, as a key lookup assumes: `false` for a NaN number or
    /// date, whose unique key is never stored.
    ///
    /// ```swift
    /// StoredValue.double(.nan).equalsItself   // false
    /// ```
    package var equalsItself: Bool {
        switch self {
        case .double(let value): !value.isNaN
        case .date(let value): !value.timeIntervalSinceReferenceDate.isNaN
        case .decimal(let value): !value.isNaN
        default: true
        }
    }

    /// Decodes one record field of an attribute whose stored type is `type` (as the store's
    /// description records it: `String(reflecting:)` without optionality, or
    /// `transformable <type>` for a value a `ValueTransformer` wrote).
    ///
    /// - Throws: `StorageError` `.unsupportedValue` when the field's wire type does not fit the
    ///   type, `.damagedRecord` when its bytes are not a valid value of it.
    package init(field: FieldPayload, type: String) throws(StorageError) {
        if let native = NativeValues.named(type) {
            self = try native.storedValue(of: field)
        } else if type.hasPrefix("transformable ") {
            self = .bytes(try Data(fieldPayload: field))
        } else {
            self = try Self(unknownField: field)
        }
    }

    /// A field of a type this reader does not know, by its wire type.
    private init(unknownField field: FieldPayload) throws(StorageError) {
        switch field {
        case .varint: self = .integer(try Int64(fieldPayload: field))  // an integer raw value, zigzag
        case .fixed32(let bits): self = .double(Double(Float(bitPattern: bits)))
        case .fixed64(let bits): self = .double(Double(bitPattern: bits))
        case .bytes(let raw):
            // A Codable value starts with the binary coder's version byte; a String raw value is text.
            if raw.first == BinaryFormat.version,
                let value = try? BinaryDecoder().decode(StoredValue.self, from: Array(raw))
            {
                self = value
            } else if let text = String(validating: raw, as: UTF8.self) {
                self = .string(text)
            } else {
                self = .bytes(Data(raw))
            }
        }
    }
}

extension StoredValue: Decodable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any value the binary coder wrote, by its tags (``BinaryDecoder`` only: other
    /// decoders cannot say what kind of value comes next).
    package init(from decoder: any Decoder) throws {
        guard let binary = decoder as? BinaryDecoderImplementation, let tag = binary.tag else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "A stored value reads from Cairn's binary coder only."))
        }
        switch tag {
        case .null: self = .null
        case .false, .true: self = .bool(try binary.decodeBool())
        case .signed: self = .integer(try binary.decodeInteger(Int64.self))
        case .unsigned: self = .unsigned(try binary.decodeInteger(UInt64.self))
        case .float32, .float64: self = .double(try binary.decodeDouble())
        case .string: self = .string(try binary.decodeString())
        case .bytes: self = .bytes(Data(try binary.rawBytes()))
        case .keyed:
            let container = try binary.container(keyedBy: AnyKey.self)
            self = .object(
                try container.allKeys.map { ($0.stringValue, try container.decode(StoredValue.self, forKey: $0)) })
        case .unkeyed:
            var container = try binary.unkeyedContainer()
            var values: [StoredValue] = []
            while !container.isAtEnd { values.append(try container.decode(StoredValue.self)) }
            self = .array(values)
        }
    }
}

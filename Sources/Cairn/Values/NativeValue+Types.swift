import Foundation

// Each native type's entry in the registry (see NativeValue.swift). Its record and key byte
// layouts are in Encoding/Records/FieldCodable+*.swift and Encoding/Keys/KeyComponent+*.swift.

extension Bool: NativeValue {
    static var emptyValue: Bool? { false }
    static var keyOrderIsValueOrder: Bool { false }
    var storedValue: StoredValue { .bool(self) }
}

/// The integers: keyed in numeric order, shown as `Int64` or `UInt64`.
extension NativeValue where Self: FixedWidthInteger {
    static var emptyValue: Self? { 0 }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue {
        Self.isSigned ? .integer(Int64(truncatingIfNeeded: self)) : .unsigned(UInt64(truncatingIfNeeded: self))
    }
}

extension Int: NativeValue {}
extension Int8: NativeValue {}
extension Int16: NativeValue {}
extension Int32: NativeValue {}
extension Int64: NativeValue {}
extension UInt: NativeValue {}
extension UInt8: NativeValue {}
extension UInt16: NativeValue {}
extension UInt32: NativeValue {}
extension UInt64: NativeValue {}

extension Float: NativeValue {
    static var emptyValue: Float? { 0 }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue { .double(Double(self)) }
}

extension Double: NativeValue {
    static var emptyValue: Double? { 0 }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue { .double(self) }
}

extension Decimal: NativeValue {
    static var emptyValue: Decimal? { 0 }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue { .decimal(self) }
}

extension String: NativeValue {
    static var emptyValue: String? { "" }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue { .string(self) }
}

extension Date: NativeValue {
    static var emptyValue: Date? { Date(timeIntervalSinceReferenceDate: 0) }
    static var keyOrderIsValueOrder: Bool { true }
    var storedValue: StoredValue { .date(self) }
}

/// `Data` keys order bytes, which `Data` has no `<` for.
extension Data: NativeValue {
    static var emptyValue: Data? { Data() }
    static var keyOrderIsValueOrder: Bool { false }
    var storedValue: StoredValue { .bytes(self) }
}

/// `UUID` keys order bytes; `UUID`'s own `<` (Apple platforms) orders differently.
extension UUID: NativeValue {
    static var emptyValue: UUID? { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    static var keyOrderIsValueOrder: Bool { false }
    var storedValue: StoredValue { .uuid(self) }
}

/// A `URL` has no empty value: a deleted model's unloaded URL cannot be shown.
extension URL: NativeValue {
    static var emptyValue: URL? { nil }
    static var keyOrderIsValueOrder: Bool { false }
    var storedValue: StoredValue { .url(absoluteString) }
}

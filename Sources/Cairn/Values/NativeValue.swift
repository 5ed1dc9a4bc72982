import Foundation

/// One attribute type that Cairn stores natively, described in one place: the registry of value
/// types.
///
/// A native type has its own record encoding (``FieldCodable``) and key encoding
/// (``KeyComponent``), whose byte layouts live in `Encoding/`; this protocol adds what the
/// layers above need to know about it: the empty value a deleted model's unloaded attribute
/// shows, whether the planner may answer ranges and sorts from its keys, how a model-free reader
/// shows it, and specialized access to a model's storage of it. ``NativeValues/all`` lists every
/// conforming type; a test checks that the list, the conformances, the generated codec's
/// overloads (``_FieldEncoder``, ``_FieldDecoder``) and the macros' list of value types agree.
///
/// Adding a type is one conformance to each of the three protocols and one entry in
/// ``NativeValues/all`` (see `Docs/Walkthroughs.md`).
///
/// ```swift
/// extension UUID: NativeValue {
///     static var emptyValue: UUID? { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
///     static var keyOrderIsValueOrder: Bool { false }
///     var storedValue: StoredValue { .uuid(self) }
/// }
/// ```
protocol NativeValue: FieldCodable, KeyComponent, Equatable, SendableMetatype {
    /// The value a never-loaded attribute of a deleted model reads as, and the empty value of a
    /// `Decodable` struct of such fields (zero, `false`, `""`, the reference date, …); `nil`
    /// when the type has none.
    static var emptyValue: Self? { get }

    /// Whether byte order of keys is the type's `<` order, so the planner may answer ranges and
    /// sorts from an index of it (`false` for a type that is not `Comparable`, or whose keys only
    /// give equality).
    static var keyOrderIsValueOrder: Bool { get }

    /// The value as a reader without the app's models shows it (``StoredValue``).
    var storedValue: StoredValue { get }

    /// Access to a model's generated storage of this type, or of its optional, specialized for
    /// this type; `nil` when the attribute is of neither.
    static func directAccess(_ context: DirectAccessContext) -> AttributeAccess?

    /// `lhs op rhs` by the type's own `Comparable` operators (what a predicate's comparison
    /// evaluates); `nil` for a type that is not `Comparable`. Given for every type by the
    /// extensions below.
    static func compare(_ lhs: Self, _ op: PredicateExpressions.ComparisonOperator, _ rhs: Self) -> Bool?

    /// A test of a record's field of this type against a value, for a fetch's record tests;
    /// given for every type by the extension in `NativeValue+FieldTest.swift`, and a requirement
    /// so that each type's test is compiled for that type.
    static func fieldTest(
        _ comparison: FieldComparison, value: Any, isOptional: Bool, defaultValue: Any?
    ) -> ((FieldPayload?) -> Bool?)?

    /// A record field of this type as the number an aggregate adds up (`nil` for a type that is
    /// no number); given for every type by `NativeValue+Number.swift`, and a requirement so that
    /// each type's reading is compiled for that type.
    static func number(of field: FieldPayload) throws(StorageError) -> StoredNumber?

    /// A scalar record field (a varint or fixed-width one) as ``number(of:)`` reads it, without
    /// a payload to copy: what a scan of a million records calls.
    static func number(ofScalar scalar: UInt64, wireType: WireType) throws(StorageError) -> StoredNumber?

    /// A key component of this type as a number (`nil`, having moved past it, for a type that is
    /// no number); given for every type by `NativeValue+Number.swift`.
    static func number(ofKey reader: inout KeyReader) throws(StorageError) -> StoredNumber?
}

extension NativeValue {
    /// The specialized access, written once for every native type.
    static func directAccess(_ context: DirectAccessContext) -> AttributeAccess? {
        context.attempt(Self.self)
    }

    /// The type name a store's description records for this type (`Swift.Int`,
    /// `Foundation.Date`), the same on every platform.
    ///
    /// ```swift
    /// Date.storedTypeName   // "Foundation.Date"
    /// ```
    static var storedTypeName: String { StoredTypeName.canonical(String(reflecting: Self.self)) }

    /// Reads a record field of this type as a ``StoredValue``.
    static func storedValue(of field: FieldPayload) throws(StorageError) -> StoredValue {
        try Self(fieldPayload: field).storedValue
    }

    /// No order: the type is not `Comparable`.
    static func compare(_ lhs: Self, _ op: PredicateExpressions.ComparisonOperator, _ rhs: Self) -> Bool? { nil }
}

extension NativeValue where Self: Comparable {
    /// `lhs op rhs` by the type's own operators.
    static func compare(_ lhs: Self, _ op: PredicateExpressions.ComparisonOperator, _ rhs: Self) -> Bool? {
        switch op {
        case .lessThan: lhs < rhs
        case .lessThanOrEqual: lhs <= rhs
        case .greaterThan: lhs > rhs
        case .greaterThanOrEqual: lhs >= rhs
        @unknown default: nil
        }
    }
}

/// The registry's list and lookups.
enum NativeValues {
    /// Every native attribute type: the one list.
    static let all: [any NativeValue.Type] = [
        Bool.self, Int.self, Int8.self, Int16.self, Int32.self, Int64.self,
        UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
        Float.self, Double.self, Decimal.self, String.self, Date.self, Data.self, UUID.self, URL.self,
    ]

    /// The registered types' names, for messages: "Bool, Int, …, URL".
    static var names: String {
        all.map { String(describing: $0) }.joined(separator: ", ")
    }

    /// The native type a store's description names (either platform's spelling), if any.
    private static let byStoredName: [String: any NativeValue.Type] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.storedTypeName, $0) })

    /// The native type a store's description names, if any.
    ///
    /// ```swift
    /// NativeValues.named("FoundationEssentials.Date") == Date.self   // true
    /// ```
    static func named(_ storedName: String) -> (any NativeValue.Type)? {
        byStoredName[StoredTypeName.canonical(storedName)]
    }

    /// The native type of an attribute of type `type`, and whether it is that type's optional;
    /// `nil` when `type` is neither.
    static func type(of type: Any.Type) -> (native: any NativeValue.Type, isOptional: Bool)? {
        if let native = type as? any NativeValue.Type { return (native, false) }
        if let wrapped = (type as? any _OptionalType.Type)?.wrappedType as? any NativeValue.Type {
            return (wrapped, true)
        }
        return nil
    }
}

/// The spelling of type names in a store's description.
enum StoredTypeName {
    /// `name` with Foundation's types under one module name: Linux's Foundation declares them in
    /// `FoundationEssentials`, Apple platforms' in `Foundation`, and a store moves between them.
    ///
    /// ```swift
    /// StoredTypeName.canonical("Swift.Array<FoundationEssentials.Date>")   // "Swift.Array<Foundation.Date>"
    /// ```
    static func canonical(_ name: String) -> String {
        let module = "FoundationEssentials."
        var result = ""
        var rest = Substring(name)
        while let range = rest.range(of: module) {
            let before = rest[..<range.lowerBound]
            // Only a whole module name, not the tail of a longer identifier.
            let isWhole = (before.last ?? result.last).map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
            result += before + (isWhole ? "Foundation." : module)
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

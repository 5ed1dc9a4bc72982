import Foundation

/// A comparison of a stored field with a value, for ``NativeValue/fieldTest(_:value:isOptional:defaultValue:)``:
/// `field == value`, or `field op value`.
///
/// ```swift
/// let fromM = String.fieldTest(.ordered(.greaterThanOrEqual), value: "m", isOptional: false, defaultValue: nil)
/// fromM?(.bytes(ArraySlice("p".utf8)))   // true
/// ```
enum FieldComparison {
    case equal
    case ordered(PredicateExpressions.ComparisonOperator)
}

extension NativeValue {
    /// A test of a stored field of this type (or of its optional, `isOptional`) against `value`
    /// by `comparison`, with the type's own `==` and comparison operators; `nil` when `value` is
    /// not of the attribute's type or the type has no such comparison (an order on an optional,
    /// or on a type that is not `Comparable`).
    ///
    /// ```swift
    /// let isJane = String.fieldTest(.equal, value: "Jane", isOptional: false, defaultValue: nil)!
    /// isJane(record.payload(tag: 2))   // true, false, or nil when the field cannot be read
    /// ```
    ///
    /// - Parameter defaultValue: What an absent field of a non-optional attribute holds (a row
    ///   stored before the attribute existed); without one, an absent field cannot be read.
    static func fieldTest(
        _ comparison: FieldComparison, value: Any, isOptional: Bool, defaultValue: Any?
    ) -> ((FieldPayload?) -> Bool?)? {
        decodingFieldTest(comparison, value: value, isOptional: isOptional, defaultValue: defaultValue)
    }

    /// ``fieldTest(_:value:isOptional:defaultValue:)`` by decoding each field: every type's
    /// test, and a type's own test's way for the fields it does not compare another way.
    static func decodingFieldTest(
        _ comparison: FieldComparison, value: Any, isOptional: Bool, defaultValue: Any?
    ) -> ((FieldPayload?) -> Bool?)? {
        if isOptional {
            guard case .equal = comparison, let wanted = value as? Self? else { return nil }
            return { field in
                guard let field else { return wanted == nil }
                guard let stored = try? Self(fieldPayload: field) else { return nil }
                return wanted.map { stored == $0 } ?? false
            }
        }
        guard let wanted = value as? Self else { return nil }
        // The answer for an absent field, worked out once.
        let absent: Bool?
        switch comparison {
        case .equal:
            absent = (defaultValue as? Self).map { $0 == wanted }
            return { field in
                guard let field else { return absent }
                guard let stored = try? Self(fieldPayload: field) else { return nil }
                return stored == wanted
            }
        case .ordered(let op):
            guard compare(wanted, op, wanted) != nil else { return nil }
            absent = (defaultValue as? Self).flatMap { compare($0, op, wanted) }
            return { field in
                guard let field else { return absent }
                guard let stored = try? Self(fieldPayload: field) else { return nil }
                return compare(stored, op, wanted)
            }
        }
    }
}

extension String {
    /// A string's test compares a stored field's bytes with the value's when both are ASCII:
    /// their byte order is then `String`'s `==` and `<` (no two ASCII strings are canonically
    /// equivalent), and a row that fails costs no `String`. Any other field is decoded
    /// (``NativeValue/decodingFieldTest(_:value:isOptional:defaultValue:)``).
    ///
    /// ```swift
    /// let isJane = String.fieldTest(.equal, value: "Jane", isOptional: false, defaultValue: nil)!
    /// isJane(.bytes(ArraySlice("Jane".utf8)))   // true, without decoding
    /// ```
    static func fieldTest(
        _ comparison: FieldComparison, value: Any, isOptional: Bool, defaultValue: Any?
    ) -> ((FieldPayload?) -> Bool?)? {
        let decoding = decodingFieldTest(comparison, value: value, isOptional: isOptional, defaultValue: defaultValue)
        guard let decoding, !isOptional, let wanted = value as? String else { return decoding }
        let wantedBytes = Array(wanted.utf8)
        guard wantedBytes.allSatisfy({ $0 < 0x80 }) else { return decoding }
        return { field in
            guard case .bytes(let stored)? = field, stored.allSatisfy({ $0 < 0x80 }) else { return decoding(field) }
            if case .equal = comparison { return stored.elementsEqual(wantedBytes) }
            let before = stored.lexicographicallyPrecedes(wantedBytes)
            let equal = !before && stored.elementsEqual(wantedBytes)
            switch comparison {
            case .ordered(.lessThan): return before
            case .ordered(.lessThanOrEqual): return before || equal
            case .ordered(.greaterThan): return !before && !equal
            case .ordered(.greaterThanOrEqual): return !before
            case .equal, .ordered: return decoding(field)
            }
        }
    }
}

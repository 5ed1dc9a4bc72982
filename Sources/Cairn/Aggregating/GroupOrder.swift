import Foundation

/// The order of aggregate groups: by their keys' values, first key path first, `nil` first,
/// each native type by its own `<` (`false` before `true`), any other by its description.
///
/// ```swift
/// GroupOrder.precedes(["Drama", 1999], ["Drama", 2001])   // true
/// ```
enum GroupOrder {
    static func precedes(_ lhs: [AnyHashable], _ rhs: [AnyHashable]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            let order = compare(unwrapped(left.base), unwrapped(right.base))
            if order != .orderedSame { return order == .orderedAscending }
        }
        return false
    }

    private static func compare(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        guard let lhs else { return rhs == nil ? .orderedSame : .orderedAscending }
        guard let rhs else { return .orderedDescending }
        if let lhs = lhs as? any NativeValue, let order = compare(lhs, rhs) { return order }
        let (left, right) = (String(describing: lhs), String(describing: rhs))
        return left < right ? .orderedAscending : left == right ? .orderedSame : .orderedDescending
    }

    /// Two values of one native type by the type's order; `nil` when `rhs` is of another type,
    /// or the type has no order.
    private static func compare<N: NativeValue>(_ lhs: N, _ rhs: Any) -> ComparisonResult? {
        guard let rhs = rhs as? N else { return nil }
        if let lhs = lhs as? Bool, let rhs = rhs as? Bool {
            return lhs == rhs ? .orderedSame : rhs ? .orderedAscending : .orderedDescending
        }
        guard let less = N.compare(lhs, .lessThan, rhs) else { return nil }
        if less { return .orderedAscending }
        return N.compare(rhs, .lessThan, lhs) == true ? .orderedDescending : .orderedSame
    }

    /// The value an optional wraps (`nil` for `nil`), or the value itself.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}

import Foundation

// What `#Predicate` and `SortDescriptor` need for SwiftData's localized string operations on
// platforms whose Foundation lacks them (swift-corelibs Foundation has the `String` methods, not
// the predicate expressions or the localized sort comparators). On Apple platforms Foundation's
// own are used, and none of this is compiled.
//
// Each is evaluated on every candidate with the `String` method of the same name, so it means
// what it means on Apple platforms: `localizedStandardContains` ignores case and diacritics,
// `localizedStandard` ordering compares numbers by value. No index serves them: an index holds a
// string's exact bytes, in byte order.

#if !canImport(Darwin)
extension PredicateExpressions {
    /// `root.localizedStandardContains(other)` in a predicate: whether `other` occurs in
    /// `root`, ignoring case and diacritics, as Finder's search does. What `#Predicate` makes
    /// of `$0.name.localizedStandardContains(text)`.
    ///
    /// ```swift
    /// let query = "creme"
    /// let matches = #Predicate<Recipe> { $0.name.localizedStandardContains(query) }   // "Crème brûlée"
    /// ```
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = Bool

        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// The expression for `root.localizedStandardContains(other)`.
        ///
        /// ```swift
        /// PredicateExpressions.StringLocalizedStandardContains(root: name, other: query)
        /// ```
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Whether `other` occurs in `root`, ignoring case and diacritics.
        ///
        /// ```swift
        /// try expression.evaluate(bindings)   // true for "Crème brûlée" and "creme"
        /// ```
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            String(try root.evaluate(bindings)).localizedStandardContains(String(try other.evaluate(bindings)))
        }
    }

    /// Builds ``StringLocalizedStandardContains``; called by `#Predicate`'s expansion.
    ///
    /// ```swift
    /// PredicateExpressions.build_localizedStandardContains(name, query)
    /// ```
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// `root.caseInsensitiveCompare(other)` in a predicate: the order of the two strings
    /// with case ignored. What `#Predicate` makes of `$0.name.caseInsensitiveCompare(text)`.
    ///
    /// ```swift
    /// let same = ComparisonResult.orderedSame
    /// let named = #Predicate<Recipe> { $0.name.caseInsensitiveCompare("soup") == same }   // "Soup"
    /// ```
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// The expression for `root.caseInsensitiveCompare(other)`.
        ///
        /// ```swift
        /// PredicateExpressions.StringCaseInsensitiveCompare(root: name, other: text)
        /// ```
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// The order of `root` and `other`, case ignored.
        ///
        /// ```swift
        /// try expression.evaluate(bindings)   // .orderedSame for "Soup" and "soup"
        /// ```
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            String(try root.evaluate(bindings)).caseInsensitiveCompare(String(try other.evaluate(bindings)))
        }
    }

    /// Builds ``StringCaseInsensitiveCompare``; called by `#Predicate`'s expansion.
    ///
    /// ```swift
    /// PredicateExpressions.build_caseInsensitiveCompare(name, text)
    /// ```
    public static func build_caseInsensitiveCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// `root.localizedCompare(other)` in a predicate: the order of the two strings in the
    /// current locale. What `#Predicate` makes of `$0.name.localizedCompare(text)`.
    ///
    /// ```swift
    /// let before = ComparisonResult.orderedAscending
    /// let early = #Predicate<Recipe> { $0.name.localizedCompare("m") == before }
    /// ```
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// The expression for `root.localizedCompare(other)`.
        ///
        /// ```swift
        /// PredicateExpressions.StringLocalizedCompare(root: name, other: text)
        /// ```
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// The order of `root` and `other` in the current locale.
        ///
        /// ```swift
        /// try expression.evaluate(bindings)   // .orderedAscending for "apple" and "Banana"
        /// ```
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            String(try root.evaluate(bindings)).localizedCompare(String(try other.evaluate(bindings)))
        }
    }

    /// Builds ``StringLocalizedCompare``; called by `#Predicate`'s expansion.
    ///
    /// ```swift
    /// PredicateExpressions.build_localizedCompare(name, text)
    /// ```
    public static func build_localizedCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
    /// The expression and its operands.
    ///
    /// ```swift
    /// print(expression)   // StringLocalizedStandardContains(root: …, other: …)
    /// ```
    public var description: String { "StringLocalizedStandardContains(root: \(root), other: \(other))" }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: CustomStringConvertible {
    /// The expression and its operands.
    ///
    /// ```swift
    /// print(expression)   // StringCaseInsensitiveCompare(root: …, other: …)
    /// ```
    public var description: String { "StringCaseInsensitiveCompare(root: \(root), other: \(other))" }
}

extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedCompare: CustomStringConvertible {
    /// The expression and its operands.
    ///
    /// ```swift
    /// print(expression)   // StringLocalizedCompare(root: …, other: …)
    /// ```
    public var description: String { "StringLocalizedCompare(root: \(root), other: \(other))" }
}
#endif

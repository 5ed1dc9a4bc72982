import Foundation

// What `#Predicate` needs for SwiftData's localized string operations on platforms whose
// Foundation lacks them (swift-corelibs Foundation has the `String` methods, not the predicate
// expressions). On Apple platforms Foundation's own are used, and none of this is compiled.
//
// Each is evaluated on every candidate with the `String` method of the same name, so it means
// what it means on Apple platforms: `localizedStandardContains` ignores case and diacritics. No
// index serves them: an index holds a string's exact bytes, in byte order.
//
// The three expressions are one generic type with an operation (``StringOperation``), under
// Apple's three names, so that code naming them compiles and their conformances exist once.

#if !canImport(Darwin)
/// What a ``PredicateExpressions/StringOperation`` does with its two strings. Not for direct
/// use; the operations are Apple's (`localizedStandardContains`, `caseInsensitiveCompare`,
/// `localizedCompare`).
///
/// ```swift
/// PredicateExpressions.StringLocalizedStandardContains(root: name, other: query)
/// ```
public protocol _StringOperationKind: Sendable {
    /// What the method returns (`Bool`, `ComparisonResult`).
    associatedtype Output
    /// The method's name, for descriptions.
    static var name: String { get }
    /// `root.method(other)`.
    static func apply(_ root: String, _ other: String) -> Output
}

/// `root.localizedStandardContains(other)`.
///
/// ```swift
/// _LocalizedStandardContains.apply("Crème brûlée", "creme")   // true
/// ```
public enum _LocalizedStandardContains: _StringOperationKind {
    /// Apple's name for the expression, as descriptions print it.
    ///
    /// ```swift
    /// _CaseInsensitiveCompare.name   // "StringCaseInsensitiveCompare"
    /// ```
    public static var name: String { "StringLocalizedStandardContains" }
    /// The method applied to `root` with `other`.
    ///
    /// ```swift
    /// _LocalizedCompare.apply("a", "b")   // .orderedAscending
    /// ```
    public static func apply(_ root: String, _ other: String) -> Bool { root.localizedStandardContains(other) }
}

/// `root.caseInsensitiveCompare(other)`.
///
/// ```swift
/// _CaseInsensitiveCompare.apply("Soup", "soup")   // .orderedSame
/// ```
public enum _CaseInsensitiveCompare: _StringOperationKind {
    /// Apple's name for the expression, as descriptions print it.
    ///
    /// ```swift
    /// _CaseInsensitiveCompare.name   // "StringCaseInsensitiveCompare"
    /// ```
    public static var name: String { "StringCaseInsensitiveCompare" }
    /// The method applied to `root` with `other`.
    ///
    /// ```swift
    /// _LocalizedCompare.apply("a", "b")   // .orderedAscending
    /// ```
    public static func apply(_ root: String, _ other: String) -> ComparisonResult {
        root.caseInsensitiveCompare(other)
    }
}

/// `root.localizedCompare(other)`.
///
/// ```swift
/// _LocalizedCompare.apply("apple", "Banana")   // .orderedAscending
/// ```
public enum _LocalizedCompare: _StringOperationKind {
    /// Apple's name for the expression, as descriptions print it.
    ///
    /// ```swift
    /// _CaseInsensitiveCompare.name   // "StringCaseInsensitiveCompare"
    /// ```
    public static var name: String { "StringLocalizedCompare" }
    /// The method applied to `root` with `other`.
    ///
    /// ```swift
    /// _LocalizedCompare.apply("a", "b")   // .orderedAscending
    /// ```
    public static func apply(_ root: String, _ other: String) -> ComparisonResult { root.localizedCompare(other) }
}

extension PredicateExpressions {
    /// A string method applied to two strings in a predicate, as `#Predicate` makes of
    /// `$0.name.localizedStandardContains(query)`, `$0.name.caseInsensitiveCompare(text)` and
    /// `$0.name.localizedCompare(text)`; named by Apple's names below.
    ///
    /// ```swift
    /// let query = "creme"
    /// let matches = #Predicate<Recipe> { $0.name.localizedStandardContains(query) }   // "Crème brûlée"
    /// ```
    public struct StringOperation<Root: PredicateExpression, Other: PredicateExpression, Kind: _StringOperationKind>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// What the method returns: `Bool` for `localizedStandardContains`, `ComparisonResult`
        /// for the comparisons.
        ///
        /// ```swift
        /// let found: PredicateExpressions.StringLocalizedStandardContains<Name, Query>.Output = true
        /// ```
        public typealias Output = Kind.Output

        /// The string the method is called on.
        public let root: Root
        /// The method's argument.
        public let other: Other

        /// The expression for `root.method(other)`.
        ///
        /// ```swift
        /// PredicateExpressions.StringLocalizedStandardContains(root: name, other: query)
        /// ```
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// The method's result for the two strings.
        ///
        /// ```swift
        /// try expression.evaluate(bindings)   // true for "Crème brûlée" and "creme"
        /// ```
        public func evaluate(_ bindings: PredicateBindings) throws -> Kind.Output {
            Kind.apply(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
        }
    }

    /// `root.localizedStandardContains(other)`: whether `other` occurs in `root`, ignoring
    /// case and diacritics, as Finder's search does.
    ///
    /// ```swift
    /// let matches = #Predicate<Recipe> { $0.name.localizedStandardContains(query) }
    /// ```
    public typealias StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression> =
        StringOperation<Root, Other, _LocalizedStandardContains>
    where Root.Output: StringProtocol, Other.Output: StringProtocol

    /// `root.caseInsensitiveCompare(other)`: the order of the two strings with case ignored.
    ///
    /// ```swift
    /// let same = ComparisonResult.orderedSame
    /// let named = #Predicate<Recipe> { $0.name.caseInsensitiveCompare("soup") == same }
    /// ```
    public typealias StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression> =
        StringOperation<Root, Other, _CaseInsensitiveCompare>
    where Root.Output: StringProtocol, Other.Output: StringProtocol

    /// `root.localizedCompare(other)`: the order of the two strings in the current locale.
    ///
    /// ```swift
    /// let before = ComparisonResult.orderedAscending
    /// let early = #Predicate<Recipe> { $0.name.localizedCompare("m") == before }
    /// ```
    public typealias StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression> =
        StringOperation<Root, Other, _LocalizedCompare>
    where Root.Output: StringProtocol, Other.Output: StringProtocol

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

extension PredicateExpressions.StringOperation: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringOperation: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringOperation: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringOperation: CustomStringConvertible {
    /// The expression and its operands, under Apple's name for it.
    ///
    /// ```swift
    /// print(expression)   // StringLocalizedStandardContains(root: …, other: …)
    /// ```
    public var description: String { "\(Kind.name)(root: \(root), other: \(other))" }
}
#endif

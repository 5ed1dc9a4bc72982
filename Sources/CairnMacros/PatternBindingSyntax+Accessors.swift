import SwiftSyntax

extension PatternBindingSyntax {
    /// Whether the binding is a computed property: it has a getter, a setter or another accessor
    /// that replaces storage.
    ///
    /// `@Model` leaves computed properties alone, and must not mistake a property that only observes
    /// its storage (`willSet`, `didSet`) for one.
    var isComputed: Bool {
        switch accessorBlock?.accessors {
        case .none:
            return false
        case .getter:
            return true
        case .accessors(let accessors):
            return accessors.contains { !$0.isObserver }
        }
    }

    /// Whether the binding is stored and has `willSet` or `didSet`.
    var isObserved: Bool {
        guard case .accessors(let accessors) = accessorBlock?.accessors else { return false }
        return !accessors.isEmpty && accessors.allSatisfy(\.isObserver)
    }

    /// The bound name without backticks, for string literals and the `_$` storage name.
    var plainName: String? {
        guard let identifier = pattern.as(IdentifierPatternSyntax.self)?.identifier else { return nil }
        return identifier.identifier?.name ?? identifier.text
    }
}

extension AccessorDeclSyntax {
    /// Whether this is `willSet` or `didSet`, which observe storage instead of replacing it.
    fileprivate var isObserver: Bool {
        switch accessorSpecifier.tokenKind {
        case .keyword(.willSet), .keyword(.didSet):
            return true
        default:
            return false
        }
    }
}

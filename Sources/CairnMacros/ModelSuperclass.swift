import SwiftSyntax

/// What `@Model` needs to know of a class's place in a hierarchy of models: the model class it
/// inherits from, if any, and whether classes may inherit from it.
///
/// A macro sees syntax, not types, so whether the first type in the inheritance clause (where
/// Swift puts a superclass) is a class or a protocol is judged from the class's code: a class
/// whose initialisers call `super.init` inherits from it; a class with initialisers that do not
/// does not (a root model's initialisers never call `super.init`); a class without initialisers
/// inherits from it unless it is one of the protocols models commonly adopt (`Identifiable`,
/// `Hashable`, `Codable`, …), `NSObject`, or is named as protocols are (ending in `able`,
/// `ible`, `Protocol`, `Convertible`, `Representable`, `Providing`, `Delegate`, `DataSource`).
/// Docs/Macros.md, "Model inheritance".
struct ModelSuperclass {
    /// The superclass's name as written (`Animal`, `Zoo.Animal`), or `nil` for a root model.
    let name: String?
    /// Whether subclasses may inherit from the class: it is not `final`.
    let isOpenToSubclasses: Bool

    /// The protocols (and non-model classes) that, first in a model's inheritance clause, are not
    /// its superclass.
    private static let knownNonModels: Set<String> = [
        "Identifiable", "Hashable", "Equatable", "Comparable", "Codable", "Encodable", "Decodable", "Sendable",
        "CustomStringConvertible", "CustomDebugStringConvertible", "CustomReflectable", "Observable",
        "ObservableObject", "PersistentModel", "AnyObject", "RawRepresentable", "CaseIterable", "Transferable",
        "Error", "LocalizedError", "NSObject", "NSObjectProtocol", "NSCoding", "NSSecureCoding", "NSCopying",
    ]
    private static let protocolSuffixes = [
        "able", "ible", "Protocol", "Convertible", "Representable", "Providing", "Delegate", "DataSource",
    ]

    init(_ classDecl: ClassDeclSyntax) {
        isOpenToSubclasses = !classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first?.type else {
            name = nil
            return
        }
        let last: String
        if let identifier = first.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            last = identifier.name.text
        } else if let member = first.as(MemberTypeSyntax.self), member.genericArgumentClause == nil {
            last = member.name.text
        } else {
            name = nil
            return
        }
        let initialisers = classDecl.memberBlock.members.compactMap { $0.decl.as(InitializerDeclSyntax.self) }
        let isSubclass: Bool
        if Self.knownNonModels.contains(last) {
            isSubclass = false
        } else if !initialisers.isEmpty {
            isSubclass = initialisers.contains { Self.callsSuperInit($0) }
        } else {
            isSubclass = !Self.protocolSuffixes.contains { last.hasSuffix($0) }
        }
        name = isSubclass ? first.trimmedDescription : nil
    }

    /// Whether an initialiser's body calls `super.init(…)`.
    private static func callsSuperInit(_ initialiser: InitializerDeclSyntax) -> Bool {
        guard let body = initialiser.body else { return false }
        return body.tokens(viewMode: .sourceAccurate).contains { token in
            guard token.tokenKind == .keyword(.`init`),
                let access = token.parent?.parent?.as(MemberAccessExprSyntax.self)
            else { return false }
            return access.base?.is(SuperExprSyntax.self) == true
        }
    }

    /// Whether the class inherits from a model.
    var isSubclass: Bool { name != nil }

    /// Whether the class takes part in a hierarchy of models: it inherits from one, or one may
    /// inherit from it. Its metadata is then built for any class of the hierarchy
    /// (`_$schemaMetadata_<Class>(rootedAt:)`), so that a subclass's inherited properties are
    /// described with key paths rooted at the subclass.
    var isInHierarchy: Bool { isSubclass || isOpenToSubclasses }
}

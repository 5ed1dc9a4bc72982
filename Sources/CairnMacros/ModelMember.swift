import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A member of a `@Model` class, classified the way `@Model` treats it.
///
/// Every role of `@Model` classifies members through this one type, so the attribute it adds to a
/// property, the fault initialiser, the metadata and the `#Unique`/`#Index` checks always agree on
/// which properties are persisted. See "Which properties are persisted" in Docs/Macros.md.
enum ModelMember {
    /// A stored property that `@Model` persists.
    case persisted(PersistedProperty)
    /// Stored properties marked `@Transient`, by name.
    case transient([String])
    /// A stored property `@Model` would persist but cannot; `diagnostic` says why.
    case rejected(name: String, diagnostic: Diagnostic)
    /// A member `@Model` leaves alone: computed and type properties, methods, types, initialisers.
    case untouched

    /// A persisted property, as the generated code needs it.
    struct PersistedProperty {
        /// The property's name as written, backticks included, for member references.
        let identifier: TokenSyntax
        /// The name without backticks, for string literals and the `_$` storage name.
        let name: String
        /// The annotated type.
        let type: TypeSyntax
        /// The initial value, if the declaration has one.
        let initialValue: ExprSyntax?
        /// `@Attribute(…)`, if present.
        let attribute: AttributeSyntax?
        /// `@Relationship(…)`, if present and the type can be a model; `@Relationship` reports the
        /// other case itself and the property is then stored as an attribute.
        let relationship: AttributeSyntax?
        /// Whether it is a `let` (without an initial value): no accessors, its value given by the
        /// fault initialiser.
        let isConstant: Bool

        /// Whether `@Attribute` gives it `.transformable(by:)`: stored through a `ValueTransformer`,
        /// whatever its type, so its metadata and codec calls say so.
        var isTransformable: Bool {
            options.contains { $0.as(FunctionCallExprSyntax.self)?.calledExpression.memberName == "transformable" }
        }

        /// Whether `@Attribute` gives it `.codable`: stored as its `Codable` encoding, opaque.
        var isCodable: Bool { options.contains { $0.memberName == "codable" } }

        /// Whether its value is stored as `Data` by its attribute's own access (transformable or
        /// `.codable`), not field by field: the codec hands it over (`transformed:`).
        var isStoredAsData: Bool { isTransformable || isCodable }

        /// The unlabelled arguments of `@Attribute(…)`: its options.
        private var options: [ExprSyntax] {
            guard let attribute, case .argumentList(let arguments) = attribute.arguments else { return [] }
            return arguments.filter { $0.label == nil }.map(\.expression)
        }
    }

    /// Classifies every member of a class body, in declaration order.
    static func classify(_ members: MemberBlockItemListSyntax) -> [ModelMember] {
        members.map { ModelMember($0.decl) }
    }

    /// Classifies one member.
    init(_ decl: DeclSyntax) {
        guard let variable = decl.as(VariableDeclSyntax.self),
            !variable.modifiers.contains(where: { $0.name.isTypePropertyKeyword }),
            !variable.bindings.contains(where: \.isComputed)
        else {
            self = .untouched
            return
        }
        if variable.attributes.attribute(named: "Transient") != nil {
            self = .transient(variable.bindings.compactMap(\.plainName))
            return
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            let name = binding.plainName
        else {
            let names = variable.bindings.map(\.pattern.trimmedDescription).joined(separator: ", ")
            self = .rejected(
                name: names,
                diagnostic: Diagnostic(
                    node: variable.bindings, message: ModelMacroDiagnostic.severalBindings(properties: names))
            )
            return
        }
        let isConstant = variable.bindingSpecifier.tokenKind == .keyword(.let)
        if let diagnostic = Self.formDiagnostic(variable, binding, name: name, isConstant: isConstant) {
            self = .rejected(name: name, diagnostic: diagnostic)
            return
        }
        guard let type = binding.declaredOrInferredType else {
            self = .rejected(name: name, diagnostic: Self.missingTypeDiagnostic(binding, name: name))
            return
        }
        guard PropertyType(type).isStorable else {
            self = .rejected(
                name: name,
                diagnostic: Self.transientFixItDiagnostic(
                    variable, at: Syntax(type),
                    message: .unsupportedType(property: name, type: type.trimmedDescription))
            )
            return
        }
        let relationship = variable.attributes.attribute(named: "Relationship")
        self = .persisted(
            PersistedProperty(
                identifier: identifier.trimmed,
                name: name,
                type: type.trimmed,
                initialValue: binding.initializer?.value.trimmed,
                attribute: variable.attributes.attribute(named: "Attribute"),
                relationship: PropertyType(type).canBeModelReference ? relationship : nil,
                isConstant: isConstant
            )
        )
    }

    /// Why a stored property's form cannot be persisted, if it cannot: a `let` with an initial
    /// value or a relationship, a `lazy` or observed property.
    private static func formDiagnostic(
        _ variable: VariableDeclSyntax, _ binding: PatternBindingSyntax, name: String, isConstant: Bool
    ) -> Diagnostic? {
        // A `let` is persisted when its value comes from the initialiser: the fault initialiser
        // gives it the stored value. One with an initial value cannot be given another.
        if isConstant, binding.initializer != nil {
            return letDiagnostic(variable, name: name, message: .letWithValue(property: name))
        }
        if isConstant, variable.attributes.attribute(named: "Relationship") != nil {
            return letDiagnostic(variable, name: name, message: .letRelationship(property: name))
        }
        if let lazy = variable.modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            return transientFixItDiagnostic(variable, at: Syntax(lazy), message: .lazyProperty(property: name))
        }
        if binding.isObserved {
            return transientFixItDiagnostic(
                variable, at: Syntax(binding.pattern), message: .observedProperty(property: name))
        }
        return nil
    }

    /// The persisted property, if this member is one.
    var persistedProperty: PersistedProperty? {
        if case .persisted(let property) = self { property } else { nil }
    }

    /// A `let` `@Model` cannot persist, with a fix-it that replaces `let` with `var`.
    private static func letDiagnostic(
        _ variable: VariableDeclSyntax, name: String, message: ModelMacroDiagnostic
    ) -> Diagnostic {
        let specifier = variable.bindingSpecifier
        return Diagnostic(
            node: specifier,
            message: message,
            fixIt: .replace(
                message: MacroExpansionFixItMessage("Replace 'let' with 'var'"),
                oldNode: specifier,
                newNode: specifier.with(\.tokenKind, .keyword(.var))
            )
        )
    }

    /// `'@Model' needs the type of stored property`, with a fix-it that inserts a placeholder type.
    private static func missingTypeDiagnostic(_ binding: PatternBindingSyntax, name: String) -> Diagnostic {
        let typed =
            binding
            .with(\.pattern.trailingTrivia, [])
            .with(
                \.typeAnnotation,
                TypeAnnotationSyntax(
                    colon: .colonToken(trailingTrivia: .space),
                    type: IdentifierTypeSyntax(name: "<#Type#>"),
                    trailingTrivia: binding.pattern.trailingTrivia
                )
            )
        return Diagnostic(
            node: binding.pattern,
            message: ModelMacroDiagnostic.missingType(property: name),
            fixIt: .replace(
                message: MacroExpansionFixItMessage("Insert ': <#Type#>'"),
                oldNode: binding,
                newNode: typed
            )
        )
    }

    /// A diagnostic whose fix-it marks the declaration `@Transient`.
    private static func transientFixItDiagnostic(
        _ variable: VariableDeclSyntax,
        at node: Syntax,
        message: ModelMacroDiagnostic
    ) -> Diagnostic {
        var transient = variable.with(\.leadingTrivia, [])
        transient.attributes.insert(
            .attribute(
                AttributeSyntax(attributeName: IdentifierTypeSyntax(name: "Transient"))
                    .with(\.trailingTrivia, .space)),
            at: transient.attributes.startIndex
        )
        transient.leadingTrivia = variable.leadingTrivia
        return Diagnostic(
            node: node,
            message: message,
            fixIt: .replace(
                message: MacroExpansionFixItMessage("Insert '@Transient'"),
                oldNode: variable,
                newNode: transient
            )
        )
    }
}

extension TokenSyntax {
    /// `static` or `class`, which make a property belong to the type rather than to a model.
    fileprivate var isTypePropertyKeyword: Bool {
        tokenKind == .keyword(.static) || tokenKind == .keyword(.class)
    }
}

extension ExprSyntax {
    /// The member an expression names, as `.codable` or `Schema.Attribute.Option.codable` do.
    fileprivate var memberName: String? { self.as(MemberAccessExprSyntax.self)?.declName.baseName.text }
}

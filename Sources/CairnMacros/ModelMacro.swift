import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class persistent and observable.
///
/// It marks each persisted property with `@_PersistedProperty(i)`, adds the observation registrar,
/// the model state, the fault initialiser and the schema metadata, and conforms the class to
/// `PersistentModel` and `Observable`. Docs/Macros.md gives the exact generated code.
public enum ModelMacro {
    /// The names `@Model` recognises for the freestanding macros whose key paths it checks.
    private static let keyPathMacroNames: Set<String> = ["Unique", "Index"]
}

extension ModelMacro: MemberAttributeMacro {
    /// Marks each persisted stored property with `@_PersistedProperty(index)` (the compiler
    /// calls this for every member of the class).
    ///
    /// ```swift
    /// @Model final class Book { var title: String }   // title gets @_PersistedProperty(0)
    /// ```
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else { return [] }
        switch ModelMember(DeclSyntax(member)) {
        case .persisted(let property):
            // The compiler hands over `member` and `declaration` as separate trees, so the member is
            // found by name, which is unique among a class's properties.
            let persisted = ModelMember.classify(classDecl.memberBlock.members).compactMap(\.persistedProperty)
            // A `let` has no accessors: its value is the class's own, given by the initialisers.
            guard !property.isConstant, let index = persisted.firstIndex(where: { $0.name == property.name }),
                member.as(VariableDeclSyntax.self)?.attributes.attribute(named: "_PersistedProperty") == nil
            else { return [] }
            return ["@_PersistedProperty(\(raw: PropertyIndexes(classDecl).expression(index)))"]
        case .rejected(_, let diagnostic):
            context.diagnose(diagnostic)
            return []
        case .transient, .untouched:
            return []
        }
    }
}

extension ModelMacro: MemberMacro {
    /// Adds the model's generated members: its state, the fault initialiser, the record codec
    /// and the schema metadata (Docs/Macros.md lists them).
    ///
    /// ```swift
    /// @Model final class Book { var title: String }   // gains _$modelState, init(_$modelState:), …
    /// ```
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(notAClassDiagnostic(declaration))
            return []
        }
        let members = ModelMember.classify(classDecl.memberBlock.members)
        diagnoseKeyPaths(in: classDecl, members: members, in: context)
        let generated = GeneratedModelMembers(classDecl, members: members)
        return generated.stateAndInitialiser + generated.schemaMetadata + generated.recordCodec
    }

    /// The name of the function that builds a hierarchy class's metadata for any class of the
    /// hierarchy: one per class, as a subclass's must add to, not replace, its superclass's.
    /// Named after the class's own name (the last part of `Zoo.Animal`).
    static func metadataFunction(of className: String) -> String {
        "_$schemaMetadata_\(className.split(separator: ".").last.map(String.init) ?? className)"
    }

    /// One `PropertyMetadata` entry for a persisted property.
    static func persistedMetadata(
        _ property: ModelMember.PersistedProperty,
        index: String,
        root: String
    ) -> String {
        if property.isConstant {
            let attribute = property.attribute.map(attributeMetadata) ?? "nil"
            return "Cairn.Schema.PropertyMetadata(name: \"\(property.name)\", "
                + "constant: \\\(root).\(property.identifier.text), index: \(index), attribute: \(attribute))"
        }
        var arguments = [
            "name: \"\(property.name)\"",
            "keyPath: \\\(root).\(property.identifier.text)",
            "storage: \\\(root)._$\(property.name)",
            "index: \(index)",
        ]
        if let initialValue = property.initialValue {
            arguments.append("defaultValue: \(initialValue.trimmedDescription)")
        }
        if let relationship = property.relationship {
            arguments.append("relationship: \(relationshipMetadata(relationship))")
        } else if let attribute = property.attribute {
            // A transformable value needs not be Codable, and a .codable one is stored whole: each
            // has its own metadata initialiser.
            let label = property.isTransformable ? "transformable" : property.isCodable ? "codable" : "attribute"
            arguments.append("\(label): \(attributeMetadata(attribute))")
        } else {
            arguments.append("attribute: nil")
        }
        return "Cairn.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))"
    }

    /// `AttributeMetadata` from `@Attribute(options..., originalName:, hashModifier:)`.
    private static func attributeMetadata(_ attribute: AttributeSyntax) -> String {
        let arguments = MarkerArguments(attribute)
        return """
            Cairn.Schema.AttributeMetadata(options: \(arguments.options), \
            originalName: \(arguments["originalName"] ?? "nil"), \
            hashModifier: \(arguments["hashModifier"] ?? "nil"))
            """
    }

    /// `RelationshipMetadata` from `@Relationship(…)`, with the declaration's defaults for omitted
    /// arguments.
    private static func relationshipMetadata(_ relationship: AttributeSyntax) -> String {
        let arguments = MarkerArguments(relationship)
        return """
            Cairn.Schema.RelationshipMetadata(options: \(arguments.options), \
            deleteRule: \(arguments["deleteRule"] ?? ".nullify"), \
            minimumModelCount: \(arguments["minimumModelCount"] ?? "0"), \
            maximumModelCount: \(arguments["maximumModelCount"] ?? "0"), \
            originalName: \(arguments["originalName"] ?? "nil"), \
            inverse: \(arguments["inverse"] ?? "nil"), \
            hashModifier: \(arguments["hashModifier"] ?? "nil"))
            """
    }

    /// `'@Model' cannot be applied to …`, with a fix-it for a struct.
    private static func notAClassDiagnostic(_ declaration: some DeclGroupSyntax) -> Diagnostic {
        if let extensionDecl = declaration.as(ExtensionDeclSyntax.self) {
            return Diagnostic(
                node: extensionDecl.extensionKeyword,
                message: ModelMacroDiagnostic.onExtension(name: extensionDecl.extendedType.trimmedDescription)
            )
        }
        let keyword: TokenSyntax
        let name: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            let replacement = TokenSyntax.identifier(
                "final class",
                leadingTrivia: structDecl.structKeyword.leadingTrivia,
                trailingTrivia: structDecl.structKeyword.trailingTrivia
            )
            return Diagnostic(
                node: structDecl.structKeyword,
                message: ModelMacroDiagnostic.notAClass(keyword: "struct", name: structDecl.name.text),
                fixIt: .replace(
                    message: MacroExpansionFixItMessage("Replace 'struct' with 'final class'"),
                    oldNode: structDecl.structKeyword,
                    newNode: replacement
                )
            )
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            (keyword, name) = (enumDecl.enumKeyword, enumDecl.name.text)
        } else if let actorDecl = declaration.as(ActorDeclSyntax.self) {
            (keyword, name) = (actorDecl.actorKeyword, actorDecl.name.text)
        } else if let protocolDecl = declaration.as(ProtocolDeclSyntax.self) {
            (keyword, name) = (protocolDecl.protocolKeyword, protocolDecl.name.text)
        } else {
            (keyword, name) = (declaration.introducer, "")
        }
        return Diagnostic(
            node: keyword,
            message: ModelMacroDiagnostic.notAClass(keyword: keyword.text, name: name)
        )
    }

    /// Checks that every key path of a `#Unique` or `#Index` in the class body is `\.name` (or
    /// `\Class.name`) of a persisted attribute.
    private static func diagnoseKeyPaths(
        in classDecl: ClassDeclSyntax,
        members: [ModelMember],
        in context: some MacroExpansionContext
    ) {
        let className = classDecl.name.trimmedDescription
        // A rejected property already has its own diagnostic; do not add a second one for it.
        let attributeNames = Set(
            members.flatMap { member -> [String] in
                switch member {
                case .persisted(let property): property.relationship == nil ? [property.name] : []
                case .rejected(let name, _): [name]
                case .transient, .untouched: []
                }
            }
        )
        for item in classDecl.memberBlock.members {
            guard let expansion = item.decl.as(MacroExpansionDeclSyntax.self),
                keyPathMacroNames.contains(expansion.macroName.text)
            else { continue }
            let macro = "#\(expansion.macroName.text)"
            for argument in expansion.arguments {
                let keyPaths =
                    argument.expression.as(ArrayExprSyntax.self)?.elements.map(\.expression)
                    ?? [argument.expression]
                for keyPath in keyPaths
                where !namesAttribute(keyPath, of: className, attributeNames: attributeNames) {
                    context.diagnose(
                        Diagnostic(
                            node: keyPath,
                            message: ModelMacroDiagnostic.keyPathNotAnAttribute(
                                macro: macro, keyPath: keyPath.trimmedDescription, model: className)
                        )
                    )
                }
            }
        }
    }

    /// Whether `expression` is `\.name` or `\Class.name` with `name` among `attributeNames`.
    private static func namesAttribute(
        _ expression: ExprSyntax,
        of className: String,
        attributeNames: Set<String>
    ) -> Bool {
        guard let keyPath = expression.as(KeyPathExprSyntax.self),
            keyPath.root.map({ $0.trimmedDescription == className }) ?? true,
            keyPath.components.count == 1,
            let property = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self),
            property.declName.argumentNames == nil, property.genericArgumentClause == nil
        else { return false }
        let baseName = property.declName.baseName
        return attributeNames.contains(baseName.identifier?.name ?? baseName.text)
    }
}

extension ModelMacro: ExtensionMacro {
    /// Conforms the class to `PersistentModel` and `Observable`.
    ///
    /// ```swift
    /// @Model final class Book { var title: String }   // extension Book: Cairn.PersistentModel, Observation.Observable {}
    /// ```
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        // The compiler lists only the protocols the class does not already conform to.
        let missing = Set(protocols.map { $0.as(MemberTypeSyntax.self)?.name.text ?? $0.trimmedDescription })
        let availability = declaration.attributes.filter {
            guard case .attribute(let attribute) = $0 else { return false }
            return attribute.attributeName.trimmedDescription == "available"
        }
        let prefix = availability.map { $0.trimmedDescription + "\n" }.joined()
        return [("PersistentModel", "Cairn.PersistentModel"), ("Observable", "Observation.Observable")]
            .filter { missing.contains($0.0) }
            .map { _, qualified in
                DeclSyntax("\(raw: prefix)extension \(type.trimmed): \(raw: qualified) {}")
                    .cast(ExtensionDeclSyntax.self)
            }
    }
}

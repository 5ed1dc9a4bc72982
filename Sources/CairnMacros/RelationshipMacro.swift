import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Relationship(…)`: a marker that expands to nothing; `@Model` copies its arguments into the
/// property's `RelationshipMetadata`.
///
/// It reports itself on a property whose type cannot be a model, so the error names the attribute
/// the user wrote; `@Model` then stores that property as an ordinary attribute.
public enum RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            !binding.isComputed,
            let name = binding.plainName,
            let type = binding.declaredOrInferredType,
            !PropertyType(type).canBeModelReference
        else { return [] }

        // The compiler passes the attribute and the declaration as separate trees, so the attribute
        // to remove is found by name.
        let attributes = variable.attributes.filter { element in
            guard case .attribute(let attribute) = element else { return true }
            return !["Relationship", "Cairn.Relationship"].contains(attribute.attributeName.trimmedDescription)
        }
        var fixed = variable.with(\.attributes, attributes)
        fixed.leadingTrivia = variable.leadingTrivia
        context.diagnose(
            Diagnostic(
                node: node,
                message: RelationshipMacroDiagnostic.notAModelType(property: name, type: type.trimmedDescription),
                fixIt: .replace(
                    message: MacroExpansionFixItMessage("Remove '@Relationship'"),
                    oldNode: variable,
                    newNode: fixed
                )
            )
        )
        return []
    }
}

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Transient`: a marker that expands to nothing; `@Model` leaves the property an ordinary stored
/// property and lists it in the metadata as transient.
///
/// It reports a stored property without an initial value, because `init(_$modelState:)`, which
/// creates models loaded from the store, cannot initialise it.
public enum TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            !variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) })
        else { return [] }
        let isVar = variable.bindingSpecifier.tokenKind == .keyword(.var)
        let bindings = Array(variable.bindings)
        for (offset, binding) in bindings.enumerated() {
            // In `var a, b: Int`, `a` takes its type from the next annotation.
            let type = bindings[offset...].lazy.compactMap(\.typeAnnotation?.type).first
            if needsInitialValue(binding, type: type, isVar: isVar) {
                context.diagnose(missingInitialValueDiagnostic(binding))
            }
        }
        return []
    }

    /// Whether `binding` is stored and starts uninitialised. A `var` of type `T?` or `T!` starts as
    /// `nil`, as everywhere in Swift.
    private static func needsInitialValue(_ binding: PatternBindingSyntax, type: TypeSyntax?, isVar: Bool) -> Bool {
        guard !binding.isComputed, binding.initializer == nil else { return false }
        if isVar, let type, type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return false
        }
        return true
    }

    /// `'@Transient' property 'x' needs an initial value`, with a fix-it that inserts a placeholder.
    private static func missingInitialValueDiagnostic(_ binding: PatternBindingSyntax) -> Diagnostic {
        let last: any SyntaxProtocol = binding.typeAnnotation ?? binding.pattern
        var fixed = binding
        let trailing = last.trailingTrivia
        if var annotation = fixed.typeAnnotation {
            annotation.trailingTrivia = .space
            fixed.typeAnnotation = annotation
        } else {
            fixed.pattern.trailingTrivia = .space
        }
        fixed.initializer = InitializerClauseSyntax(
            equal: .equalToken(trailingTrivia: .space),
            value: DeclReferenceExprSyntax(baseName: .identifier("<#value#>")),
            trailingTrivia: trailing
        )
        let name = binding.plainName ?? binding.pattern.trimmedDescription
        return Diagnostic(
            node: binding.pattern,
            message: TransientMacroDiagnostic.missingInitialValue(property: name),
            fixIt: .replace(
                message: MacroExpansionFixItMessage("Insert ' = <#value#>'"),
                oldNode: binding,
                newNode: fixed
            )
        )
    }
}

import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<Model>([\.a], [\.b, \.c])`: declares the model's uniqueness constraints as
/// `_$uniquenessConstraints`, which shadows `PersistentModel`'s empty default.
///
/// `@Model` checks the key paths, because only it sees the class's properties.
public enum UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [KeyPathGroups(node, in: context).declaration(named: "_$uniquenessConstraints", in: context)]
    }
}

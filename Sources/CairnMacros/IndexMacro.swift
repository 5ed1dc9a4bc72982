import SwiftSyntax
import SwiftSyntaxMacros

/// `#Index<Model>([\.a], [\.b, \.c])`: declares the model's indices as `_$indices`, which shadows
/// `PersistentModel`'s empty default.
///
/// `@Model` checks the key paths, because only it sees the class's properties.
public enum IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [KeyPathGroups(node, in: context).declaration(named: "_$indices", in: context)]
    }
}

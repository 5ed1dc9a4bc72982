import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(…)`: a marker that expands to nothing; `@Model` copies its arguments into the
/// property's `AttributeMetadata`.
public enum AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

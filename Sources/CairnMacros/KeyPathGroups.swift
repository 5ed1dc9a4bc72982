import SwiftSyntax
import SwiftSyntaxMacros

/// The key path groups of a `#Unique` or `#Index`, each key path rooted at the model type.
///
/// Both macros expand to a static property of the same shape, `[[AnyKeyPath]]` (the type
/// `PersistentModel` declares, which a non-final class can satisfy too); only
/// its name differs. Key paths get their root spelled out (`\.isbn` becomes `\Book.isbn`), as
/// Docs/Macros.md specifies, so each one reads on its own in the expansion.
struct KeyPathGroups {
    /// The model type: the macro's generic argument, else the enclosing type.
    let rootType: String
    /// One array literal per argument, key paths rooted at `rootType`.
    let groups: [String]

    init(_ node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext) {
        let rootType =
            node.genericArgumentClause?.arguments.first?.argument.trimmedDescription
            ?? context.lexicalContext.lazy.compactMap { Self.typeName(of: $0) }.first
            ?? "Self"
        self.rootType = rootType
        self.groups = node.arguments.map { argument in
            guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                return argument.expression.trimmedDescription
            }
            let keyPaths = array.elements.map { element in
                guard let keyPath = element.expression.as(KeyPathExprSyntax.self), keyPath.root == nil else {
                    return element.expression.trimmedDescription
                }
                return "\\\(rootType)\(keyPath.components.trimmedDescription)"
            }
            return "[\(keyPaths.joined(separator: ", "))]"
        }
    }

    /// `A static var <name>: [[AnyKeyPath]] { [...] }`, with the access level of the
    /// enclosing type.
    func declaration(named name: String, in context: some MacroExpansionContext) -> DeclSyntax {
        let access = GeneratedAccessLevel.modifier(forLexicalContext: context.lexicalContext)
        return """
            \(raw: access)static var \(raw: name): [[AnyKeyPath]] { [\(raw: groups.joined(separator: ", "))] }
            """
    }

    private static func typeName(of node: Syntax) -> String? {
        if let classDecl = node.as(ClassDeclSyntax.self) { return classDecl.name.trimmedDescription }
        if let structDecl = node.as(StructDeclSyntax.self) { return structDecl.name.trimmedDescription }
        if let extensionDecl = node.as(ExtensionDeclSyntax.self) {
            return extensionDecl.extendedType.trimmedDescription
        }
        return nil
    }
}

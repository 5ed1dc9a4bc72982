import SwiftSyntax

/// The access modifier that generated members need.
///
/// Members that witness `PersistentModel`'s requirements (`_$modelState`, `init(_$modelState:)`,
/// `schemaMetadata`, `_$uniquenessConstraints`, `_$indices`) must be as visible as the model itself,
/// up to `public`, or a `public` or `package` model does not compile.
enum GeneratedAccessLevel {
    /// The modifier, followed by a space, for members of a type declared with `modifiers`; empty for
    /// an internal, fileprivate or private type.
    static func modifier(for modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open):
                return "public "
            case .keyword(.package):
                return "package "
            default:
                continue
            }
        }
        return ""
    }

    /// The modifier for members generated inside the innermost type of a macro's lexical context.
    static func modifier(forLexicalContext lexicalContext: [Syntax]) -> String {
        for node in lexicalContext {
            if let group = node.asProtocol(DeclGroupSyntax.self) {
                return modifier(for: group.modifiers)
            }
        }
        return ""
    }
}

import SwiftSyntax

extension AttributeListSyntax {
    /// The first attribute spelled `@name` or `@Cairn.name`.
    ///
    /// `@Model` reads its marker attributes (`@Attribute`, `@Relationship`, `@Transient`) by name:
    /// a macro sees syntax only, so this is how it learns what the user asked for.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let spelling = attribute.attributeName.trimmedDescription
            if spelling == name || spelling == "Cairn.\(name)" {
                return attribute
            }
        }
        return nil
    }
}

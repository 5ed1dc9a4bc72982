import SwiftSyntax

/// How the code `@Model` generates spells a persisted property's index: the number itself in a
/// root model; in a subclass, the number after its superclass's properties, which only the
/// superclass knows (`Dog._$firstIndex_Dog + 0`, a constant the class computes once).
struct PropertyIndexes {
    /// The static constant holding the subclass's first index, or `nil` for a root model.
    let firstIndexName: String
    private let base: String?

    init(_ classDecl: ClassDeclSyntax) {
        let className = classDecl.name.trimmedDescription
        firstIndexName = "_$firstIndex_\(className)"
        base = ModelSuperclass(classDecl).isSubclass ? "\(className).\(firstIndexName)" : nil
    }

    /// The expression for the class's persisted property number `index` (counted in the class).
    func expression(_ index: Int) -> String {
        base.map { "\($0) + \(index)" } ?? "\(index)"
    }
}

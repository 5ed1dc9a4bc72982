import SwiftDiagnostics

/// The errors `@Model` reports: each names the attribute and the property, and says what to do.
enum ModelMacroDiagnostic: DiagnosticMessage {
    /// `@Model` on a struct, enum, actor or protocol (`keyword`), named `name`.
    case notAClass(keyword: String, name: String)
    /// `@Model` on an extension of `name`.
    case onExtension(name: String)
    /// A persisted property without a type annotation whose initial value does not tell its type.
    case missingType(property: String)
    /// A persisted property of a type no store can hold.
    case unsupportedType(property: String, type: String)
    /// A `let` with an initial value, which the fault initialiser cannot give the stored value.
    case letWithValue(property: String)
    /// A `let` marked `@Relationship`: relationships change as their inverses do.
    case letRelationship(property: String)
    /// A `lazy var` that would be persisted.
    case lazyProperty(property: String)
    /// A stored property with `willSet` or `didSet` that would be persisted.
    case observedProperty(property: String)
    /// Several properties, or a tuple pattern, in one declaration that would be persisted.
    case severalBindings(properties: String)
    /// A `#Unique` or `#Index` key path that is not `\.name` of a persisted attribute.
    case keyPathNotAnAttribute(macro: String, keyPath: String, model: String)

    var message: String {
        switch self {
        case .notAClass(let keyword, let name):
            "'@Model' cannot be applied to \(keyword) type '\(name)'; models are classes"
        case .onExtension(let name):
            "'@Model' cannot be applied to an extension of '\(name)'; attach it to the class declaration"
        case .missingType(let property):
            "'@Model' cannot tell the type of stored property '\(property)' from its initial value; add a type annotation"
        case .unsupportedType(let property, let type):
            "'@Model' cannot store property '\(property)' of type '\(type)'; "
                + "use a Codable type or mark it '@Transient'"
        case .letWithValue(let property):
            "'@Model' cannot persist 'let' property '\(property)' with an initial value: a model read back could "
                + "not take the stored value; declare it 'var', or drop the initial value and set it in 'init'"
        case .letRelationship(let property):
            "'@Model' cannot persist relationship '\(property)' as a 'let': a relationship changes as its inverse "
                + "does; declare it 'var'"
        case .lazyProperty(let property):
            "'@Model' cannot persist lazy property '\(property)'; mark it '@Transient'"
        case .observedProperty(let property):
            "'@Model' cannot persist observed property '\(property)'; "
                + "mark it '@Transient' or move the 'willSet'/'didSet' code elsewhere"
        case .severalBindings(let properties):
            "'@Model' cannot persist '\(properties)' declared together; declare each property with its own 'var'"
        case .keyPathNotAnAttribute(let macro, let keyPath, let model):
            "'\(macro)' key path '\(keyPath)' does not name a stored attribute of '\(model)'; "
                + "use '\\.name' with a persisted property that is not a relationship"
        }
    }

    var diagnosticID: MessageID {
        let id =
            switch self {
            case .notAClass: "notAClass"
            case .onExtension: "onExtension"
            case .missingType: "missingType"
            case .unsupportedType: "unsupportedType"
            case .letWithValue: "letWithValue"
            case .letRelationship: "letRelationship"
            case .lazyProperty: "lazyProperty"
            case .observedProperty: "observedProperty"
            case .severalBindings: "severalBindings"
            case .keyPathNotAnAttribute: "keyPathNotAnAttribute"
            }
        return MessageID(domain: "CairnMacros.ModelMacro", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

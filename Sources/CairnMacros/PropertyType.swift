import SwiftSyntax

/// What can be told about a property's type from its spelling alone.
///
/// Whether a persisted property is an attribute or a relationship is decided by overload resolution
/// in the runtime, not here. The macros only reject what is certainly wrong whatever the types turn
/// out to be: a type no store can hold, and `@Relationship` on a type that cannot be a model.
struct PropertyType {
    /// Value types from the standard library and Foundation that are never models.
    private static let valueTypeNames: Set<String> = [
        "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "Int128",
        "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "UInt128",
        "Float", "Float16", "Float80", "Double", "CGFloat", "Decimal",
        "String", "Substring", "Character", "Date", "Data", "UUID", "URL",
        "Array", "Dictionary", "Set", "Optional", "Any", "AnyObject", "Void", "Never",
    ]

    /// The type as written in the property's annotation.
    let syntax: TypeSyntax

    init(_ syntax: TypeSyntax) {
        self.syntax = syntax
    }

    /// Whether a store can hold a value of this type: no function, tuple, `Any`, `AnyObject`,
    /// existential, opaque or metatype anywhere in it.
    var isStorable: Bool {
        Self.isStorable(syntax)
    }

    /// Whether the type may be a model, an optional of one or an array of one, the three shapes the
    /// runtime accepts for a relationship.
    var canBeModelReference: Bool {
        if let wrapped = Self.optionalWrapped(syntax) {
            // `[T]?`, an optional to-many relationship, as CloudKit-ready models declare them.
            if let element = Self.arrayElement(wrapped) { return Self.canBeModel(element) }
            return Self.canBeModel(wrapped)
        }
        if let element = Self.arrayElement(syntax) {
            return Self.canBeModel(element)
        }
        return Self.canBeModel(syntax)
    }

    /// The type to store in the `_$` peer: an implicitly unwrapped optional is stored as an optional,
    /// because `T!` cannot be a generic argument.
    var storageType: TypeSyntax {
        if let unwrapped = syntax.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed))
        }
        return syntax.trimmed
    }

    private static func isStorable(_ type: TypeSyntax) -> Bool {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return isStorable(optional.wrappedType)
        }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return isStorable(optional.wrappedType)
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            return isStorable(array.element)
        }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return isStorable(dictionary.key) && isStorable(dictionary.value)
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            // `(T)` is only parentheses; anything else is a tuple.
            guard tuple.elements.count == 1, let element = tuple.elements.first,
                element.firstName == nil, element.ellipsis == nil
            else { return false }
            return isStorable(element.type)
        }
        if let attributed = type.as(AttributedTypeSyntax.self) {
            return isStorable(attributed.baseType)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            guard identifier.name.text != "Any", identifier.name.text != "AnyObject" else { return false }
            return genericArgumentsAreStorable(identifier.genericArgumentClause)
        }
        if let member = type.as(MemberTypeSyntax.self) {
            guard member.name.text != "Any", member.name.text != "AnyObject" else { return false }
            return genericArgumentsAreStorable(member.genericArgumentClause)
        }
        if type.is(FunctionTypeSyntax.self) || type.is(SomeOrAnyTypeSyntax.self)
            || type.is(CompositionTypeSyntax.self) || type.is(MetatypeTypeSyntax.self)
        {
            return false
        }
        return true
    }

    private static func genericArgumentsAreStorable(_ clause: GenericArgumentClauseSyntax?) -> Bool {
        guard let clause else { return true }
        return clause.arguments.allSatisfy { argument in
            guard case .type(let type) = argument.argument else { return true }
            return isStorable(type)
        }
    }

    /// `T` for `T?` or `Optional<T>`.
    private static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return optional.wrappedType
        }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return optional.wrappedType
        }
        return soleGenericArgument(of: type, named: "Optional")
    }

    /// `T` for `[T]` or `Array<T>`.
    private static func arrayElement(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) {
            return array.element
        }
        return soleGenericArgument(of: type, named: "Array")
    }

    private static func soleGenericArgument(of type: TypeSyntax, named name: String) -> TypeSyntax? {
        guard let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name,
            let arguments = identifier.genericArgumentClause?.arguments, arguments.count == 1,
            case .type(let argument) = arguments.first?.argument
        else { return nil }
        return argument
    }

    /// Whether `type` names a type that may be a model class: a plain or qualified name that is not
    /// one of the standard value types.
    private static func canBeModel(_ type: TypeSyntax) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return !valueTypeNames.contains(identifier.name.text)
        }
        if let member = type.as(MemberTypeSyntax.self) {
            let module = member.baseType.trimmedDescription
            return !((module == "Swift" || module == "Foundation") && valueTypeNames.contains(member.name.text))
        }
        return false
    }
}

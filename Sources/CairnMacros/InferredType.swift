import SwiftSyntax

extension PatternBindingSyntax {
    /// The property's type: its annotation, or else the type its initial value has in the simple
    /// cases the compiler infers the same way everywhere (``InferredType``); `nil` when neither
    /// says, and `@Model` then asks for an annotation.
    ///
    /// `var count = 0` is `Int`, `var created = Date()` is `Date`, `var kind = Kind.a` is `Kind`.
    var declaredOrInferredType: TypeSyntax? {
        if let type = typeAnnotation?.type { return type }
        return initializer.flatMap { InferredType.of($0.value) }
    }
}

/// The type of an initial value written in one of the forms whose type does not depend on
/// context: literals (`false`, `0`, `1.5`, `"title"`, `-1`, `["a", "b"]`), a type's initialiser
/// (`Date()`, `Set<String>()`, `[String]()`, `URL(string: "…")!`), and a type's member or case
/// (`Kind.a`, `Date.now`, `Kind.custom("x")`). Anything else (`nil`, `[]`, `.a`, a function's
/// result, a known failable initialiser such as `init(rawValue:)`) has no type here, as it would
/// need the compiler's. A failable initialiser this does not know (`Thing(code: 1)` returning
/// `Thing?`) is taken to make its type, and the compiler then reports the mismatch in the
/// expansion; an annotation (`var thing: Thing? = Thing(code: 1)`) says what is meant.
enum InferredType {
    static func of(_ expression: ExprSyntax) -> TypeSyntax? {
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expression.is(StringLiteralExprSyntax.self) { return "String" }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        {
            return of(prefix.expression)
        }
        if let array = expression.as(ArrayExprSyntax.self), let first = array.elements.first,
            let element = of(first.expression),
            array.elements.allSatisfy({ of($0.expression)?.trimmedDescription == element.trimmedDescription })
        {
            return "[\(element.trimmed)]"
        }
        if let call = expression.as(FunctionCallExprSyntax.self) { return constructed(by: call) }
        if let unwrapped = expression.as(ForceUnwrapExprSyntax.self),
            let call = unwrapped.expression.as(FunctionCallExprSyntax.self)
        {
            // `URL(string: "…")!`: a failable initialiser's result, unwrapped.
            return call.trailingClosure == nil ? named(call.calledExpression) : nil
        }
        if let member = expression.as(MemberAccessExprSyntax.self) { return owner(of: member) }
        return nil
    }

    /// The argument labels of the failable initialisers written as initial values:
    /// `Kind(rawValue:)`, `URL(string:)`, `UUID(uuidString:)`, `Data(base64Encoded:)`.
    private static let failableLabels: Set<String> = ["rawValue", "string", "uuidString", "base64Encoded"]

    /// `Date()`, `Set<String>()`, `Kind.custom("x")`: the type the call makes. A known failable
    /// initialiser (``failableLabels``, or a string literal converted: `Int("5")`) makes an
    /// optional, and has no type here unless it is unwrapped (`URL(string: "…")!`).
    private static func constructed(by call: FunctionCallExprSyntax) -> TypeSyntax? {
        guard call.trailingClosure == nil else { return nil }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), named(ExprSyntax(member)) == nil {
            // A case with associated values or a static factory: `Kind.custom("x")`.
            return owner(of: member)
        }
        let isFailable = call.arguments.contains { argument in
            argument.label.map { failableLabels.contains($0.text) }
                ?? (call.arguments.count == 1 && argument.expression.is(StringLiteralExprSyntax.self))
        }
        return isFailable ? nil : named(call.calledExpression)
    }

    /// `Kind.a`, `Date.now`: a lowercase member of a type, taken to be of that type (an enum's
    /// case, a type's static instance).
    private static func owner(of member: MemberAccessExprSyntax) -> TypeSyntax? {
        guard let base = member.base, startsUppercase(member.declName.baseName.text) == false,
            member.declName.baseName.text != "init"
        else { return nil }
        return named(base)
    }

    /// An expression that names a type: `Date`, `Foundation.Date`, `Set<String>`, `[String]`,
    /// `[String: Int]`.
    private static func named(_ expression: ExprSyntax) -> TypeSyntax? {
        if let reference = expression.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil,
            startsUppercase(reference.baseName.text), reference.baseName.text != "Self"
        {
            return TypeSyntax(IdentifierTypeSyntax(name: reference.baseName.trimmed))
        }
        if let generic = expression.as(GenericSpecializationExprSyntax.self), named(generic.expression) != nil {
            return "\(raw: generic.trimmedDescription)"
        }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base, named(base) != nil,
            startsUppercase(member.declName.baseName.text)
        {
            return "\(raw: member.trimmedDescription)"
        }
        if let array = expression.as(ArrayExprSyntax.self), array.elements.count == 1,
            let element = named(array.elements.first!.expression)
        {
            return "[\(element.trimmed)]"
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self),
            case .elements(let elements) = dictionary.content, elements.count == 1,
            let key = named(elements.first!.key), let value = named(elements.first!.value)
        {
            return "[\(key.trimmed): \(value.trimmed)]"
        }
        return nil
    }

    private static func startsUppercase(_ name: String) -> Bool {
        let name = name.hasPrefix("`") ? String(name.dropFirst()) : name
        return name.first?.isUppercase ?? false
    }
}

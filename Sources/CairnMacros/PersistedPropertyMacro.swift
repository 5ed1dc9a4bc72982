import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(i)`: turns a stored property of a model into accessors over a `_$` peer of
/// type `_PersistedValue`, which loads faults on read and records changes on write.
///
/// `@Model` attaches it to each persisted property with the property's index; users do not write it.
public enum PersistedPropertyMacro {
    /// The property's name, its storage's name and its types, or `nil` for a declaration `@Model`
    /// would not have marked (it has already reported why).
    private struct Property {
        let identifier: String
        let storage: String
        /// The name of the static key path the accessors pass to the observation registrar.
        let keyPathName: String
        let storageType: TypeSyntax

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self),
                variable.bindings.count == 1, let binding = variable.bindings.first,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
                let name = binding.plainName,
                let type = binding.declaredOrInferredType
            else { return nil }
            self.identifier = identifier.trimmedDescription
            self.storage = "_$\(name)"
            self.keyPathName = "_$keyPath_\(name)"
            self.storageType = PropertyType(type).storageType
        }
    }

    /// The class whose static key paths the accessors use, or `nil` when its properties cannot
    /// have them: a generic class (or one inside a generic type or function, which makes it
    /// generic) has no static stored properties, and inside an extension whether the extended type
    /// is generic cannot be told. Those accessors write the key path literal instead, which the
    /// runtime looks up at every call (about 90 instructions and a retain and release).
    static func keyPathOwner(in context: some MacroExpansionContext) -> String? {
        var owner: String?
        for node in context.lexicalContext {
            if let decl = node.asProtocol(WithGenericParametersSyntax.self), decl.genericParameterClause != nil {
                return nil
            }
            if node.is(ExtensionDeclSyntax.self) || node.is(ProtocolDeclSyntax.self) { return nil }
            if owner == nil {
                guard let decl = node.as(ClassDeclSyntax.self) else { return nil }
                owner = decl.name.trimmedDescription
            }
        }
        return owner
    }
}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = Property(declaration),
            case .argumentList(let arguments) = node.arguments,
            let index = arguments.first?.expression.trimmedDescription
        else { return [] }
        let storage = property.storage
        // The key path from a static of the class (made once), where it can have one.
        let keyPath = keyPathOwner(in: context).map { "\($0).\(property.keyPathName)" } ?? "\\.\(property.identifier)"
        return [
            """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
            \(raw: storage) = Cairn._PersistedValue(initialValue)
            }
            """,
            """
            get {
            _$access(\(raw: keyPath), \(raw: index))
            if !\(raw: storage).isLoaded { _$fulfill(\(raw: index)) }
            return \(raw: storage).value
            }
            """,
            """
            set {
            _$withMutation(\(raw: keyPath), \(raw: index)) {
            let oldValue = \(raw: storage).loadedValue
            \(raw: storage) = Cairn._PersistedValue(newValue)
            _$didSet(\(raw: index), from: oldValue, to: newValue)
            }
            }
            """,
            // A change in place (`books.append(b)`, `count += 1`) reads the value without
            // registering an observation access: a mutation is not a read, and registering one
            // would mark the property observed, which sends every later change of it through the
            // registrar (about 7,000 instructions each). The change is then set as `set` does,
            // also when it throws (as a stored property keeps a throwing change). A to-many
            // relationship's list is taken out of the storage for the change
            // (`_$beginChange`), so that an append does not copy it.
            """
            _modify {
            if !\(raw: storage).isLoaded { _$fulfill(\(raw: index)) }
            var value = \(raw: storage).value
            let inPlace = _$beginChange(\(raw: index), &\(raw: storage), &value)
            defer {
            self.\(raw: property.identifier) = value
            _$endChange(\(raw: index), inPlace)
            }
            yield &value
            }
            """,
        ]
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = Property(declaration) else { return [] }
        // Only the generated accessors touch the storage, each access instantaneous: no runtime
        // exclusivity check (two per getter otherwise).
        let storage: DeclSyntax =
            "@exclusivity(unchecked) private var \(raw: property.storage): Cairn._PersistedValue<\(property.storageType)>"
        guard let owner = keyPathOwner(in: context) else { return [storage] }
        // The key path the accessors hand the observation registrar, made once per class.
        return [
            storage, "private static let \(raw: property.keyPathName) = \\\(raw: owner).\(raw: property.identifier)",
        ]
    }
}

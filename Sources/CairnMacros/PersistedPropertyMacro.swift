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
        let storageType: TypeSyntax

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self),
                variable.bindings.count == 1, let binding = variable.bindings.first,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
                let name = binding.plainName,
                let type = binding.typeAnnotation?.type
            else { return nil }
            self.identifier = identifier.trimmedDescription
            self.storage = "_$\(name)"
            self.storageType = PropertyType(type).storageType
        }
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
        let keyPath = "\\.\(property.identifier)"
        return [
            """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
            \(raw: storage) = Cairn._PersistedValue(initialValue)
            }
            """,
            """
            get {
            _$modelState.access(self, keyPath: \(raw: keyPath), \(raw: index))
            if !\(raw: storage).isLoaded { _$fulfill(\(raw: index)) }
            return \(raw: storage).value
            }
            """,
            """
            set {
            _$modelState.withMutation(of: self, keyPath: \(raw: keyPath), \(raw: index)) {
            let oldValue = \(raw: storage).loadedValue
            \(raw: storage) = Cairn._PersistedValue(newValue)
            _$didSet(\(raw: index), from: oldValue, to: newValue)
            }
            }
            """,
            // A change in place (`books.append(b)`, `count += 1`) reads the value without
            // registering an observation access: a mutation is not a read, and registering one
            // marked the property observed, which sent every later change of it through the
            // registrar (about 7,000 instructions each). The change is then set as `set` does.
            """
            _modify {
            if !\(raw: storage).isLoaded { _$fulfill(\(raw: index)) }
            var value = \(raw: storage).value
            yield &value
            self.\(raw: property.identifier) = value
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
        return ["@exclusivity(unchecked) private var \(raw: property.storage): Cairn._PersistedValue<\(property.storageType)>"]
    }
}

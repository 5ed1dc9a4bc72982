import SwiftSyntax
import SwiftSyntaxBuilder

/// The members `@Model` adds to one class, in three groups: the model state with the fault
/// initialiser, the schema metadata, and the record codec (Docs/Macros.md lists them).
///
/// ```swift
/// let generated = GeneratedModelMembers(classDecl, members: ModelMember.classify(classDecl.memberBlock.members))
/// return generated.stateAndInitialiser + generated.schemaMetadata + generated.recordCodec
/// ```
struct GeneratedModelMembers {
    let className: String
    /// The access modifier of members that witness requirements (`GeneratedAccessLevel`).
    let access: String
    /// `open ` for a class whose subclasses may override its members from another module, else ``access``.
    let overridable: String
    let members: [ModelMember]
    let persisted: [ModelMember.PersistedProperty]
    let hierarchy: ModelSuperclass
    let indexes: PropertyIndexes

    init(_ classDecl: ClassDeclSyntax, members: [ModelMember]) {
        className = classDecl.name.trimmedDescription
        access = GeneratedAccessLevel.modifier(for: classDecl.modifiers)
        self.members = members
        persisted = members.compactMap(\.persistedProperty)
        hierarchy = ModelSuperclass(classDecl)
        indexes = PropertyIndexes(classDecl)
        overridable = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.open) } ? "open " : access
    }

    /// `override ` for a subclass's members.
    private var override: String { hierarchy.isSubclass ? "override " : "" }

    /// The model state (the root model's, for a subclass) and the fault initialiser: a fault's
    /// `var`s are unloaded; its `let`s take the stored values Cairn read for it.
    var stateAndInitialiser: [DeclSyntax] {
        let faultInitialisation = persisted.enumerated().map { index, property -> String in
            guard property.isConstant else { return "self._$\(property.name) = Cairn._PersistedValue()\n" }
            return "self.\(property.identifier.text) = _$constants.value(\(indexes.expression(index)))\n"
        }.joined()
        if let superclass = hierarchy.name {
            // The state, its offset and the registrar are the root model's; the subclass's
            // properties are numbered after its superclass's.
            return [
                "\(raw: access)static let \(raw: indexes.firstIndexName) = Cairn._persistedPropertyCount(of: \(raw: superclass).self)",
                """
                \(raw: access)required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                \(raw: faultInitialisation)super.init(_$modelState: _$modelState, _$constants: _$constants)
                }
                """,
            ]
        }
        // The state is stored in the model (one object per model, not two), and Cairn reaches
        // it in place at the offset the class finds once.
        return [
            "@exclusivity(unchecked) \(raw: access)var _$modelState = Cairn._ModelState()",
            "\(raw: access)static let _$modelStateOffset = Cairn._modelStateOffset(of: \(raw: className).self)",
            """
            \(raw: access)required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
            \(raw: faultInitialisation)self._$modelState = _$modelState
            }
            """,
        ]
    }

    /// `schemaMetadata`: one entry per persisted or transient property. In a hierarchy, the
    /// metadata is built for whichever class of it is described, so that a subclass's entity has
    /// its inherited properties with key paths rooted at itself.
    var schemaMetadata: [DeclSyntax] {
        let root = hierarchy.isInHierarchy ? "Root" : className
        var metadata: [String] = []
        var index = 0
        for member in members {
            switch member {
            case .persisted(let property):
                metadata.append(ModelMacro.persistedMetadata(property, index: indexes.expression(index), root: root))
                index += 1
            case .transient(let names):
                metadata += names.map {
                    "Cairn.Schema.PropertyMetadata(transient: \"\($0)\", keyPath: \\\(root).\($0))"
                }
            case .rejected, .untouched:
                continue
            }
        }
        let metadataList = metadata.isEmpty ? "[]" : "[\n\(metadata.map { "\($0),\n" }.joined())]"
        guard hierarchy.isInHierarchy else {
            return [
                """
                \(raw: access)static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                \(raw: metadataList)
                }
                """
            ]
        }
        let inherited = hierarchy.name.map { "\(ModelMacro.metadataFunction(of: $0))(rootedAt: root) + " } ?? ""
        return [
            """
            \(raw: overridable)\(raw: override)class var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
            \(raw: ModelMacro.metadataFunction(of: className))(rootedAt: self)
            }
            """,
            """
            \(raw: overridable)class func \(raw: ModelMacro.metadataFunction(of: className))<Root: \(raw: className)>(rootedAt root: Root.Type) -> [Cairn.Schema.PropertyMetadata] {
            \(raw: inherited)\(raw: metadataList)
            }
            """,
        ]
    }

    /// The record codec: every persisted property's storage, in declaration order; the type of
    /// each picks its function (a relationship's writes and reads nothing). A `let` is written
    /// from a copy of its value and never read back (it cannot change).
    var recordCodec: [DeclSyntax] {
        let encodeFields = persisted.enumerated().map { index, property in
            property.isConstant
                ? "do {\nvar value = Cairn._PersistedValue(self.\(property.identifier.text))\n"
                    + "try encoder.encode(&value, \(indexes.expression(index)))\n}\n"
                : "try encoder.encode(\(property.isStoredAsData ? "transformed: " : "")&_$\(property.name), "
                    + "\(indexes.expression(index)))\n"
        }.joined()
        let decodeFields = persisted.enumerated().filter { !$1.isConstant }.map {
            "try decoder.decode(\($1.isStoredAsData ? "transformed: " : "")&_$\($1.name), \(indexes.expression($0)))\n"
        }.joined()
        let callSuper = hierarchy.isSubclass
        let modifiers = (hierarchy.isInHierarchy ? overridable : access) + override
        return [
            """
            \(raw: modifiers)func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
            \(raw: callSuper ? "try super._$encodeFields(into: &encoder)\n" : "")\(raw: encodeFields)}
            """,
            """
            \(raw: modifiers)func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
            \(raw: callSuper ? "try super._$decodeFields(from: &decoder)\n" : "")\(raw: decodeFields)}
            """,
        ]
    }
}

import CairnStorage
import Foundation

/// Where an aggregate or a grouping reads its value of each row: a stored field, a to-one
/// relationship's target and its field, or, for any other key path, a model.
///
/// ```swift
/// switch AggregateSource(\Book.author?.name, tables: tables, store: store) {
/// case .related(let related): …   // the edges of Book.author, then Author's field "name"
/// default: …
/// }
/// ```
enum AggregateSource {
    /// A stored attribute of the entity, read from its record without making a model.
    case field(StoredField)
    /// A stored attribute of a to-one relationship's target (`\Book.author?.name`): the row's
    /// edge names the target, whose record holds the field.
    case related(relationship: Schema.Relationship, edges: Table, field: StoredField)
    /// Anything else (a computed property, a `.codable` or transformed attribute, a path through
    /// several relationships): the key path, evaluated on each model.
    case model(AnyKeyPath)

    /// A stored attribute of an entity, as its records hold it.
    struct StoredField {
        let tables: Store.EntityTables
        let attribute: Schema.Attribute
        let tag: UInt32
        /// The attribute's type, unwrapped from its optional.
        let native: any NativeValue.Type

        /// What an absent field holds: the attribute's default value, or `nil` for an optional.
        var absent: Any? { attribute.isOptional ? nil : attribute.defaultValue }

        /// The attribute as a stored field of `tables`' records, when its records hold it as a
        /// native value (not transient, not in external storage, not encoded as a whole).
        init?(_ attribute: Schema.Attribute, of tables: Store.EntityTables) {
            guard !attribute.isTransient, !attribute.options.contains(.externalStorage),
                attribute.access?.appendKey != nil, let tag = tables.codec.tags[attribute.name],
                let native = NativeValues.type(of: attribute.valueType)?.native
            else { return nil }
            (self.tables, self.attribute, self.tag, self.native) = (tables, attribute, tag, native)
        }

        /// The value a field (`nil`: absent) holds, boxed as the attribute's type (an optional's
        /// `nil` for an absent optional).
        func value(of field: FieldPayload?) throws(StorageError) -> Any? {
            guard let field else { return absent }
            return try native.init(fieldPayload: field)
        }
    }

    /// Where `keyPath`, applied to models of `tables`' entity, reads its value.
    init(_ keyPath: AnyKeyPath, tables: Store.EntityTables, store: Store) {
        if let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }) {
            self = StoredField(attribute, of: tables).map { .field($0) } ?? .model(keyPath)
            return
        }
        self = Self.related(keyPath, tables: tables, store: store) ?? .model(keyPath)
    }

    /// `keyPath` as a to-one relationship followed by a stored attribute of its target, when it
    /// is one. Key paths have no public structure, so it is recognised by its description
    /// (`\Book.author?.name?`) against those of the relationship and the attribute; a path it
    /// does not recognise is evaluated on models, which is slower but gives the same values.
    private static func related(_ keyPath: AnyKeyPath, tables: Store.EntityTables, store: Store) -> Self? {
        let description = String(describing: keyPath)
        for relationship in tables.entity.relationships where relationship.isToOneRelationship {
            let owner = String(describing: relationship.keyPath)
            guard description.hasPrefix(owner), let destination = store.entitiesByName[relationship.internedDestination]
            else { continue }
            for attribute in destination.entity.attributes {
                let path = String(describing: attribute.keyPath)
                // `\Author.name` → `.name`
                guard let dot = path.firstIndex(of: ".") else { continue }
                let member = path[dot...]
                let spellings = [owner + member, owner + "?" + member, owner + "?" + member + "?", owner + "!" + member]
                guard spellings.contains(description), let field = StoredField(attribute, of: destination) else {
                    continue
                }
                return .related(relationship: relationship, edges: tables.edgeTable(of: relationship), field: field)
            }
        }
        return nil
    }

    /// Whether the value is read without a model.
    var isStored: Bool {
        if case .model = self { return false }
        return true
    }
}

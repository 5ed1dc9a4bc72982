import Foundation

/// What a store remembers about each entity between runs: the stable tag of every attribute's
/// record field, and its relationships.
///
/// Records carry attributes by tag (see `Docs/Design.md`, "Records"), so a tag must mean the same
/// attribute forever. A new attribute gets the entity's next tag; a renamed one
/// (`@Attribute(originalName:)`) keeps its old tag; a removed one's tag is never given out again.
/// The stored type of an attribute must stay the same (optionality may change), or opening fails
/// with a ``SchemaError`` that says what to do.
///
/// Stored in the `meta` table under `entity:<Name>`, encoded with the binary coder.
struct StoredEntity: Codable, Equatable {
    struct StoredAttribute: Codable, Equatable {
        var name: String
        var tag: UInt32
        /// The attribute's type without optionality, as `String(reflecting:)` prints it.
        var type: String
        /// Whether rows stored before the attribute existed may lack it; such an attribute must
        /// stay optional or keep a default value.
        var mayBeAbsent: Bool
        /// Whether the attribute is declared optional, whose keys carry a presence byte: a note
        /// for tools that compute keys from records (`cairn verify`); `nil` in descriptions
        /// recorded before it was kept.
        var isOptional: Bool?
    }

    struct StoredRelationship: Codable, Equatable {
        var name: String
        var destination: String
        var isToMany: Bool
        /// The inverse relationship's name, if it has one. This and the two below describe the
        /// store for tools that read it without the app's models (`cairn verify`); `nil` in
        /// descriptions recorded before they were kept.
        var inverse: String?
        /// The delete rule's name (``Schema/Relationship/DeleteRule``).
        var deleteRule: String?
        /// The table that holds its edges: `r/<the entity that declares it>/<name>`.
        var table: String?
    }

    var name: String
    var attributes: [StoredAttribute]
    var relationships: [StoredRelationship]
    /// The next tag to give out; tags start at 1 and are never reused. In a hierarchy of models,
    /// every member's is the hierarchy's next tag, so that no two of its attributes share a field.
    var nextTag: UInt32
    /// For the root of a hierarchy of models, its subentities in the order they got their class
    /// numbers (1, 2, …: the top bits of their row ids); `nil` for any other entity.
    var subentityNames: [String]?
    /// The entity this one inherits from, if any (for tools that read the store without the
    /// app's models); `nil` also in descriptions recorded before it was kept.
    var superentity: String?

    init(name: String) {
        self.name = name
        attributes = []
        relationships = []
        nextTag = 1
    }

    /// Checks what the record format relies on: every tag in 1 … 2²⁹−1, no tag twice, and the
    /// next tag above them all and still a valid tag. A description that breaks this (one that
    /// passed its checksum, so written wrongly rather than damaged on disk) would otherwise stop
    /// the program in the record writer, or give two attributes one field.
    ///
    /// - Throws: `StorageError` `.damagedRecord` naming the entity.
    func validate() throws(StorageError) {
        var seen = Set<UInt32>()
        for attribute in attributes {
            guard attribute.tag >= 1, attribute.tag < nextTag, seen.insert(attribute.tag).inserted else {
                throw EntryLayout.damagedDescription(
                    key: StoreLayout.entityDescriptionKey(name),
                    "gives \(name).\(attribute.name) the tag \(attribute.tag), which is out of range or taken")
            }
        }
        guard nextTag >= 1, nextTag <= RecordWriter.maximumTag else {
            throw EntryLayout.damagedDescription(
                key: StoreLayout.entityDescriptionKey(name), "holds the next tag \(nextTag), outside 1 … 2^29-1")
        }
    }

    /// Brings the stored entity up to date with `entity`, returning the tag of each persisted
    /// attribute by name. `hasRows` says whether the entity has stored rows already, which an
    /// attribute added now will be missing from.
    ///
    /// - Throws: ``SchemaError`` `.incompatibleStore` when an attribute's stored type differs, or
    ///   when a required attribute without a default value may be missing from stored rows.
    ///
    /// An attribute named in `inherited` (one a subentity inherits) takes its superentity's tag:
    /// the hierarchy's rows share one table, where a field means one attribute.
    ///
    /// Where the description alone would refuse, `storedValues` reads what the rows hold under a
    /// tag, and the rows decide, not the schema's past: a required attribute that rows may lack
    /// (added, or optional, after rows were stored) is accepted when every row has a value (a
    /// migration stage gave each one), and a changed type by ``takesValues(stored:declared:_:)``.
    mutating func reconcile(
        with entity: Schema.Entity, hasRows: Bool, inherited: [String: UInt32] = [:],
        storedValues: (UInt32, Schema.Attribute) -> StoredValues = { _, _ in .unknown }
    ) throws(SchemaError) -> [String: UInt32] {
        var tags: [String: UInt32] = [:]
        var current: [StoredAttribute] = []
        // An ephemeral attribute has no field: it is never written.
        for case let attribute as Schema.Attribute in entity.storedProperties where !attribute.isEphemeral {
            let type = Self.storedType(of: attribute)
            // What the rows hold under the attribute's tag, read (a scan of the records) only when
            // the description alone would refuse, and then once.
            var rowsRead: StoredValues?
            func values(under tag: UInt32) -> StoredValues {
                if let rowsRead { return rowsRead }
                let read = storedValues(tag, attribute)
                rowsRead = read
                return read
            }
            let stored =
                attributes.first { $0.name == attribute.name }
                ?? attributes.first { $0.name == attribute.originalName && attribute.originalName != attribute.name }
            if let tag = inherited[attribute.name], stored.map({ $0.tag != tag }) ?? true {
                // Inherited: the superentity's field, whatever this entity's description held.
                guard stored == nil else {
                    throw SchemaError(
                        code: .incompatibleStore, entity: entity.name, property: attribute.name,
                        message: "\(entity.name).\(attribute.name) is now inherited from "
                            + (entity.superentityName ?? "its superclass")
                            + ", but the store holds \(entity.name)'s own values for it. Give one of the two "
                            + "properties another name.")
                }
                tags[attribute.name] = tag
                current.append(
                    StoredAttribute(
                        name: attribute.name, tag: tag, type: type, mayBeAbsent: hasRows,
                        isOptional: attribute.isOptional))
                nextTag = max(nextTag, tag + 1)
            } else if let stored {
                // Either platform's spelling of Foundation's types (StoredTypeName) is the same type.
                let sameType = StoredTypeName.canonical(stored.type) == type
                guard
                    sameType
                        || Self.takesValues(stored: stored.type, declared: type, values(under: stored.tag))
                else {
                    throw SchemaError(
                        code: .incompatibleStore, entity: entity.name, property: attribute.name,
                        message:
                            "\(entity.name).\(attribute.name) is stored as \(stored.type) but declared as \(type). "
                            + "Declare it as \(stored.type) again, or give the new property another name (its stored "
                            + "values stay behind under the old one).")
                }
                tags[attribute.name] = stored.tag
                current.append(
                    StoredAttribute(
                        name: attribute.name, tag: stored.tag, type: sameType ? stored.type : type,
                        mayBeAbsent: stored.mayBeAbsent, isOptional: attribute.isOptional))
            } else {
                tags[attribute.name] = nextTag
                current.append(
                    StoredAttribute(
                        name: attribute.name, tag: nextTag, type: type, mayBeAbsent: hasRows,
                        isOptional: attribute.isOptional))
                nextTag += 1
            }
            if current.last!.mayBeAbsent && !attribute.isOptional && attribute.defaultValue == nil
                && values(under: current.last!.tag).inEveryRow
            {
                current[current.count - 1].mayBeAbsent = false
            }
            if current.last!.mayBeAbsent && !attribute.isOptional && attribute.defaultValue == nil {
                throw SchemaError(
                    code: .incompatibleStore, entity: entity.name, property: attribute.name,
                    message: "\(entity.name).\(attribute.name) did not exist when some \(entity.name)s were stored, so "
                        + "they have no value for it. To read them, give it a default value, make it optional, or "
                        + "give every row a value in a custom migration stage's willMigrate.")
            }
        }
        // Attributes no longer declared keep their entries, so their tags are never reused and
        // declaring them again (under the same name) finds their values.
        let kept = attributes.filter { old in
            !current.contains { $0.tag == old.tag } && !current.contains { $0.name == old.name }
        }
        attributes = current + kept
        relationships = entity.relationships.sorted { $0.index < $1.index }.map { relationship in
            let declaring = entity.declaring { $0.relationshipsByName[relationship.name] != nil }
            return StoredRelationship(
                name: relationship.name, destination: relationship.destination,
                isToMany: !relationship.isToOneRelationship, inverse: relationship.inverseName,
                deleteRule: relationship.deleteRule.rawValue,
                table: StoreLayout.edgeTable(of: declaring.name, relationship.name))
        }
        superentity = entity.superentity?.name
        return tags
    }

    /// Whether the description says the same as `other` about the store's contents (attributes,
    /// tags, relationships, subentities), whatever their notes for tools (optionality, inverses,
    /// delete rules, edge tables, superentity) say: a read-only store whose description lacks the notes opens.
    func hasTheSameContents(as other: StoredEntity) -> Bool {
        var noted = other
        noted.superentity = superentity
        for index in noted.attributes.indices where index < attributes.count {
            noted.attributes[index].isOptional = attributes[index].isOptional
        }
        for index in noted.relationships.indices where index < relationships.count {
            noted.relationships[index].inverse = relationships[index].inverse
            noted.relationships[index].deleteRule = relationships[index].deleteRule
            noted.relationships[index].table = relationships[index].table
        }
        return noted == self
    }

    /// What the stored rows hold under one attribute's tag: how many rows there are, how many
    /// hold a value, and whether every value reads as the attribute's declared type.
    struct StoredValues {
        var rows = 0
        var count = 0
        var allRead = true

        /// What cannot be known (rows not read): nothing is taken on trust.
        static let unknown = StoredValues(rows: 1, count: 0, allRead: false)

        /// Whether every row holds a value that reads.
        var inEveryRow: Bool { allRead && count == rows }
    }

    /// Whether an attribute stored as type `stored` takes values of type `declared`: when no row
    /// holds a value of it (a stage deleted them, or none was ever set), or when the two are one
    /// type declared again elsewhere (a Codable type nested in each `VersionedSchema`: the same
    /// name but for its qualifiers) and every stored value reads as the new one. A stored value
    /// is known by its shape, not by where its type was declared.
    static func takesValues(stored: String, declared: String, _ values: StoredValues) -> Bool {
        guard values.allRead else { return false }
        return values.count == 0 || unqualified(StoredTypeName.canonical(stored)) == unqualified(declared)
    }

    /// A type name without its modules and enclosing types: `App.SchemaV1.Address` → `Address`,
    /// `Swift.Array<App.SchemaV1.Tag>` → `Array<Tag>`.
    static func unqualified(_ name: String) -> String {
        var result = ""
        var identifier = ""
        for character in name {
            if character.isLetter || character.isNumber || character == "_" {
                identifier.append(character)
            } else if character == "." {
                identifier = ""
            } else {
                result += identifier + String(character)
                identifier = ""
            }
        }
        return result + identifier
    }

    /// How an attribute's type is recorded: a transformable value is stored as its transformer's
    /// bytes, which only a transformer reads; a `.codable` one as its type's own encoding, whose
    /// shape the store never knows; any other by its type's name.
    static func storedType(of attribute: Schema.Attribute) -> String {
        let name = typeName(attribute.valueType)
        if attribute.options.contains(where: { $0.transformer != nil }) { return "transformable \(name)" }
        return attribute.isCodable ? "codable \(name)" : name
    }

    /// A type's name without optionality, so `String` and `String?` store alike, in the
    /// spelling every platform shares (``StoredTypeName/canonical(_:)``).
    static func typeName(_ type: any Any.Type) -> String {
        var name = StoredTypeName.canonical(String(reflecting: type))
        while name.hasPrefix("Swift.Optional<"), name.hasSuffix(">") {
            name = String(name.dropFirst("Swift.Optional<".count).dropLast())
        }
        return name
    }
}

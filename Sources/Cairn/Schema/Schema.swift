import CairnStorage
import Foundation

/// The models a store holds: one ``Entity`` per model class, with its attributes, relationships,
/// constraints and indexes.
///
/// Create it from your model types, as in SwiftData. Relationship inverses are paired when it is
/// created: an explicit `inverse:` on either side, or, when there is exactly one candidate, the
/// relationship of the other model that points back. ``validate()`` reports anything that would
/// make the schema unusable; a container validates its schema when it opens.
///
/// ```swift
/// let schema = Schema([Author.self, Book.self, Chapter.self])
/// try schema.validate()
/// for entity in schema.entities { print(entity.name) }
/// ```
// @unchecked Sendable: a schema and its entities, attributes and relationships never change after
// `init` returns (inverse names are paired inside it), so sharing them across threads is safe.
public final class Schema: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The entities, in the order their types were given.
    ///
    /// ```swift
    /// schema.entities.map(\.name)   // ["Author", "Book", "Chapter"]
    /// ```
    public let entities: [Entity]
    /// The entities by name.
    ///
    /// ```swift
    /// schema.entitiesByName["Book"]?.attributes.count
    /// ```
    public let entitiesByName: [String: Entity]
    /// The schema's version.
    ///
    /// ```swift
    /// schema.version   // 1.0.0
    /// ```
    public let version: Version
    /// Problems found while pairing relationships, reported by ``validate()``.
    private let problems: [SchemaError]

    /// Creates a schema from model types.
    ///
    /// ```swift
    /// let schema = Schema([Author.self, Book.self])
    /// ```
    /// Models that the given ones reach through relationships are included as well, after the
    /// given ones, as in SwiftData: listing the root of a graph is enough.
    ///
    /// ```swift
    /// let schema = Schema([Author.self])   // Author, and Book through Author.books
    /// ```
    /// - Parameters:
    ///   - types: The model classes. Classes their relationships point at are added.
    ///   - version: The schema's version.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.version = version
        var entities: [Entity] = []
        var problems: [SchemaError] = []
        // The given types first, in their order, then every model their relationships reach, as
        // SwiftData includes them: `Schema([Invoice.self])` holds `Customer` too.
        var pending = types[...]
        var seen: Set<ObjectIdentifier> = []
        while let type = pending.popFirst() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let entity = Entity(type)
            // A model's superclass is a model of the schema too (its rows are read through it).
            if let superclass = Self.superclass(of: type) { pending.append(superclass) }
            pending.append(contentsOf: entity.relationships.sorted { $0.index < $1.index }.map(\.destinationType))
            if entities.contains(where: { $0.name == entity.name }) {
                problems.append(
                    SchemaError(
                        code: .duplicateEntity, entity: entity.name, property: nil,
                        message:
                            "Two model classes are named \(entity.name). Rename one of them: entity names are class "
                            + "names and must be unique in a schema."))
                continue
            }
            entities.append(entity)
        }
        self.entities = entities
        entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let byName = entitiesByName
        for entity in entities {
            guard let superentity = entity.superentityName.flatMap({ byName[$0] }) else { continue }
            entity.superentity = superentity
            superentity.subentities.insert(entity)
        }
        problems += entities.flatMap(\.problems)
        problems += Self.pairInverses(entities, byName: entitiesByName)
        self.problems = problems
    }

    /// The model class `type` inherits from (`@Model class Dog: Animal`), if any.
    static func superclass(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        _getSuperclass(type) as? any PersistentModel.Type
    }

    /// Creates a schema from model types.
    ///
    /// ```swift
    /// let schema = Schema(Author.self, Book.self)
    /// ```
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// Creates a schema from a versioned schema's models and version.
    ///
    /// ```swift
    /// let schema = Schema(versionedSchema: LibrarySchemaV2.self)
    /// ```
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The entity of a model class, or `nil` if the class is not in the schema.
    ///
    /// ```swift
    /// let book = schema.entity(for: Book.self)
    /// ```
    public func entity<Model: PersistentModel>(for type: Model.Type) -> Entity? {
        entities.first { $0.modelType == type }
    }

    /// Checks that the schema can be used to open a store.
    ///
    /// It checks that every relationship points at a model in the schema, that inverses name
    /// each other and point back, that uniqueness constraints and indexes name stored attributes,
    /// that model counts are consistent, and that entity names are unique.
    ///
    /// ```swift
    /// do {
    ///     try Schema([Book.self]).validate()
    /// } catch let error as SchemaError {
    ///     print(error.message)   // "Book.author points at Author, which is not in the schema. …"
    /// }
    /// ```
    /// - Throws: ``SchemaError`` for the first problem found; its message says how to fix it.
    public func validate() throws(SchemaError) {
        if let problem = problems.first { throw problem }
    }

    /// Schemas are equal when they hold the same model classes and version.
    ///
    /// ```swift
    /// Schema([Book.self]) == Schema([Book.self])   // true
    /// ```
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities == rhs.entities
    }

    /// Hashes the version and the entities.
    ///
    /// ```swift
    /// let schemas: Set<Schema> = [schema]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities)
    }

    /// The version and every entity.
    ///
    /// ```swift
    /// print(schema)
    /// ```
    public var description: String {
        "Schema \(version)\n" + entities.map { "  \($0)" }.joined(separator: "\n")
    }

    /// The entity name of a model class: its unqualified type name, as in SwiftData. Cached:
    /// `String(describing:)` costs thousands of instructions, and a new model asked for its
    /// identifier before it is inserted needs the name.
    package static func entityName(of type: any PersistentModel.Type) -> String {
        EntityNames.shared.name(of: type)
    }

    /// The entity name of a model class, interned (see ``InternedName``).
    static func internedEntityName(of type: any PersistentModel.Type) -> InternedName {
        EntityNames.shared.interned(type)
    }

    /// Pairs each relationship with its inverse and reports inconsistencies: the inverses the
    /// models name, then the ones inferred, then those of inherited relationships.
    private static func pairInverses(_ entities: [Entity], byName: [String: Entity]) -> [SchemaError] {
        var problems: [SchemaError] = []
        for entity in entities {
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index })
            where !isInherited(relationship, of: entity) {
                if let problem = pairNamedInverse(of: relationship, in: entity, entities: entities) {
                    problems.append(problem)
                }
            }
        }
        inferInverses(entities, byName: byName)
        for entity in entities {
            for relationship in entity.relationships where isInherited(relationship, of: entity) {
                let declaring = entity.declaring { $0.relationshipsByName[relationship.name] != nil }
                relationship.inverseName = declaring.relationshipsByName[relationship.name]?.inverseName
            }
        }
        return problems
    }

    /// A relationship a subentity inherits is paired where it is declared, and takes that pairing:
    /// its inverse points at the superentity, whose rows include the subentity's.
    private static func isInherited(_ relationship: Relationship, of entity: Entity) -> Bool {
        entity.superentity?.relationshipsByName[relationship.name] != nil
    }

    /// Checks one declared relationship (its destination, its counts) and pairs it with the
    /// inverse it names, if any.
    ///
    /// - Returns: What is wrong with it, or `nil`.
    private static func pairNamedInverse(
        of relationship: Relationship, in entity: Entity, entities: [Entity]
    ) -> SchemaError? {
        let label = "\(entity.name).\(relationship.name)"
        func problem(_ code: SchemaError.Code, _ message: String) -> SchemaError {
            SchemaError(code: code, entity: entity.name, property: relationship.name, message: message)
        }
        guard let destination = entities.first(where: { $0.modelType == relationship.destinationType }) else {
            return problem(
                .missingEntity,
                "\(label) points at \(relationship.destination), which is not in the schema. "
                    + "Add \(relationship.destination).self to the schema's model types.")
        }
        let (minimum, maximum) = (relationship.minimumModelCount, relationship.maximumModelCount)
        if minimum ?? 0 < 0 || maximum ?? 0 < 0 || (maximum.map { (minimum ?? 0) > $0 } ?? false) {
            return problem(
                .invalidProperty,
                "\(label) has minimumModelCount \(minimum ?? 0) and maximumModelCount \(maximum ?? 0). Use counts of 0 "
                    + "or more, with the minimum at most the maximum (0 means no limit).")
        }
        guard let inverseKeyPath = relationship.inverseKeyPath else { return nil }
        guard let inverse = destination.relationships.first(where: { $0.keyPath == inverseKeyPath }),
            inverse.destinationType == entity.modelType
        else {
            return problem(
                .invalidInverse,
                "\(label) names \(inverseKeyPath) as its inverse, but that is not a relationship "
                    + "of \(destination.name) pointing back at \(entity.name). Name a relationship of "
                    + "\(destination.name) whose type is \(entity.name), \(entity.name)? or [\(entity.name)].")
        }
        if let other = inverse.inverseKeyPath, other != relationship.keyPath {
            return problem(
                .inverseMismatch,
                "\(label) names \(destination.name).\(inverse.name) as its inverse, but "
                    + "\(destination.name).\(inverse.name) names \(other) as its own. Make the two "
                    + "relationships name each other, or give the inverse on one side only.")
        }
        if let claimed = inverse.inverseName, claimed != relationship.name {
            return problem(
                .inverseMismatch,
                "\(label) and \(entity.name).\(claimed) both name \(destination.name).\(inverse.name) "
                    + "as their inverse. A relationship has one inverse: give each its own relationship "
                    + "on \(destination.name).")
        }
        if inverse === relationship {
            return problem(
                .invalidInverse,
                "\(label) names itself as its inverse. Name the other side of the relationship, or remove the inverse.")
        }
        relationship.inverseName = inverse.name
        inverse.inverseName = relationship.name
        return nil
    }

    /// The relationships of `entity` that point at `destination`'s class, name no inverse and
    /// have none yet, other than `excluded`.
    private static func unpaired(
        of entity: Entity, pointingAt destination: Entity, besides excluded: Relationship
    ) -> [Relationship] {
        entity.relationships.filter {
            $0 !== excluded && $0.destinationType == destination.modelType && $0.inverseName == nil
                && $0.inverseKeyPath == nil
        }
    }

    /// Inference: a relationship without an explicit inverse pairs with the only relationship of
    /// its destination that points back and is not paired yet, when it is that one's only such too.
    private static func inferInverses(_ entities: [Entity], byName: [String: Entity]) {
        for entity in entities {
            for relationship in entity.relationships.sorted(by: { $0.index < $1.index })
            where relationship.inverseName == nil && relationship.inverseKeyPath == nil
                && !isInherited(relationship, of: entity)
            {
                guard let destination = byName[relationship.destination],
                    destination.modelType == relationship.destinationType
                else { continue }
                let candidates = unpaired(of: destination, pointingAt: entity, besides: relationship)
                guard candidates.count == 1, let candidate = candidates.first else { continue }
                let reverse = unpaired(of: entity, pointingAt: destination, besides: candidate)
                guard reverse.count == 1, reverse.first === relationship else { continue }
                relationship.inverseName = candidate.name
                candidate.inverseName = relationship.name
            }
        }
    }
}

/// Entity names by model class, computed once per class.
private final class EntityNames: @unchecked Sendable {
    static let shared = EntityNames()
    private let lock = NSLock()
    private var names: [ObjectIdentifier: InternedName] = [:]

    func name(of type: any PersistentModel.Type) -> String { interned(type).text }

    func interned(_ type: any PersistentModel.Type) -> InternedName {
        let key = ObjectIdentifier(type)
        if let name = lock.withLock({ names[key] }) { return name }
        let name = InternedName(String(describing: type))
        lock.withLock { names[key] = name }
        return name
    }
}

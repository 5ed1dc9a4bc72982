extension Schema {
    /// A relationship of an entity: a reference to one other model, or a list of them.
    ///
    /// ```swift
    /// let chapters = schema.entity(for: Book.self)!.relationshipsByName["chapters"]!
    /// print(chapters.destination, chapters.inverseName ?? "-", chapters.deleteRule)   // Chapter book cascade
    /// ```
    // @unchecked Sendable: `inverseName` is set only while its Schema's init runs.
    public final class Relationship: SchemaProperty, @unchecked Sendable {
        /// The relationship's name.
        ///
        /// ```swift
        /// relationship.name   // "chapters"
        /// ```
        public let name: String
        /// The relationship's name in an earlier schema version, or its name.
        ///
        /// ```swift
        /// relationship.originalName   // "pages"
        /// ```
        public let originalName: String
        /// The relationship's options.
        ///
        /// ```swift
        /// relationship.options.contains(.unique)
        /// ```
        public let options: [Option]
        /// What deleting the owner does to the related models.
        ///
        /// ```swift
        /// relationship.deleteRule   // .cascade
        /// ```
        public let deleteRule: DeleteRule
        /// The fewest related models a save accepts; `nil` for no minimum.
        ///
        /// ```swift
        /// relationship.minimumModelCount   // 1
        /// ```
        public let minimumModelCount: Int?
        /// The most related models a save accepts; `nil` for no maximum.
        ///
        /// ```swift
        /// relationship.maximumModelCount   // 10
        /// ```
        public let maximumModelCount: Int?
        /// Whether a save checks how many models the relationship holds (it has a minimum or a
        /// maximum).
        var hasCountBounds: Bool { minimumModelCount != nil || maximumModelCount != nil }
        /// The name of the entity the relationship points at.
        ///
        /// ```swift
        /// relationship.destination   // "Chapter"
        /// ```
        public let destination: String
        /// ``destination``, interned (see ``InternedName``).
        let internedDestination: InternedName
        /// The name of the destination's relationship that points back, if there is one (given
        /// with `inverse:` or inferred).
        ///
        /// ```swift
        /// relationship.inverseName   // "book"
        /// ```
        public internal(set) var inverseName: String?
        /// The inverse given with `inverse:`, if any.
        ///
        /// ```swift
        /// relationship.inverseKeyPath == \Chapter.book
        /// ```
        public let inverseKeyPath: AnyKeyPath?
        /// Whether the relationship holds at most one model.
        ///
        /// ```swift
        /// relationship.isToOneRelationship   // false for [Chapter]
        /// ```
        public let isToOneRelationship: Bool
        /// Whether the relationship's type is optional.
        ///
        /// ```swift
        /// relationship.isOptional   // true for Author?
        /// ```
        public let isOptional: Bool
        /// The relationship's declared type, such as `[Chapter].self`.
        ///
        /// ```swift
        /// relationship.valueType == [Chapter].self
        /// ```
        public let valueType: any Any.Type
        /// The relationship's hash modifier.
        ///
        /// ```swift
        /// relationship.hashModifier   // nil
        /// ```
        public let hashModifier: String?
        /// The key path of the property.
        ///
        /// ```swift
        /// relationship.keyPath == \Book.chapters
        /// ```
        public let keyPath: AnyKeyPath
        /// The destination's model type.
        let destinationType: any PersistentModel.Type
        /// The position among the entity's persisted properties.
        let index: Int
        /// The generated storage's key path.
        let storage: AnyKeyPath
        /// How the model layer reads, sets and loads the targets.
        let access: RelationshipAccess

        /// Always `false`.
        ///
        /// ```swift
        /// relationship.isAttribute   // false
        /// ```
        public var isAttribute: Bool { false }
        /// Always `true`.
        ///
        /// ```swift
        /// relationship.isRelationship   // true
        /// ```
        public var isRelationship: Bool { true }
        /// Always `false`: transient properties are attributes.
        ///
        /// ```swift
        /// relationship.isTransient   // false
        /// ```
        public var isTransient: Bool { false }
        /// Whether the relationship has the ``Option/unique`` option.
        ///
        /// ```swift
        /// relationship.isUnique
        /// ```
        public var isUnique: Bool { options.contains(.unique) }

        init(
            name: String, metadata: RelationshipMetadata, destinationType: any PersistentModel.Type,
            isToMany: Bool, isOptional: Bool, valueType: any Any.Type, keyPath: AnyKeyPath, index: Int,
            storage: AnyKeyPath, access: RelationshipAccess
        ) {
            self.access = access
            self.name = name
            self.originalName = metadata.originalName ?? name
            self.options = metadata.options
            self.deleteRule = metadata.deleteRule
            // 0 means "no limit", as in SwiftData.
            self.minimumModelCount = metadata.minimumModelCount.flatMap { $0 == 0 ? nil : $0 }
            self.maximumModelCount = metadata.maximumModelCount.flatMap { $0 == 0 ? nil : $0 }
            self.destination = Schema.entityName(of: destinationType)
            self.internedDestination = Schema.internedEntityName(of: destinationType)
            self.inverseKeyPath = metadata.inverse
            self.isToOneRelationship = !isToMany
            self.isOptional = isOptional
            self.valueType = valueType
            self.hashModifier = metadata.hashModifier
            self.keyPath = keyPath
            self.destinationType = destinationType
            self.index = index
            self.storage = storage
        }

        /// Relationships are equal when they describe the same property.
        ///
        /// ```swift
        /// entity.relationships.contains(relationship)
        /// ```
        public static func == (lhs: Relationship, rhs: Relationship) -> Bool { lhs.keyPath == rhs.keyPath }

        /// Hashes the relationship's key path.
        ///
        /// ```swift
        /// var seen: Set<Schema.Relationship> = []
        /// ```
        public func hash(into hasher: inout Hasher) { hasher.combine(keyPath) }

        /// The relationship's name, destination, inverse and delete rule.
        ///
        /// ```swift
        /// print(relationship)   // "chapters: [Chapter] ↔ Chapter.book, cascade"
        /// ```
        public var description: String {
            "\(name): \(isToOneRelationship ? destination : "[\(destination)]")"
                + (inverseName.map { " ↔ \(destination).\($0)" } ?? "") + ", \(deleteRule)"
        }
    }
}

extension Schema {
    /// One model class as the schema sees it: its attributes, relationships, uniqueness
    /// constraints and indexes.
    ///
    /// ```swift
    /// let book = schema.entity(for: Book.self)!
    /// print(book.name, book.attributes.count, book.uniquenessConstraints)   // Book 5 [["isbn"]]
    /// ```
    // @unchecked Sendable: immutable once its Schema's init returns.
    public final class Entity: Hashable, CustomStringConvertible, @unchecked Sendable {
        /// The entity's name: the model class's name.
        ///
        /// ```swift
        /// entity.name   // "Book"
        /// ```
        public let name: String
        /// Every property, persisted and transient, in declaration order.
        ///
        /// ```swift
        /// entity.properties.map(\.name)
        /// ```
        public let properties: [any SchemaProperty]
        /// The attributes, transient ones included.
        ///
        /// ```swift
        /// entity.attributes.count
        /// ```
        public let attributes: Set<Attribute>
        /// The relationships.
        ///
        /// ```swift
        /// entity.relationships.map(\.destination)
        /// ```
        public let relationships: Set<Relationship>
        /// The attributes by name.
        ///
        /// ```swift
        /// entity.attributesByName["isbn"]?.isUnique
        /// ```
        public let attributesByName: [String: Attribute]
        /// The relationships by name.
        ///
        /// ```swift
        /// entity.relationshipsByName["chapters"]?.deleteRule
        /// ```
        public let relationshipsByName: [String: Relationship]
        /// The persisted properties (not transient), in declaration order.
        ///
        /// ```swift
        /// entity.storedProperties.count
        /// ```
        public let storedProperties: [any SchemaProperty]
        /// The uniqueness constraints: each the names of attributes whose combined values are
        /// unique. Includes a one-attribute constraint for each `@Attribute(.unique)`.
        ///
        /// ```swift
        /// entity.uniquenessConstraints   // [["isbn"], ["title", "year"]]
        /// ```
        public let uniquenessConstraints: [[String]]
        /// The indexes declared with `#Index`: each the names of its attributes, in order.
        ///
        /// ```swift
        /// entity.indices   // [["year"], ["title", "year"]]
        /// ```
        public let indices: [[String]]
        /// The name of the entity of the model class this one inherits from (`@Model class Dog:
        /// Animal`), or `nil`.
        ///
        /// ```swift
        /// schema.entity(for: Dog.self)?.superentityName   // "Animal"
        /// ```
        public let superentityName: String?
        /// The entity of the model class this one inherits from, when the schema holds it (it
        /// always does: a schema takes in the superclasses of its models).
        ///
        /// ```swift
        /// schema.entity(for: Dog.self)?.superentity?.name   // "Animal"
        /// ```
        public internal(set) weak var superentity: Entity?
        /// The entities of the schema's model classes that inherit from this one directly.
        ///
        /// ```swift
        /// schema.entity(for: Animal.self)?.subentities.map(\.name)   // ["Dog", "Cat"]
        /// ```
        public internal(set) var subentities: Set<Entity> = []
        /// The model class.
        let modelType: any PersistentModel.Type
        /// The `.codable` attributes, whose stored values no predicate or sort may read.
        let opaqueAttributes: [Attribute]
        /// Problems found while reading the model's metadata, reported by ``Schema/validate()``.
        let problems: [SchemaError]

        init(_ type: any PersistentModel.Type) {
            modelType = type
            name = Schema.entityName(of: type)
            superentityName = Schema.superclass(of: type).map(Schema.entityName(of:))
            var (properties, problems) = Self.readProperties(of: type, entity: name)
            self.properties = properties
            let attributes = properties.compactMap { $0 as? Attribute }
            let relationships = properties.compactMap { $0 as? Relationship }
            self.attributes = Set(attributes)
            opaqueAttributes = attributes.filter(\.isCodable)
            self.relationships = Set(relationships)
            attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            relationshipsByName = Dictionary(
                relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            storedProperties = properties.filter { !$0.isTransient }
            let names = KeyConstraintNames(type: type, entity: name, attributes: attributes, byName: attributesByName)
            let declared = names.resolve(type._$uniquenessConstraints, macro: "#Unique constraint", problems: &problems)
            let fromOptions = attributes.filter { $0.isUnique }.map { [$0.name] }
            uniquenessConstraints = fromOptions + declared.filter { !fromOptions.contains($0) }
            indices = names.resolve(type._$indices, macro: "#Index", problems: &problems)
            self.problems = problems
        }

        /// The properties the model's generated metadata describes, and the problems found in it.
        private static func readProperties(
            of type: any PersistentModel.Type, entity name: String
        ) -> (properties: [any SchemaProperty], problems: [SchemaError]) {
            var properties: [any SchemaProperty] = []
            var problems: [SchemaError] = []
            for metadata in type.schemaMetadata {
                switch metadata.kind {
                case .attribute(let attribute, let valueType, let isOptional):
                    properties.append(
                        Attribute(
                            name: metadata.name, originalName: attribute?.originalName,
                            options: attribute?.options ?? [],
                            valueType: valueType, defaultValue: metadata.defaultValue,
                            hashModifier: attribute?.hashModifier,
                            isOptional: isOptional, isTransient: false, keyPath: metadata.keyPath,
                            index: metadata.index,
                            storage: metadata.storage, access: metadata.attributeAccess))
                    problems += attributeProblems(metadata, attribute, valueType: valueType, entity: name)
                case .transient(let valueType, let isOptional):
                    properties.append(
                        Attribute(
                            name: metadata.name, originalName: nil, options: [], valueType: valueType,
                            defaultValue: nil,
                            hashModifier: nil, isOptional: isOptional, isTransient: true, keyPath: metadata.keyPath,
                            index: nil, storage: nil, access: nil))
                case .relationship(
                    let relationship, let destination, let isToMany, let isOptional, let valueType,
                    let explicitAttribute):
                    if let explicitAttribute, !explicitAttribute.options.isEmpty {
                        problems.append(
                            SchemaError(
                                code: .invalidProperty, entity: name, property: metadata.name,
                                message: "\(name).\(metadata.name) is a relationship but has @Attribute options "
                                    + "(\(explicitAttribute.options.map(\.description).joined(separator: ", "))). "
                                    + "Use @Relationship for a relationship's options."))
                    }
                    var relationshipMetadata = relationship ?? RelationshipMetadata()
                    if relationship == nil, let originalName = explicitAttribute?.originalName {
                        relationshipMetadata.originalName = originalName
                    }
                    properties.append(
                        Relationship(
                            name: metadata.name, metadata: relationshipMetadata, destinationType: destination,
                            isToMany: isToMany, isOptional: isOptional, valueType: valueType, keyPath: metadata.keyPath,
                            index: metadata.index!, storage: metadata.storage!, access: metadata.relationshipAccess!))
                }
            }
            return (properties, problems)
        }

        /// What keeps an attribute from being stored: a transformer that is not registered, a type
        /// with no storage, a `let` that cannot be one.
        private static func attributeProblems(
            _ metadata: PropertyMetadata, _ attribute: AttributeMetadata?, valueType: any Any.Type, entity name: String
        ) -> [SchemaError] {
            var problems: [SchemaError] = []
            if metadata.attributeAccess == nil,
                let transformer = attribute?.options.lazy.compactMap(\.transformer).first
            {
                problems.append(
                    SchemaError(
                        code: .invalidProperty, entity: name, property: metadata.name,
                        message: "\(name).\(metadata.name) is transformable by \(transformer.name), but no "
                            + "ValueTransformer is registered under that name. Call "
                            + "ValueTransformer.setValueTransformer(_:forName:) before the container opens, or "
                            + "write .transformable(by: TheTransformer.self)."))
            } else if metadata.attributeAccess == nil {
                problems.append(
                    SchemaError(
                        code: .invalidProperty, entity: name, property: metadata.name,
                        message: "\(name).\(metadata.name) has type \(valueType), which cannot be stored. Make "
                            + "the type Codable (or RawRepresentable with a Codable raw value), or mark the "
                            + "property @Transient."))
            }
            if let shape = attribute?.options.lazy.compactMap(\.vector).first,
                let problem = vectorProblem(shape, metadata, valueType: valueType, entity: name)
            {
                problems.append(problem)
            }
            if let constant = metadata.attributeAccess?.constant {
                problems += constantProblems(
                    constant, entity: name, valueType: valueType, options: attribute?.options ?? [])
            }
            return problems
        }

        /// What keeps a `.vector` option from applying: a type other than `[Float]`, or a length
        /// out of range.
        private static func vectorProblem(
            _ shape: VectorShape, _ metadata: PropertyMetadata, valueType: any Any.Type, entity name: String
        ) -> SchemaError? {
            let message: String
            if valueType != [Float].self && valueType != [Float]?.self {
                message = "\(name).\(metadata.name) is marked .vector but has type \(valueType). Declare it [Float] "
                    + "or [Float]?."
            } else if !(1...VectorShape.maximumDimensions).contains(shape.dimensions) {
                message = "\(name).\(metadata.name) declares vectors of \(shape.dimensions) dimensions. Give 1 to "
                    + "\(VectorShape.maximumDimensions)."
            } else {
                return nil
            }
            return SchemaError(code: .invalidProperty, entity: name, property: metadata.name, message: message)
        }

        /// The attribute names of `#Unique` and `#Index` key paths. A subclass inherits its
        /// superclasses' constraints and indexes, whose key paths are rooted at the class that
        /// declares them: found by the name they have there.
        private struct KeyConstraintNames {
            let entity: String
            let attributes: [Attribute]
            let byName: [String: Attribute]
            var inheritedNames: [AnyKeyPath: String] = [:]

            init(type: any PersistentModel.Type, entity: String, attributes: [Attribute], byName: [String: Attribute]) {
                self.entity = entity
                self.attributes = attributes
                self.byName = byName
                var ancestor = Schema.superclass(of: type)
                while let up = ancestor {
                    for property in up.schemaMetadata { inheritedNames[property.keyPath] = property.name }
                    ancestor = Schema.superclass(of: up)
                }
            }

            /// Each group's attribute names; a group naming anything but a stored attribute is
            /// left out, with a problem.
            func resolve(_ keyPaths: [[AnyKeyPath]], macro: String, problems: inout [SchemaError]) -> [[String]] {
                keyPaths.compactMap { group in
                    let resolved = group.map { keyPath -> String? in
                        guard
                            let attribute = attributes.first(where: { $0.keyPath == keyPath })
                                ?? inheritedNames[keyPath].flatMap({ byName[$0] }),
                            !attribute.isTransient
                        else {
                            problems.append(
                                SchemaError(
                                    code: .invalidConstraint, entity: entity, property: nil,
                                    message:
                                        "A \(macro) of \(entity) names \(keyPath), which is not a stored attribute "
                                        + "of \(entity). Name stored attributes only: not relationships, transient or "
                                        + "computed properties."))
                            return nil
                        }
                        return attribute.name
                    }
                    return resolved.contains(nil) || resolved.isEmpty ? nil : resolved.map { $0! }
                }
            }
        }

        /// What keeps a `let` attribute from being stored: an option that leaves its value out of
        /// the record (a fault's constants come from the record), or a type with no value for a
        /// model whose row cannot be read.
        private static func constantProblems(
            _ constant: ConstantAccess, entity: String, valueType: any Any.Type, options: [Attribute.Option]
        ) -> [SchemaError] {
            var problems: [SchemaError] = []
            let property = constant.name
            for option in [Attribute.Option.externalStorage, .ephemeral, .codable]
                + options.filter({ $0.transformer != nil })
            where options.contains(option) {
                problems.append(
                    SchemaError(
                        code: .invalidProperty, entity: entity, property: property,
                        message: "\(entity).\(property) is a `let` with the .\(option) option, which keeps its value "
                            + "out of the model's record, where a `let` is read from. Declare it `var`, or remove "
                            + "the option."))
            }
            if constant.placeholder == nil {
                problems.append(
                    SchemaError(
                        code: .invalidProperty, entity: entity, property: property,
                        message: "\(entity).\(property) is a `let` of type \(valueType), which has no empty value "
                            + "for a model whose row is gone or cannot be read (a `let` cannot wait to be loaded). "
                            + "Make \(valueType) CaseIterable, make the property optional, or declare it `var`."))
            }
            return problems
        }

        /// Entities are equal when they describe the same model class.
        ///
        /// ```swift
        /// schema.entities.contains(entity)
        /// ```
        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs.modelType == rhs.modelType }

        /// Hashes the model class.
        ///
        /// ```swift
        /// var seen: Set<Schema.Entity> = []
        /// ```
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(modelType)) }

        /// The entity's name and properties.
        ///
        /// ```swift
        /// print(entity)
        /// ```
        public var description: String {
            "\(name) { " + properties.map(\.description).joined(separator: "; ") + " }"
        }
    }
}

extension Schema.Entity {
    /// The root of the entity's hierarchy, or `nil` for an entity that neither inherits nor is
    /// inherited from.
    var hierarchyRoot: Schema.Entity? {
        guard superentity != nil || !subentities.isEmpty else { return nil }
        var root = self
        while let up = root.superentity { root = up }
        return root
    }

    /// The topmost entity of the hierarchy, from this one up, for which `has` holds: the entity
    /// that declares an inherited relationship, constraint or index.
    func declaring(_ has: (Schema.Entity) -> Bool) -> Schema.Entity {
        var declaring = self
        while let up = declaring.superentity, has(up) { declaring = up }
        return declaring
    }
}

extension Schema {
    /// One property of a model class as `@Model` describes it: name, key path, kind and options.
    ///
    /// `@Model` generates the list in `schemaMetadata`; ``Schema`` turns it into entities. Which
    /// initialiser the generated code calls is decided by overload resolution on the property's
    /// type: a model, an optional of one or an array of one is a relationship, any `Codable` or
    /// `RawRepresentable` value is an attribute, and any other type does not compile.
    ///
    /// ```swift
    /// for property in Book.schemaMetadata {
    ///     print(property.name, property.isRelationship)
    /// }
    /// ```
    public struct PropertyMetadata {
        /// The property's name.
        ///
        /// ```swift
        /// Book.schemaMetadata[0].name   // "isbn"
        /// ```
        public let name: String
        /// The key path of the property, such as `\Book.title`.
        ///
        /// ```swift
        /// Book.schemaMetadata[0].keyPath == \Book.isbn
        /// ```
        public let keyPath: AnyKeyPath
        /// The property's initial value in the class, if it has one.
        ///
        /// ```swift
        /// Book.schemaMetadata[2].defaultValue as? Int   // 2000
        /// ```
        public let defaultValue: Any?
        /// The generated storage's key path (`\Book._$title`); `nil` for transient and `let` properties.
        let storage: AnyKeyPath?
        /// The property's position among the persisted properties; `nil` for transient ones.
        let index: Int?
        let kind: Kind
        /// How to read and load an attribute's value; `nil` for relationships, transient
        /// properties, and attributes whose type cannot be stored.
        private(set) var attributeAccess: AttributeAccess?
        /// How to read, set and load a relationship; `nil` for attributes and transient properties.
        private(set) var relationshipAccess: RelationshipAccess?

        enum Kind {
            case attribute(AttributeMetadata?, valueType: any Any.Type, isOptional: Bool)
            case relationship(
                RelationshipMetadata?, destination: any PersistentModel.Type, isToMany: Bool, isOptional: Bool,
                valueType: any Any.Type, explicitAttribute: AttributeMetadata?)
            case transient(valueType: any Any.Type, isOptional: Bool)
        }

        /// Whether the property is a relationship.
        ///
        /// ```swift
        /// Book.schemaMetadata.filter(\.isRelationship)
        /// ```
        public var isRelationship: Bool {
            if case .relationship = kind { return true }
            return false
        }

        /// Whether the property is `@Transient`.
        ///
        /// ```swift
        /// Book.schemaMetadata.filter(\.isTransient)
        /// ```
        public var isTransient: Bool {
            if case .transient = kind { return true }
            return false
        }

        // MARK: Attributes

        /// Describes a `Codable` attribute. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "title", keyPath: \Book.title, storage: \Book._$title, index: 1, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: Codable>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Value>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, index: Int,
            defaultValue: Value? = nil, attribute: AttributeMetadata?
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                .attribute(attribute, valueType: Value.self, isOptional: Value.self is any _OptionalType.Type))
            attributeAccess = .make(storage, name: name, defaultValue: defaultValue)
        }

        /// Describes an attribute stored by its raw value. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "status", keyPath: \Book.status, storage: \Book._$status, index: 3, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: RawRepresentable>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Value>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, index: Int,
            defaultValue: Value? = nil, attribute: AttributeMetadata?
        ) where Value.RawValue: Codable {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                .attribute(attribute, valueType: Value.self, isOptional: false))
            attributeAccess = .make(storage, name: name, defaultValue: defaultValue)
        }

        /// Describes an attribute that is both `RawRepresentable` and `Codable` (most enums);
        /// stored by its raw value. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "status", keyPath: \Book.status, storage: \Book._$status, index: 3, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: RawRepresentable & Codable>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Value>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, index: Int,
            defaultValue: Value? = nil, attribute: AttributeMetadata?
        ) where Value.RawValue: Codable {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                .attribute(attribute, valueType: Value.self, isOptional: false))
            attributeAccess = .make(storage, name: name, defaultValue: defaultValue)
        }

        /// Describes a `.transformable(by:)` attribute, whose type needs not be `Codable`: the
        /// value is stored through the transformer the options name. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "tint", keyPath: \Note.tint, storage: \Note._$tint, index: 1,
        ///                         transformable: .init(options: [.transformable(by: ColorTransformer.self)]))
        /// ```
        public init<Model: PersistentModel, Value>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Value>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, index: Int,
            defaultValue: Value? = nil, transformable attribute: AttributeMetadata
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                .attribute(attribute, valueType: Value.self, isOptional: Value.self is any _OptionalType.Type))
            // No transformer to be had (a name nothing is registered under) leaves no access,
            // which the schema reports.
            attributeAccess = attribute.options.lazy.compactMap(\.transformer).first?.resolve().map {
                .transformed(storage, name: name, defaultValue: defaultValue, transformer: $0)
            }
        }

        /// Describes a `.codable` attribute: the value is stored as its `Codable` encoding,
        /// opaque to the store. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "place", keyPath: \Trip.place, storage: \Trip._$place, index: 1,
        ///                         codable: .init(options: [.codable]))
        /// ```
        public init<Model: PersistentModel, Value: Codable>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Value>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Value>>, index: Int,
            defaultValue: Value? = nil, codable attribute: AttributeMetadata
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                .attribute(attribute, valueType: Value.self, isOptional: Value.self is any _OptionalType.Type))
            attributeAccess = .codable(storage, name: name, defaultValue: defaultValue)
        }

        // MARK: Constants

        /// Describes a `let` attribute of a `Codable` type. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "isbn", constant: \Book.isbn, index: 0, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: Codable>(
            name: String, constant keyPath: KeyPath<Model, Value>, index: Int, attribute: AttributeMetadata?
        ) {
            self.init(
                name, keyPath, nil, index, nil,
                .attribute(attribute, valueType: Value.self, isOptional: Value.self is any _OptionalType.Type))
            attributeAccess = .constant(keyPath, name: name)
        }

        /// Describes a `let` attribute stored by its raw value. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "kind", constant: \Book.kind, index: 2, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: RawRepresentable>(
            name: String, constant keyPath: KeyPath<Model, Value>, index: Int, attribute: AttributeMetadata?
        ) where Value.RawValue: Codable {
            self.init(name, keyPath, nil, index, nil, .attribute(attribute, valueType: Value.self, isOptional: false))
            attributeAccess = .constant(keyPath, name: name)
        }

        /// Describes a `let` attribute that is both `RawRepresentable` and `Codable` (most enums);
        /// stored by its raw value. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "kind", constant: \Book.kind, index: 2, attribute: nil)
        /// ```
        public init<Model: PersistentModel, Value: RawRepresentable & Codable>(
            name: String, constant keyPath: KeyPath<Model, Value>, index: Int, attribute: AttributeMetadata?
        ) where Value.RawValue: Codable {
            self.init(name, keyPath, nil, index, nil, .attribute(attribute, valueType: Value.self, isOptional: false))
            attributeAccess = .constant(keyPath, name: name)
        }

        /// A `let` to-one relationship, which Cairn cannot store: a relationship changes as its
        /// inverse does. Declare it `var`.
        ///
        /// ```swift
        /// var owner: Person   // not `let owner: Person`
        /// ```
        @available(*, unavailable, message: "a relationship cannot be a 'let': declare it 'var'")
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, constant keyPath: KeyPath<Model, Target?>, index: Int, attribute: AttributeMetadata?
        ) { fatalError("unavailable") }

        /// A `let` to-one relationship, which Cairn cannot store. Declare it `var`.
        ///
        /// ```swift
        /// var owner: Person   // not `let owner: Person`
        /// ```
        @available(*, unavailable, message: "a relationship cannot be a 'let': declare it 'var'")
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, constant keyPath: KeyPath<Model, Target>, index: Int, attribute: AttributeMetadata?
        ) { fatalError("unavailable") }

        /// A `let` to-many relationship, which Cairn cannot store. Declare it `var`.
        ///
        /// ```swift
        /// var pets: [Pet]   // not `let pets: [Pet]`
        /// ```
        @available(*, unavailable, message: "a relationship cannot be a 'let': declare it 'var'")
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, constant keyPath: KeyPath<Model, [Target]>, index: Int, attribute: AttributeMetadata?
        ) { fatalError("unavailable") }

        /// A `let` optional to-many relationship, which Cairn cannot store. Declare it `var`.
        ///
        /// ```swift
        /// var pets: [Pet]?   // not `let pets: [Pet]?`
        /// ```
        @available(*, unavailable, message: "a relationship cannot be a 'let': declare it 'var'")
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, constant keyPath: KeyPath<Model, [Target]?>, index: Int, attribute: AttributeMetadata?
        ) { fatalError("unavailable") }

        // MARK: Relationships without @Relationship

        /// Describes an optional to-one relationship without `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "author", keyPath: \Book.author, storage: \Book._$author, index: 4, attribute: nil)
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Target?>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target?>>, index: Int,
            defaultValue: Target?? = nil, attribute: AttributeMetadata?
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: nil, destination: Target.self, isToMany: false, isOptional: true,
                valueType: Target?.self, explicitAttribute: attribute,
                access: .toOne(keyPath, storage, name: name, index: index))
        }

        /// Describes a non-optional to-one relationship without `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "owner", keyPath: \Pet.owner, storage: \Pet._$owner, index: 1, attribute: nil)
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Target>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target>>, index: Int,
            defaultValue: Target? = nil, attribute: AttributeMetadata?
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: nil, destination: Target.self, isToMany: false, isOptional: false,
                valueType: Target.self, explicitAttribute: attribute,
                access: .toOneRequired(keyPath, storage, name: name, index: index))
        }

        /// Describes a to-many relationship without `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "tags", keyPath: \Book.tags, storage: \Book._$tags, index: 5, attribute: nil)
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, [Target]>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]>>, index: Int,
            defaultValue: [Target]? = nil, attribute: AttributeMetadata?
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: nil, destination: Target.self, isToMany: true, isOptional: false,
                valueType: [Target].self, explicitAttribute: attribute,
                access: .toMany(keyPath, storage, name: name, index: index))
        }

        /// Describes an optional to-many relationship without `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "tags", keyPath: \Book.tags, storage: \Book._$tags, index: 5, attribute: nil)
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, [Target]?>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]?>>, index: Int,
            defaultValue: [Target]?? = nil, attribute: AttributeMetadata?
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: nil, destination: Target.self, isToMany: true, isOptional: true,
                valueType: [Target]?.self, explicitAttribute: attribute,
                access: .toManyOptional(keyPath, storage, name: name, index: index))
        }

        // MARK: Relationships with @Relationship

        /// Describes an optional to-one relationship with `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "author", keyPath: \Book.author, storage: \Book._$author, index: 4,
        ///                         relationship: .init(deleteRule: .nullify, inverse: \Author.books))
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Target?>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target?>>, index: Int,
            defaultValue: Target?? = nil, relationship: RelationshipMetadata
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: relationship, destination: Target.self, isToMany: false, isOptional: true,
                valueType: Target?.self, explicitAttribute: nil,
                access: .toOne(keyPath, storage, name: name, index: index))
        }

        /// Describes a non-optional to-one relationship with `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "owner", keyPath: \Pet.owner, storage: \Pet._$owner, index: 1,
        ///                         relationship: .init(deleteRule: .nullify))
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, Target>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<Target>>, index: Int,
            defaultValue: Target? = nil, relationship: RelationshipMetadata
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: relationship, destination: Target.self, isToMany: false, isOptional: false,
                valueType: Target.self, explicitAttribute: nil,
                access: .toOneRequired(keyPath, storage, name: name, index: index))
        }

        /// Describes a to-many relationship with `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "chapters", keyPath: \Book.chapters, storage: \Book._$chapters, index: 5,
        ///                         relationship: .init(deleteRule: .cascade, inverse: \Chapter.book))
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, [Target]>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]>>, index: Int,
            defaultValue: [Target]? = nil, relationship: RelationshipMetadata
        ) {
            // Inlinable, so that the access closures are specialized for the app's model types.
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: relationship, destination: Target.self, isToMany: true, isOptional: false,
                valueType: [Target].self, explicitAttribute: nil,
                access: .toMany(keyPath, storage, name: name, index: index))
        }

        /// Describes an optional to-many relationship with `@Relationship`. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(name: "notes", keyPath: \Folder.notes, storage: \Folder._$notes, index: 1,
        ///                         relationship: .init(deleteRule: .cascade, inverse: \Note.folder))
        /// ```
        @inlinable
        public init<Model: PersistentModel, Target: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Model, [Target]?>,
            storage: ReferenceWritableKeyPath<Model, _PersistedValue<[Target]?>>, index: Int,
            defaultValue: [Target]?? = nil, relationship: RelationshipMetadata
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue.map { $0 as Any },
                relationship: relationship, destination: Target.self, isToMany: true, isOptional: true,
                valueType: [Target]?.self, explicitAttribute: nil,
                access: .toManyOptional(keyPath, storage, name: name, index: index))
        }

        // MARK: Transient properties

        /// Describes a `@Transient` stored property. Called by generated code.
        ///
        /// ```swift
        /// Schema.PropertyMetadata(transient: "isExpanded", keyPath: \Book.isExpanded)
        /// ```
        public init<Model: PersistentModel, Value>(transient name: String, keyPath: KeyPath<Model, Value>) {
            self.name = name
            self.keyPath = keyPath
            self.defaultValue = nil
            self.storage = nil
            self.index = nil
            self.kind = .transient(valueType: Value.self, isOptional: Value.self is any _OptionalType.Type)
            self.attributeAccess = nil
            self.relationshipAccess = nil
        }

        /// A relationship, with its access built where the model types are known.
        @usableFromInline
        init(
            _ name: String, _ keyPath: AnyKeyPath, _ storage: AnyKeyPath, _ index: Int, _ defaultValue: Any?,
            relationship: RelationshipMetadata?, destination: any PersistentModel.Type, isToMany: Bool,
            isOptional: Bool, valueType: any Any.Type, explicitAttribute: AttributeMetadata?,
            access: RelationshipAccess
        ) {
            self.init(
                name, keyPath, storage, index, defaultValue,
                .relationship(
                    relationship, destination: destination, isToMany: isToMany, isOptional: isOptional,
                    valueType: valueType, explicitAttribute: explicitAttribute))
            relationshipAccess = access
        }

        private init(
            _ name: String, _ keyPath: AnyKeyPath, _ storage: AnyKeyPath?, _ index: Int, _ defaultValue: Any?,
            _ kind: Kind
        ) {
            self.name = name
            self.keyPath = keyPath
            self.storage = storage
            self.index = index
            self.defaultValue = defaultValue
            self.kind = kind
            self.attributeAccess = nil
            self.relationshipAccess = nil
        }
    }

    /// The arguments of an `@Attribute(...)`, as `@Model` records them.
    ///
    /// ```swift
    /// Schema.AttributeMetadata(options: [.unique], originalName: "mail", hashModifier: nil)
    /// ```
    public struct AttributeMetadata: Sendable {
        /// The attribute's options.
        ///
        /// ```swift
        /// metadata.options.contains(.unique)
        /// ```
        public var options: [Attribute.Option]
        /// The attribute's name in an earlier schema version.
        ///
        /// ```swift
        /// metadata.originalName   // "mail"
        /// ```
        public var originalName: String?
        /// The attribute's hash modifier.
        ///
        /// ```swift
        /// metadata.hashModifier   // nil
        /// ```
        public var hashModifier: String?

        /// Records an `@Attribute(...)`.
        ///
        /// ```swift
        /// Schema.AttributeMetadata(options: [.externalStorage], originalName: nil, hashModifier: nil)
        /// ```
        public init(options: [Attribute.Option] = [], originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }
    }

    /// The arguments of a `@Relationship(...)`, as `@Model` records them.
    ///
    /// ```swift
    /// Schema.RelationshipMetadata(deleteRule: .cascade, inverse: \Chapter.book)
    /// ```
    public struct RelationshipMetadata: @unchecked Sendable {
        // @unchecked: `inverse` is an immutable key path, which is safe to share.
        /// The relationship's options.
        ///
        /// ```swift
        /// metadata.options.contains(.unique)
        /// ```
        public var options: [Relationship.Option]
        /// What deleting the owner does to the related models.
        ///
        /// ```swift
        /// metadata.deleteRule   // .cascade
        /// ```
        public var deleteRule: Relationship.DeleteRule
        /// The fewest related models a save accepts; 0 or `nil` for no minimum.
        ///
        /// ```swift
        /// metadata.minimumModelCount   // 1
        /// ```
        public var minimumModelCount: Int?
        /// The most related models a save accepts; 0 or `nil` for no maximum.
        ///
        /// ```swift
        /// metadata.maximumModelCount   // 10
        /// ```
        public var maximumModelCount: Int?
        /// The relationship's name in an earlier schema version.
        ///
        /// ```swift
        /// metadata.originalName   // "pages"
        /// ```
        public var originalName: String?
        /// The other model's relationship that points back, if given.
        ///
        /// ```swift
        /// metadata.inverse == \Chapter.book
        /// ```
        public var inverse: AnyKeyPath?
        /// The relationship's hash modifier.
        ///
        /// ```swift
        /// metadata.hashModifier   // nil
        /// ```
        public var hashModifier: String?

        /// Records a `@Relationship(...)`, with the macro's defaults for omitted arguments.
        ///
        /// ```swift
        /// Schema.RelationshipMetadata(options: [], deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 0,
        ///                             originalName: nil, inverse: \Chapter.book, hashModifier: nil)
        /// ```
        public init(
            options: [Relationship.Option] = [], deleteRule: Relationship.DeleteRule = .nullify,
            minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
            inverse: AnyKeyPath? = nil, hashModifier: String? = nil
        ) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverse = inverse
            self.hashModifier = hashModifier
        }
    }
}

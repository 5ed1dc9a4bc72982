extension Schema {
    /// An attribute of an entity: a stored value such as a `String`, a `Date` or a `Codable` struct.
    ///
    /// ```swift
    /// let isbn = schema.entity(for: Book.self)!.attributesByName["isbn"]!
    /// print(isbn.isUnique, isbn.valueType)   // true String
    /// ```
    // @unchecked Sendable: immutable once created.
    public final class Attribute: SchemaProperty, @unchecked Sendable {
        /// The attribute's name.
        ///
        /// ```swift
        /// attribute.name   // "isbn"
        /// ```
        public let name: String
        /// The attribute's name in an earlier schema version, or its name.
        ///
        /// ```swift
        /// attribute.originalName   // "code"
        /// ```
        public let originalName: String
        /// The attribute's options.
        ///
        /// ```swift
        /// attribute.options.contains(.externalStorage)
        /// ```
        public let options: [Option]
        /// The attribute's declared type.
        ///
        /// ```swift
        /// attribute.valueType == Date?.self
        /// ```
        public let valueType: any Any.Type
        /// The attribute's initial value in the class, if it has one.
        ///
        /// ```swift
        /// attribute.defaultValue as? Int   // 2000
        /// ```
        public let defaultValue: Any?
        /// The attribute's hash modifier.
        ///
        /// ```swift
        /// attribute.hashModifier   // nil
        /// ```
        public let hashModifier: String?
        /// Whether the attribute's type is optional.
        ///
        /// ```swift
        /// attribute.isOptional
        /// ```
        public let isOptional: Bool
        /// Whether the attribute is `@Transient` (kept in memory only).
        ///
        /// ```swift
        /// attribute.isTransient
        /// ```
        public let isTransient: Bool
        /// Whether the attribute is `.ephemeral`: tracked, never written.
        var isEphemeral: Bool { options.contains(.ephemeral) }
        /// How a `let` attribute is read for the fault initialiser; `nil` for a `var`.
        var constant: ConstantAccess? { access?.constant }
        /// The key path of the property.
        ///
        /// ```swift
        /// attribute.keyPath == \Book.isbn
        /// ```
        public let keyPath: AnyKeyPath
        /// The position among the entity's persisted properties; `nil` when transient.
        let index: Int?
        /// The generated storage's key path; `nil` when transient.
        let storage: AnyKeyPath?
        /// How the model layer reads and loads the value; `nil` when transient, or when the type
        /// cannot be stored (``Schema/validate()`` reports that).
        let access: AttributeAccess?

        /// Always `true`.
        ///
        /// ```swift
        /// attribute.isAttribute   // true
        /// ```
        public var isAttribute: Bool { true }
        /// Always `false`.
        ///
        /// ```swift
        /// attribute.isRelationship   // false
        /// ```
        public var isRelationship: Bool { false }
        /// Whether the attribute has the ``Option/codable`` option: stored as its `Codable`
        /// encoding, opaque to predicates and sorts.
        ///
        /// ```swift
        /// attribute.isCodable
        /// ```
        public var isCodable: Bool { options.contains(.codable) }
        /// Whether the attribute has the ``Option/unique`` option.
        ///
        /// ```swift
        /// attribute.isUnique
        /// ```
        public var isUnique: Bool { options.contains(.unique) }

        /// Whether the attribute has the ``Option/allowsCloudEncryption`` option: in an
        /// encrypted store, its index and unique keys are keyed hashes.
        var isSensitive: Bool { options.contains(.allowsCloudEncryption) }
        /// The vector shape ``Option/vector(dimensions:metric:)`` declares, if any.
        var vectorShape: VectorShape? { options.lazy.compactMap(\.vector).first }

        init(
            name: String, originalName: String?, options: [Option], valueType: any Any.Type, defaultValue: Any?,
            hashModifier: String?, isOptional: Bool, isTransient: Bool, keyPath: AnyKeyPath, index: Int?,
            storage: AnyKeyPath?, access: AttributeAccess?
        ) {
            self.access = access
            self.name = name
            self.originalName = originalName ?? name
            self.options = options
            self.valueType = valueType
            self.defaultValue = defaultValue
            self.hashModifier = hashModifier
            self.isOptional = isOptional
            self.isTransient = isTransient
            self.keyPath = keyPath
            self.index = index
            self.storage = storage
        }

        /// Attributes are equal when they describe the same property.
        ///
        /// ```swift
        /// entity.attributes.contains(attribute)
        /// ```
        public static func == (lhs: Attribute, rhs: Attribute) -> Bool { lhs.keyPath == rhs.keyPath }

        /// Hashes the attribute's key path.
        ///
        /// ```swift
        /// var seen: Set<Schema.Attribute> = []
        /// ```
        public func hash(into hasher: inout Hasher) { hasher.combine(keyPath) }

        /// The attribute's name, type and options.
        ///
        /// ```swift
        /// print(attribute)   // "isbn: String [unique]"
        /// ```
        public var description: String {
            "\(name): \(valueType)"
                + (options.isEmpty ? "" : " [\(options.map(\.description).joined(separator: ", "))]")
                + (isTransient ? " (transient)" : "")
        }
    }
}

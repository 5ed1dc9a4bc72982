extension Schema.Attribute {
    /// How an attribute behaves, as given to ``Attribute(_:originalName:hashModifier:)``.
    ///
    /// ```swift
    /// @Attribute(.unique, .spotlight) var email: String
    /// ```
    public struct Option: Hashable, Sendable, CustomStringConvertible {
        /// The option's name.
        ///
        /// ```swift
        /// Schema.Attribute.Option.unique.description   // "unique"
        /// ```
        public let description: String
        /// For ``transformable(by:)-(ValueTransformer.Type)``, the transformer it names.
        let transformer: TransformerReference?
        /// For ``vector(dimensions:metric:)``, the vectors' length and how they are compared.
        let vector: VectorShape?

        private init(_ name: String, transformer: TransformerReference? = nil, vector: VectorShape? = nil) {
            description = name
            self.transformer = transformer
            self.vector = vector
        }

        /// The attribute is an embedding: a `[Float]` (or `[Float]?`) of exactly `dimensions`
        /// numbers, kept in a vector index, so
        /// ``ModelContext/search(_:)-(SimilarityDescriptor<T>)`` finds the models nearest to a
        /// vector by `metric`, exactly or through an approximate graph (HNSW). A save with a
        /// vector of another length, or one holding a NaN or an infinity, throws.
        ///
        /// ```swift
        /// @Attribute(.vector(dimensions: 384, metric: .cosine)) var embedding: [Float]
        /// ```
        public static func vector(dimensions: Int, metric: VectorMetric = .cosine) -> Option {
            Option(
                "vector(dimensions: \(dimensions), metric: .\(metric.rawValue))",
                vector: VectorShape(dimensions: dimensions, metric: metric))
        }

        /// The value is stored as the `Data` a `ValueTransformer` of this class makes of it, and
        /// read back through the transformer's reverse transformation. The property's type needs
        /// not be `Codable` (a class such as a color or an attributed string).
        ///
        /// ```swift
        /// @Attribute(.transformable(by: ColorTransformer.self)) var tint: Color
        /// ```
        public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
            let name = String(describing: transformerType)
            return Option(
                "transformable(by: \(name))", transformer: TransformerReference(name: name, type: transformerType))
        }

        /// The value is stored through the `ValueTransformer` registered under `transformerName`
        /// (`ValueTransformer.setValueTransformer(_:forName:)`, before the container opens).
        ///
        /// ```swift
        /// @Attribute(.transformable(by: "ColorTransformer")) var tint: Color
        /// ```
        public static func transformable(by transformerName: String) -> Option {
            Option(
                "transformable(by: \"\(transformerName)\")",
                transformer: TransformerReference(name: transformerName, type: nil))
        }

        /// The attribute's value is unique among the entity's instances; inserting a duplicate
        /// updates the stored instance instead (an upsert).
        ///
        /// ```swift
        /// @Attribute(.unique) var isbn: String
        /// ```
        public static let unique = Option("unique")
        /// The value is stored as its `Codable` encoding (JSON), opaque to the store, as
        /// SwiftData's `.codable`: for types whose structure Cairn should not read (a type from
        /// another framework, one holding a class). A predicate or sort that reads it is a
        /// `FetchError` (`opaqueAttribute`), and changing the type's shape needs no migration
        /// stage: its `init(from:)` must read what earlier versions wrote.
        ///
        /// ```swift
        /// @Attribute(.codable) var place: MapPlace
        /// ```
        public static let codable = Option("codable")
        /// Large values are stored apart from the record and loaded only when read.
        ///
        /// ```swift
        /// @Attribute(.externalStorage) var photo: Data
        /// ```
        public static let externalStorage = Option("externalStorage")
        /// Changes to the value are tracked (they count as changes of the model) but the value is
        /// never written to the store, as in SwiftData: a model read from the store has the
        /// property's default value (or `nil`, or an empty value of its type), and a refresh
        /// keeps what the context holds.
        ///
        /// ```swift
        /// @Attribute(.ephemeral) var isExpanded = false
        /// ```
        public static let ephemeral = Option("ephemeral")
        /// The value stays readable in history after the model is deleted.
        ///
        /// ```swift
        /// @Attribute(.preserveValueOnDeletion) var name: String
        /// ```
        public static let preserveValueOnDeletion = Option("preserveValueOnDeletion")
        /// Accepted for SwiftData compatibility; has no effect (there is no Spotlight off Apple platforms).
        ///
        /// ```swift
        /// @Attribute(.spotlight) var title: String
        /// ```
        public static let spotlight = Option("spotlight")
        /// Marks a sensitive attribute. In an encrypted store (``ModelConfiguration/encryption``)
        /// every value is sealed already; this option also keeps the attribute's value out of
        /// its unique and index keys, which then hold a keyed hash of it: a `#Unique` constraint
        /// and an equality or `contains` on it still use the table, while a range on it or a sort
        /// by it is done on each candidate (``FetchPlan/notes`` says so). In a plaintext store it
        /// has no effect, as SwiftData's has none without CloudKit.
        ///
        /// ```swift
        /// @Attribute(.unique, .allowsCloudEncryption) var nationalID: String
        /// ```
        public static let allowsCloudEncryption = Option("allowsCloudEncryption")
    }
}

/// The transformer a ``Schema/Attribute/Option/transformable(by:)-(ValueTransformer.Type)``
/// option names: its class, or the name it is registered under. Compared by name.
///
/// `@unchecked Sendable`: an immutable name and class.
struct TransformerReference: Hashable, @unchecked Sendable {
    let name: String
    let type: ValueTransformer.Type?

    /// A transformer to use: a new instance of the class, or the one registered under the name.
    func resolve() -> ValueTransformer? {
        if let type { return ValueTransformer.cairnMake(type) }
        return ValueTransformer.cairnRegistered(name)
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension Schema.Relationship {
    /// How a relationship behaves, as given to ``Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)``.
    ///
    /// ```swift
    /// @Relationship(.unique) var passport: Passport?
    /// ```
    public struct Option: Hashable, Sendable, CustomStringConvertible {
        /// The option's name.
        ///
        /// ```swift
        /// Schema.Relationship.Option.unique.description   // "unique"
        /// ```
        public let description: String

        private init(_ name: String) { description = name }

        /// No two models relate to the same target through this relationship.
        ///
        /// ```swift
        /// @Relationship(.unique) var passport: Passport?
        /// ```
        public static let unique = Option("unique")
    }

    /// What deleting a model does to the models its relationship points at.
    ///
    /// ```swift
    /// @Relationship(deleteRule: .cascade) var chapters: [Chapter] = []
    /// ```
    public enum DeleteRule: String, Codable, Hashable, Sendable, CaseIterable {
        /// The related models are cleared of their reference to the deleted one (the default).
        case nullify
        /// The related models are deleted too, and so on through their own cascade rules.
        case cascade
        /// The delete fails while any related model exists; the save throws and writes nothing.
        case deny
        /// Nothing happens to the related models; their references dangle until you fix them.
        case noAction
    }
}

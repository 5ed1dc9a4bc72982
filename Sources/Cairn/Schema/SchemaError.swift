/// A problem with a schema that keeps a store from opening: a missing model, inverses that do not
/// match, a constraint on something that is not a stored attribute.
///
/// Its message names the entity and property and says how to fix them.
///
/// ```swift
/// do {
///     try Schema([Book.self]).validate()
/// } catch SchemaError.Code.missingEntity {
///     // add the missing model type
/// } catch let error as SchemaError {
///     print(error.message)
/// }
/// ```
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added; keep a `default` in a `switch`.
    ///
    /// ```swift
    /// if error.code == .inverseMismatch { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code's name.
        ///
        /// ```swift
        /// SchemaError.Code.missingEntity.description   // "missingEntity"
        /// ```
        public var description: String { name }

        /// A relationship points at a model type that is not in the schema.
        ///
        /// ```swift
        /// catch SchemaError.Code.missingEntity { … }
        /// ```
        public static let missingEntity = Code("missingEntity")
        /// An `inverse:` names something that is not a relationship pointing back.
        ///
        /// ```swift
        /// catch SchemaError.Code.invalidInverse { … }
        /// ```
        public static let invalidInverse = Code("invalidInverse")
        /// Two relationships name different inverses of each other.
        ///
        /// ```swift
        /// catch SchemaError.Code.inverseMismatch { … }
        /// ```
        public static let inverseMismatch = Code("inverseMismatch")
        /// A `#Unique` or `#Index` names something that is not a stored attribute.
        ///
        /// ```swift
        /// catch SchemaError.Code.invalidConstraint { … }
        /// ```
        public static let invalidConstraint = Code("invalidConstraint")
        /// Two model classes have the same name.
        ///
        /// ```swift
        /// catch SchemaError.Code.duplicateEntity { … }
        /// ```
        public static let duplicateEntity = Code("duplicateEntity")
        /// The store was written with a schema this one cannot read (an attribute changed type).
        ///
        /// ```swift
        /// catch SchemaError.Code.incompatibleStore { … }
        /// ```
        public static let incompatibleStore = Code("incompatibleStore")
        /// A property's options or counts are inconsistent.
        ///
        /// ```swift
        /// catch SchemaError.Code.invalidProperty { … }
        /// ```
        public static let invalidProperty = Code("invalidProperty")
    }

    /// What kind of problem this is.
    ///
    /// ```swift
    /// error.code   // .missingEntity
    /// ```
    public var code: Code
    /// The entity concerned.
    ///
    /// ```swift
    /// error.entity   // "Book"
    /// ```
    public var entity: String?
    /// The property concerned, if any.
    ///
    /// ```swift
    /// error.property   // "author"
    /// ```
    public var property: String?
    /// What is wrong and how to fix it.
    ///
    /// ```swift
    /// print(error.message)
    /// ```
    public var message: String

    /// Creates a schema error.
    ///
    /// ```swift
    /// SchemaError(code: .invalidProperty, entity: "Book", property: "isbn", message: "… Do this instead.")
    /// ```
    public init(code: Code, entity: String?, property: String?, message: String) {
        self.code = code
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// The code and the message.
    ///
    /// ```swift
    /// print(error)   // "SchemaError.missingEntity: Book.author points at Author, …"
    /// ```
    public var description: String { "SchemaError.\(code): \(message)" }
}

extension SchemaError.Code {
    /// Matches a thrown error against a code, so that `catch SchemaError.Code.missingEntity` works.
    ///
    /// ```swift
    /// do { try schema.validate() } catch SchemaError.Code.missingEntity { … }
    /// ```
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SchemaError)?.code == code
    }
}

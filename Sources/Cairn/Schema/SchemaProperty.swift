/// What every property of an entity describes: its name, type and kind.
///
/// ```swift
/// for property in schema.entity(for: Book.self)!.properties {
///     print(property.name, property.isRelationship)
/// }
/// ```
public protocol SchemaProperty: AnyObject, Hashable, CustomStringConvertible {
    /// The property's name in the model class.
    ///
    /// ```swift
    /// property.name   // "title"
    /// ```
    var name: String { get }
    /// The property's name in an earlier schema version, or its name when it was not renamed.
    ///
    /// ```swift
    /// property.originalName   // "caption"
    /// ```
    var originalName: String { get }
    /// The property's declared type, such as `String?.self` or `[Book].self`.
    ///
    /// ```swift
    /// property.valueType == String.self
    /// ```
    var valueType: any Any.Type { get }
    /// Whether the property is an attribute (a value).
    ///
    /// ```swift
    /// if property.isAttribute { … }
    /// ```
    var isAttribute: Bool { get }
    /// Whether the property is a relationship to other models.
    ///
    /// ```swift
    /// if property.isRelationship { … }
    /// ```
    var isRelationship: Bool { get }
    /// Whether the property lives only in memory (`@Transient`).
    ///
    /// ```swift
    /// if property.isTransient { … }
    /// ```
    var isTransient: Bool { get }
    /// Whether the property's type is optional.
    ///
    /// ```swift
    /// if property.isOptional { … }
    /// ```
    var isOptional: Bool { get }
    /// Whether the property's values are unique among the entity's instances.
    ///
    /// ```swift
    /// if property.isUnique { … }
    /// ```
    var isUnique: Bool { get }
}

/// Lets a type say at run time whether it is an `Optional`, and what it wraps.
protocol _OptionalType {
    /// The wrapped type.
    static var wrappedType: Any.Type { get }
}
extension Optional: _OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// One version of your models, for migrations between versions, as in SwiftData.
///
/// ```swift
/// enum LibrarySchemaV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Book.self, Author.self] }
/// }
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version these models make up.
    ///
    /// ```swift
    /// static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    /// ```
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    ///
    /// ```swift
    /// static var models: [any PersistentModel.Type] { [Book.self] }
    /// ```
    static var models: [any PersistentModel.Type] { get }
}

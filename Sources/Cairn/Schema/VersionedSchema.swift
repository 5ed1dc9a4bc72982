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

/// The ordered versions of your schema and how to move between them, as in SwiftData.
///
/// ```swift
/// enum LibraryMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [LibrarySchemaV1.self, LibrarySchemaV2.self] }
///     static var stages: [MigrationStage] {
///         [.lightweight(fromVersion: LibrarySchemaV1.self, toVersion: LibrarySchemaV2.self)]
///     }
/// }
/// ```
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first.
    ///
    /// ```swift
    /// static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
    /// ```
    static var schemas: [any VersionedSchema.Type] { get }
    /// The steps from each version to the next.
    ///
    /// ```swift
    /// static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
    /// ```
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
///
/// Stages with custom code (`custom(fromVersion:toVersion:willMigrate:didMigrate:)`) arrive with
/// the model context they run in.
///
/// ```swift
/// let stage = MigrationStage.lightweight(fromVersion: LibrarySchemaV1.self, toVersion: LibrarySchemaV2.self)
/// ```
public enum MigrationStage {
    /// A step that needs no code: added optional or defaulted properties, removed properties, and
    /// renames recorded with `originalName:`.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
}

import Foundation

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

/// One step of a migration plan, as in SwiftData. The container given the plan applies the
/// stages from the store's version to its schema's, one by one, when it opens (see
/// ``ModelContainer/init(for:migrationPlan:configurations:)-(PersistentModel....,_,_)``).
///
/// ```swift
/// static let migrateV1toV2 = MigrationStage.custom(
///     fromVersion: LibrarySchemaV1.self, toVersion: LibrarySchemaV2.self,
///     willMigrate: { context in
///         // The old models: remove the duplicates the new unique constraint would refuse.
///         let books = try context.fetch(FetchDescriptor<LibrarySchemaV1.Book>())
///         var seen = Set<String>()
///         for book in books where !seen.insert(book.isbn).inserted { context.delete(book) }
///         try context.save()
///     },
///     didMigrate: nil)
/// ```
///
/// `@unchecked Sendable`: a stage is kept in a plan's static properties; its closures run only
/// while a container opens, on the thread that opens it.
public enum MigrationStage: @unchecked Sendable {
    /// A step that needs no code: added optional or defaulted properties, removed properties, and
    /// renames recorded with `originalName:`.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A step with code: `willMigrate` runs with a context on the old version's models, before
    /// the store takes the new version's form; `didMigrate` runs with a context on the new
    /// version's models, after. Each context's unsaved changes are saved when its closure
    /// returns. If either throws, the store is put back as it was before the stage and opening
    /// fails with the error.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    /// The version the stage ends at.
    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}

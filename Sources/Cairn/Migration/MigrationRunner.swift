import Foundation

/// Applies a migration plan's stages to a store when a container opens, as SwiftData does: from
/// the version the store was last opened with (``Store/recordedSchemaVersion()``; for a store that
/// recorded none, the newest version of the plan whose attributes it describes) to the schema the
/// container opens with, stage by stage.
///
/// A lightweight stage opens the store with its new version's models (the store takes the new
/// form as at any open). A custom stage opens it with the old version's models and runs
/// `willMigrate` with a context on them, then opens it with the new version's and runs
/// `didMigrate`; each context's unsaved changes are saved when its closure returns. Before the
/// first stage the store is copied (a verified backup beside it); if any stage fails, the copy
/// takes the store's place again, so a failed migration leaves the store as it was, and the error
/// is thrown from the container's initialiser.
///
/// ```swift
/// try MigrationRunner(plan: LibraryMigrationPlan.self, configuration: configuration, target: schema.version).run()
/// ```
struct MigrationRunner {
    let plan: any SchemaMigrationPlan.Type
    /// Where the store is (its schema, if any, is not used: each stage names its own).
    let configuration: ModelConfiguration
    /// The version the container opens with.
    let target: Schema.Version
    /// Told of each stage as it ends, failed or not (a rehearsal's report is made of these).
    var observe: ((MigrationRehearsal.Stage) -> Void)?

    init(
        plan: any SchemaMigrationPlan.Type, configuration: ModelConfiguration, target: Schema.Version,
        observe: ((MigrationRehearsal.Stage) -> Void)? = nil
    ) {
        self.plan = plan
        self.configuration = configuration
        self.target = target
        self.observe = observe
    }

    func run() throws {
        guard !configuration.isStoredInMemoryOnly,
            FileManager.default.fileExists(atPath: configuration.url.appendingPathComponent("data.mdb").path)
        else { return }
        var stages = try stagesToRun()
        guard !stages.isEmpty else { return }
        let backup = try makeBackup(openingWith: stages[0].fromVersion)
        defer { StoreFiles.removeDirectory(backup) }
        while !stages.isEmpty {
            let stage = stages.removeFirst()
            let clock = ContinuousClock()
            let start = clock.now
            var counts = (read: 0, written: 0)
            do {
                try apply(stage, counting: &counts)
                observe?(MigrationRehearsal.Stage(stage, duration: clock.now - start, counts: counts, error: nil))
            } catch {
                observe?(MigrationRehearsal.Stage(stage, duration: clock.now - start, counts: counts, error: error))
                try restore(from: backup)
                throw error
            }
        }
    }

    /// The stages from the store's version to the target, in order; none when the store is at
    /// the target, or at a version the plan has no stage from (the open then applies what it can
    /// as any open does).
    private func stagesToRun() throws -> [MigrationStage] {
        guard var current = try storeVersion(), current != target else { return [] }
        var stages: [MigrationStage] = []
        while current != target,
            let stage = plan.stages.first(where: { $0.fromVersion.versionIdentifier == current }),
            stages.count < plan.stages.count
        {
            stages.append(stage)
            current = stage.toVersion.versionIdentifier
        }
        return stages
    }

    /// The version the store is at: the one it recorded, else the newest of the plan's versions
    /// whose entities and attributes the store describes.
    private func storeVersion() throws -> Schema.Version? {
        let store = try Store(schema: Schema([]), configuration: configuration, recordsVersion: false)
        if let recorded = try store.recordedSchemaVersion() { return recorded }
        for version in plan.schemas.reversed() {
            let schema = Schema(versionedSchema: version)
            let described = try schema.entities.allSatisfy { entity in
                try store.describes(entity.name, with: entity.attributes.filter { !$0.isTransient }.map(\.name))
            }
            if described { return version.versionIdentifier }
        }
        return nil
    }

    /// Runs one stage (see the type's description), counting the models its contexts read and
    /// the changes they save.
    private func apply(_ stage: MigrationStage, counting counts: inout (read: Int, written: Int)) throws {
        func run(_ context: ModelContext, _ body: (ModelContext) throws -> Void) throws {
            defer { counts.read += context.statistics.recordLoads }
            try body(context)
            counts.written +=
                context.pending.inserted.count + context.pending.changed.count
                + context.pending.deleted.count
            if context.hasChanges { try context.save() }
        }
        switch stage {
        case .lightweight(_, let to):
            _ = try ModelContainer(for: Schema(versionedSchema: to), configurations: configuration)
        case .custom(let from, let to, let willMigrate, let didMigrate):
            if let willMigrate {
                try run(
                    ModelContext(try ModelContainer(for: Schema(versionedSchema: from), configurations: configuration)),
                    willMigrate)
            }
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: to), configurations: configuration))
            if let didMigrate { try run(context, didMigrate) }
        }
    }

    /// A verified copy of the store beside it, made through a container on `version`'s models
    /// (the store's own version, so opening changes nothing); returns its directory.
    private func makeBackup(openingWith version: any VersionedSchema.Type) throws -> String {
        let store = configuration.url.standardizedFileURL
        let backup = store.deletingLastPathComponent()
            .appendingPathComponent(".\(store.lastPathComponent).migration-\(UUID().uuidString)").path
        let container = try ModelContainer(for: Schema(versionedSchema: version), configurations: configuration)
        try container.store.environment.backup(to: backup)
        return backup
    }

    /// Puts the copy's data file in the store's place (a rename: all or nothing).
    private func restore(from backup: String) throws {
        let data = configuration.url.appendingPathComponent("data.mdb").path
        guard rename(backup + "/data.mdb", data) == 0 else {
            throw StorageError(
                code: .ioError,
                message: "A migration stage failed and the store could not be put back as it was (rename failed, "
                    + "errno \(errno)). Its copy from before the migration is at \(backup); move its data.mdb into "
                    + "the store's directory.")
        }
    }
}

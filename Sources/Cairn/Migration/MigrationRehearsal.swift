import CairnStorage
import Foundation

/// What a migration plan does to a store, found by running it on a copy
/// (``ModelContainer/rehearseMigration(for:migrationPlan:configuration:)``): each stage's time, the
/// models it read and the changes it saved, the error that stopped it; the rows per entity before
/// and after; the disk space of the copy before and after; and the migrated copy's verification.
/// The store itself is never touched.
///
/// ```swift
/// let rehearsal = try ModelContainer.rehearseMigration(
///     for: Schema(versionedSchema: LibraryV3.self), migrationPlan: LibraryPlan.self, configuration: configuration)
/// if let failed = rehearsal.failedStage { print(failed.error ?? "", failed.models) }
/// ```
public struct MigrationRehearsal: Sendable, CustomStringConvertible {
    /// One stage as it ran on the copy.
    ///
    /// ```swift
    /// for stage in rehearsal.stages { print(stage.fromVersion, "→", stage.toVersion, stage.duration) }
    /// ```
    public struct Stage: Sendable, CustomStringConvertible {
        /// The version the stage starts from.
        ///
        /// ```swift
        /// stage.fromVersion   // 1.0.0
        /// ```
        public let fromVersion: Schema.Version
        /// The version the stage ends at.
        ///
        /// ```swift
        /// stage.toVersion   // 2.0.0
        /// ```
        public let toVersion: Schema.Version
        /// Whether the stage runs code (`.custom`) rather than only opening the store with the
        /// new version's models (`.lightweight`).
        ///
        /// ```swift
        /// stage.isCustom
        /// ```
        public let isCustom: Bool
        /// How long the stage took.
        ///
        /// ```swift
        /// stage.duration   // 0.012 seconds
        /// ```
        public let duration: Duration
        /// The stored models its contexts read.
        ///
        /// ```swift
        /// stage.modelsRead   // 10000
        /// ```
        public let modelsRead: Int
        /// The models its contexts inserted, changed or deleted and saved (or tried to).
        ///
        /// ```swift
        /// stage.modelsWritten   // 10000
        /// ```
        public let modelsWritten: Int
        /// What stopped the stage, described; `nil` for a stage that completed.
        ///
        /// ```swift
        /// stage.error   // "SaveError.uniquenessViolated: …"
        /// ```
        public let error: String?
        /// The models the error names (a save's error names the models it refused).
        ///
        /// ```swift
        /// stage.models   // [Book/17]
        /// ```
        public let models: [PersistentIdentifier]

        init(_ stage: MigrationStage, duration: Duration, counts: (read: Int, written: Int), error: (any Error)?) {
            fromVersion = stage.fromVersion.versionIdentifier
            toVersion = stage.toVersion.versionIdentifier
            if case .custom = stage { isCustom = true } else { isCustom = false }
            self.duration = duration
            modelsRead = counts.read
            modelsWritten = counts.written
            self.error = error.map { "\($0)" }
            models = (error as? SaveError)?.models ?? []
        }

        /// The stage's versions, time and counts, and its error.
        ///
        /// ```swift
        /// print(stage)   // "1.0.0 → 2.0.0 (custom): 12 ms, 100 read, 100 written"
        /// ```
        public var description: String {
            "\(fromVersion) → \(toVersion) (\(isCustom ? "custom" : "lightweight")): \(duration), \(modelsRead) read, "
                + "\(modelsWritten) written" + (error.map { "; failed: \($0)" } ?? "")
        }
    }

    /// The stages that ran, in order; the last one failed when the rehearsal did.
    ///
    /// ```swift
    /// rehearsal.stages.count
    /// ```
    public internal(set) var stages: [Stage] = []
    /// The rows of each entity before the migration.
    ///
    /// ```swift
    /// rehearsal.rowsBefore["Book"]   // 10000
    /// ```
    public internal(set) var rowsBefore: [String: Int] = [:]
    /// The rows of each entity after it (the same as before when it failed).
    ///
    /// ```swift
    /// rehearsal.rowsAfter["Book"]   // 10000
    /// ```
    public internal(set) var rowsAfter: [String: Int] = [:]
    /// The bytes the copy's data file took before the migration.
    ///
    /// ```swift
    /// rehearsal.bytesBefore
    /// ```
    public internal(set) var bytesBefore: Int = 0
    /// The bytes it took after.
    ///
    /// ```swift
    /// rehearsal.bytesAfter - rehearsal.bytesBefore   // the space the migration needs
    /// ```
    public internal(set) var bytesAfter: Int = 0
    /// The migrated copy's verification; `nil` when the migration failed.
    ///
    /// ```swift
    /// rehearsal.verification?.isClean
    /// ```
    public internal(set) var verification: VerificationReport?
    /// The error that stopped the migration, described, when it was not a stage's (the copy could
    /// not be made or opened); a stage's error is in ``failedStage``.
    ///
    /// ```swift
    /// rehearsal.error
    /// ```
    public internal(set) var error: String?

    /// The stage that failed, if one did.
    ///
    /// ```swift
    /// rehearsal.failedStage?.models
    /// ```
    public var failedStage: Stage? { stages.first { $0.error != nil } }

    /// Whether the plan ran to the end and the migrated copy verified clean.
    ///
    /// ```swift
    /// guard rehearsal.succeeded else { return }
    /// ```
    public var succeeded: Bool { error == nil && failedStage == nil && verification?.isClean == true }

    /// The stages, row counts and sizes, one per line.
    ///
    /// ```swift
    /// print(rehearsal)
    /// ```
    public var description: String {
        var lines = stages.map(\.description)
        if let error { lines.append("failed: \(error)") }
        for name in Set(rowsBefore.keys).union(rowsAfter.keys).sorted() {
            lines.append("\(name): \(rowsBefore[name] ?? 0) → \(rowsAfter[name] ?? 0) rows")
        }
        lines.append("data file: \(bytesBefore) → \(bytesAfter) bytes")
        if let verification { lines.append(verification.isClean ? "verified clean" : "\(verification)") }
        return lines.joined(separator: "\n")
    }
}

extension ModelContainer {
    /// Runs `migrationPlan` on a copy of the store `configuration` names, as opening a container
    /// with `schema` and the plan would, and reports what it did (``MigrationRehearsal``). The copy
    /// is taken consistently while other containers may be writing, verified after the migration,
    /// and removed afterwards, whatever happens; the store itself is never opened for writing.
    ///
    /// ```swift
    /// let rehearsal = try ModelContainer.rehearseMigration(
    ///     for: Schema(versionedSchema: LibraryV2.self), migrationPlan: LibraryPlan.self,
    ///     configuration: ModelConfiguration(url: storeURL))
    /// print(rehearsal)
    /// ```
    /// - Throws: `StorageError` when the store cannot be read or copied (a stage's failure is
    ///   in the report, not thrown).
    public static func rehearseMigration(
        for schema: Schema, migrationPlan: any SchemaMigrationPlan.Type, configuration: ModelConfiguration
    ) throws -> MigrationRehearsal {
        let source = configuration.url.standardizedFileURL
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-rehearsal-\(UUID().uuidString)")
        defer { StoreFiles.removeDirectory(copy.path) }
        // A consistent copy, taken read-only (any version's open would record its schema).
        try Store(
            schema: Schema([]),
            configuration: ModelConfiguration(url: source, allowsSave: false, encryption: configuration.encryption),
            recordsVersion: false
        ).environment.backup(to: copy.path)

        var rehearsal = MigrationRehearsal()
        // The copy is the same ciphertext under the same wrapped key.
        let onCopy = ModelConfiguration(url: copy, encryption: configuration.encryption)
        rehearsal.rowsBefore = try rowCounts(at: onCopy)
        rehearsal.bytesBefore = dataFileSize(copy)
        var stages: [MigrationRehearsal.Stage] = []
        do {
            try MigrationRunner(
                plan: migrationPlan, configuration: onCopy, target: schema.version, observe: { stages.append($0) }
            ).run()
            rehearsal.stages = stages
            let migrated = try ModelContainer(for: schema, configurations: onCopy)
            rehearsal.verification = try migrated.verify()
        } catch {
            rehearsal.stages = stages
            if stages.last?.error == nil { rehearsal.error = ErrorText.describing(error) }
        }
        rehearsal.rowsAfter = try rowCounts(at: onCopy)
        rehearsal.bytesAfter = dataFileSize(copy)
        return rehearsal
    }

    /// The rows of each record table of the store `configuration` names, by entity (a
    /// hierarchy's rows all under its root).
    private static func rowCounts(at configuration: ModelConfiguration) throws -> [String: Int] {
        let store = try Store(
            schema: Schema([]),
            configuration: ModelConfiguration(url: configuration.url, allowsSave: false, encryption: configuration.encryption),
            recordsVersion: false)
        var counts: [String: Int] = [:]
        for name in try store.environment.tableNames() where StoreLayout.isRecordsTable(name) {
            guard let table = try store.environment.openTable(name, create: false) else { continue }
            counts[String(name.dropFirst(2))] = try store.read { txn in try txn.count(of: table) }
        }
        return counts
    }

    private static func dataFileSize(_ directory: URL) -> Int {
        let path = directory.appendingPathComponent("data.mdb").path
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}

import Foundation

/// A store opened by itself, without the app's models: what it says about itself in its `meta`
/// table (its format, identifier, schema version and the description of every entity), its
/// tables and files. The `cairn` tool reads stores through it.
///
/// The store is opened read-only, so inspecting it never changes it, and other processes may keep
/// saving meanwhile; each report, dump or verification reads one snapshot.
///
/// ```swift
/// let inspector = try StoreInspector(path: "/data/Library.store")
/// print(try inspector.summary().entities.map(\.name))
/// ```
package final class StoreInspector {
    package let path: String
    package let environment: LMDBEnvironment
    let meta: Table
    package let storeIdentifier: String
    package let formatVersion: Int
    /// The schema version the store was last opened writable with, if it recorded one ("1.0.0").
    package let schemaVersion: String?
    /// The store's shape, from its stored descriptions.
    let catalog: StoreCatalog
    /// Every entity's stored description, by name.
    var descriptions: [String: StoredEntity] { catalog.descriptions }
    /// The names of the store's tables.
    var tableNames: Set<String> { catalog.tableNames }

    /// Opens the store at `path` read-only (with `encryption`, the secret of an encrypted
    /// store) and reads its descriptions.
    ///
    /// - Throws: `StorageError` `.notFound` when there is no store, `.damaged` or
    ///   `.damagedRecord` when it (or its description) is damaged, `.versionMismatch` for a store
    ///   of another format.
    package init(path: String, encryption: StoreEncryption? = nil) throws {
        var configuration = StorageConfiguration(path: path)
        configuration.isReadOnly = true
        configuration.encryption = encryption
        configuration.sealedTables = StoreLayout.sealedTables
        environment = try LMDBEnvironment.open(configuration)
        self.path = environment.path
        guard let meta = try environment.openTable(StoreLayout.metaTable) else {
            throw StorageError(
                code: .damaged,
                message: "This LMDB store has no 'meta' table, so Cairn did not write it (or its main table is "
                    + "damaged). Check the path.",
                path: path)
        }
        self.meta = meta
        let entries = try environment.read { txn in
            (format: try txn.get(StoreLayout.formatKey, in: meta), store: try txn.get(StoreLayout.storeKey, in: meta))
        }
        guard let format = entries.format, let store = entries.store else {
            throw StorageError(
                code: .damaged, message: "The store records no format or identifier: it was never written by Cairn.",
                path: path)
        }
        try Store.checkFormat(format)
        formatVersion = Int(Store.formatVersion)
        storeIdentifier = try Store.storeIdentifier(store)
        schemaVersion = try Store.recordedSchemaVersion(environment: environment, meta: meta)?.description
        let prefix = StoreLayout.entityDescriptionPrefix
        let stored = try environment.read { txn in
            var found: [(key: [UInt8], value: [UInt8])] = []
            try txn.scan(meta, .prefix(prefix)) { key, value in
                found.append((Array(key), Array(value)))
                return true
            }
            return found
        }
        var descriptions: [String: StoredEntity] = [:]
        for (key, value) in stored {
            let name = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
            descriptions[name] = try Store.decodeDescription(value, key: key, entity: name)
        }
        catalog = StoreCatalog(descriptions: descriptions, tableNames: Set(try environment.tableNames()))
    }

    // MARK: The store's shape, from its catalog

    /// Whether the descriptions tell which entities inherit from `name` (``StoreCatalog/knowsDescendants(of:)``).
    package func knowsDescendants(of name: String) -> Bool { catalog.knowsDescendants(of: name) }

    /// The entities whose descriptions were recorded before they noted their superentity, in a
    /// hierarchy: which rows their constraints, indexes and relationships cover is unknown, so
    /// `verify` leaves those out and `dump` gives only the entity's own rows. Opening the store
    /// writable once with the app records the notes.
    package var entitiesWithoutNotes: [String] { catalog.entityNames.filter { !catalog.knowsDescendants(of: $0) } }

    /// The records table of `name`'s rows.
    func recordsTable(of name: String) throws -> Table {
        try table(catalog.recordsTableName(of: name))
    }

    /// Opens a table by name with the flags it was created with.
    ///
    /// - Throws: `StorageError` `.damaged` when the table is missing.
    func table(_ name: String) throws -> Table {
        let catalog = TableCatalog(environment: environment)
        guard let table = try environment.openTable(name, flags: try catalog.storedFlags(of: name)) else {
            throw StorageError(
                code: .damaged, message: "The store has no table '\(name)', which its description names.", path: path)
        }
        return table
    }

    /// The identifier of `row` reached through `entity`'s table: of the class its row id names.
    func identifier(_ entity: String, _ row: UInt64) -> PersistentIdentifier {
        PersistentIdentifier(
            entityName: catalog.concreteEntity(entity, row: row), storeIdentifier: storeIdentifier, rowID: row)
    }

    /// The names of the entities the store describes, sorted.
    package var entityNames: [String] { catalog.entityNames }

    /// Throws unless the store describes `entity`, naming the ones it does.
    func requireEntity(_ entity: String) throws -> StoredEntity {
        guard let description = descriptions[entity] else {
            throw StorageError(
                code: .notFound,
                message: "The store has no entity named '\(entity)'. Its entities: "
                    + (entityNames.isEmpty ? "none" : entityNames.joined(separator: ", ")) + ".",
                path: path)
        }
        return description
    }
}

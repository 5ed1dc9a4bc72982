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
    /// Every entity's stored description, by name.
    let descriptions: [String: StoredEntity]
    /// The names of the store's tables.
    let tableNames: Set<String>

    /// Opens the store at `path` read-only and reads its descriptions.
    ///
    /// - Throws: `StorageError` `.notFound` when there is no store, `.damaged` or
    ///   `.damagedRecord` when it (or its description) is damaged, `.versionMismatch` for a store
    ///   of another format.
    package init(path: String) throws {
        var configuration = StorageConfiguration(path: path)
        configuration.isReadOnly = true
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
        self.descriptions = descriptions
        tableNames = Set(try environment.tableNames())
    }

    // MARK: The store's shape

    /// The entity at the top of `name`'s hierarchy, whose records table holds its rows: itself
    /// for an entity of its own.
    func root(of name: String) -> String {
        if let owner = descriptions.first(where: { $0.value.subentityNames?.contains(name) ?? false })?.key {
            return owner
        }
        return name
    }

    /// The class number of `name`'s rows in its root's records table (0 for the root).
    func classNumber(of name: String) -> Int {
        guard let index = descriptions[root(of: name)]?.subentityNames?.firstIndex(of: name) else { return 0 }
        return index + 1
    }

    /// Whether `name`'s rows share a records table with other entities.
    func sharesTable(_ name: String) -> Bool {
        !(descriptions[root(of: name)]?.subentityNames ?? []).isEmpty
    }

    /// `name` and every entity that inherits from it, directly or not. A hierarchy's root covers
    /// all of its members; a member's descendants are known from the descriptions' superentity
    /// notes (recorded since this version: without them, only the member itself).
    func descendants(of name: String) -> [String] {
        if root(of: name) == name, let members = descriptions[name]?.subentityNames { return [name] + members }
        var result = [name]
        var changed = true
        while changed {
            changed = false
            for (other, description) in descriptions.sorted(by: { $0.key < $1.key })
            where !result.contains(other) && description.superentity.map(result.contains) == true {
                result.append(other)
                changed = true
            }
        }
        return result
    }

    /// Whether the descriptions tell which entities inherit from `name`: an entity of its own, a
    /// hierarchy's root (every member), or a member of a hierarchy whose members' descriptions all
    /// note their superentity (recorded by a writable open of this version or later).
    package func knowsDescendants(of name: String) -> Bool {
        let root = root(of: name)
        guard root != name, let members = descriptions[root]?.subentityNames else { return true }
        return members.allSatisfy { descriptions[$0]?.superentity != nil }
    }

    /// The entities whose descriptions were recorded before they noted their superentity, in a
    /// hierarchy: which rows their constraints, indexes and relationships cover is unknown, so
    /// `verify` leaves those out and `dump` gives only the entity's own rows. Opening the store
    /// writable once with the app records the notes.
    package var entitiesWithoutNotes: [String] { entityNames.filter { !knowsDescendants(of: $0) } }

    /// The records table of `name`'s rows.
    func recordsTable(of name: String) throws -> Table {
        try table(StoreLayout.recordsTable(of: root(of: name)))
    }

    /// The table holding the edges of `relationship` of `entity`: the one its description names,
    /// or, in descriptions recorded before the name was kept, the entity's own or an ancestor's.
    func edgeTableName(of relationship: StoredEntity.StoredRelationship, entity: String) -> String? {
        if let table = relationship.table { return tableNames.contains(table) ? table : nil }
        var current: String? = entity
        // At most one step per entity: a cycle (a description written wrongly) ends the walk.
        for _ in 0...descriptions.count {
            guard let name = current else { break }
            let table = StoreLayout.edgeTable(of: name, relationship.name)
            if tableNames.contains(table) { return table }
            current = descriptions[name]?.superentity
        }
        return nil
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

    /// The unique (`u`) or index (`i`) tables of `entity`, with their attributes.
    func keyedTables(of entity: String, _ kind: StoreLayout.KeyTableKind) -> [(name: String, attributes: [String])] {
        StoreLayout.keyTables(kind, of: entity, among: tableNames)
    }

    /// The identifier of `row` reached through `entity`'s table: of the class its row id names.
    func identifier(_ entity: String, _ row: UInt64) -> PersistentIdentifier {
        let root = root(of: entity)
        let number = Store.EntityTables.classNumber(ofRow: row)
        let concrete =
            number == 0
            ? (descriptions[root]?.subentityNames == nil ? entity : root)
            : descriptions[root]?.subentityNames.flatMap { number <= $0.count ? $0[number - 1] : nil } ?? entity
        return PersistentIdentifier(entityName: concrete, storeIdentifier: storeIdentifier, rowID: row)
    }

    /// The names of the entities the store describes, sorted.
    package var entityNames: [String] { descriptions.keys.sorted() }

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

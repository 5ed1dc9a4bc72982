/// The names of a store's tables and the keys of its `meta` table: the one place either is spelled.
/// The app's `Store`, the model-free inspector and verifier, migrations and the tools all name
/// tables and meta entries through it (`Docs/Design.md`, "Tables" and "The `meta` table", says what each holds).
///
/// ```swift
/// let records = try environment.openTable(StoreLayout.recordsTable(of: "Book"), create: true)
/// let version = try txn.get(StoreLayout.formatKey, in: meta)
/// ```
package enum StoreLayout {
    // MARK: Tables

    /// The store's own entries: format, identifier, schema version, entity descriptions, row
    /// counters and the history floor.
    package static let metaTable = "meta"
    /// The history: one entry per commit that changed rows.
    package static let historyTable = "h"

    /// Sync: what is known of each synced row, under its global identifier (`Docs/Sync.md`).
    package static let syncRowsTable = "s/rows"
    /// Sync: each synced local row's global identifier, under its root entity and row id.
    package static let syncIdentifiersTable = "s/ids"
    /// Sync: the rows changed here and not yet pushed, with the fields changed.
    package static let syncPendingTable = "s/pending"
    /// Sync: the replica's state (its identifier, clock, positions, the batch being pushed).
    package static let syncStateTable = "s/state"
    /// The sync tables, in the order a store opens them.
    package static let syncTables = [syncRowsTable, syncIdentifiersTable, syncPendingTable, syncStateTable]

    /// The tables whose values an encrypted store seals (`Docs/Encryption.md`): records,
    /// external values, full-text postings, vector indexes, history, sync state and the store's
    /// own entries. Index, unique and edge tables are not: their values are row ids, and their
    /// keys order the store.
    package static let sealedTables = SealedTables(
        prefixes: ["e/", "x/", "s/", textPrefix, vectorPrefix], names: [metaTable, historyTable])

    /// The records of an entity's hierarchy, named after its root entity.
    ///
    /// ```swift
    /// StoreLayout.recordsTable(of: "Book")   // "e/Book"
    /// ```
    package static func recordsTable(of root: String) -> String { recordsPrefix + root }

    /// The external-storage values of an entity's hierarchy, named after its root entity.
    ///
    /// ```swift
    /// StoreLayout.externalsTable(of: "Book")   // "x/Book"
    /// ```
    package static func externalsTable(of root: String) -> String { "x/" + root }

    /// The full-text index of an `@Attribute(.spotlight)` attribute, named after the entity that
    /// declares the attribute; an encrypted store's, whose terms are keyed hashes, is marked with
    /// ``hashedMarker`` (`Docs/Search.md`).
    ///
    /// ```swift
    /// StoreLayout.textTable(of: "Note", "body")                 // "t/Note/body"
    /// StoreLayout.textTable(of: "Note", "body", hashed: true)   // "t/Note/#body"
    /// ```
    package static func textTable(of entity: String, _ attribute: String, hashed: Bool = false) -> String {
        "\(textPrefix)\(entity)/\(hashed ? String(hashedMarker) : "")\(attribute)"
    }

    /// The full-text tables of `entity` among `names`, in name order.
    package static func textTables(of entity: String, among names: some Sequence<String>) -> [String] {
        names.filter { $0.hasPrefix("\(textPrefix)\(entity)/") }.sorted()
    }

    /// Whether `name` is a full-text index's table.
    package static func isTextTable(_ name: String) -> Bool { name.hasPrefix(textPrefix) }

    private static let textPrefix = "t/"

    /// The vector index of an `@Attribute(.vector(…))` attribute, named after the entity that
    /// declares the attribute (``VectorLayout``).
    ///
    /// ```swift
    /// StoreLayout.vectorTable(of: "Photo", "embedding")   // "v/Photo/embedding"
    /// ```
    package static func vectorTable(of entity: String, _ attribute: String) -> String {
        "\(vectorPrefix)\(entity)/\(attribute)"
    }

    /// The vector tables of `entity` among `names`, in name order.
    package static func vectorTables(of entity: String, among names: some Sequence<String>) -> [String] {
        names.filter { $0.hasPrefix("\(vectorPrefix)\(entity)/") }.sorted()
    }

    private static let vectorPrefix = "v/"

    /// A relationship's edges, named after the entity that declares it.
    ///
    /// ```swift
    /// StoreLayout.edgeTable(of: "Author", "books")   // "r/Author/books"
    /// ```
    package static func edgeTable(of entity: String, _ relationship: String) -> String { "r/\(entity)/\(relationship)" }

    /// What a key table holds: one row per key (a uniqueness constraint) or any number (an index).
    package enum KeyTableKind: String, CaseIterable, Sendable {
        case unique = "u"
        case index = "i"
    }

    /// A uniqueness constraint's or an index's table, named after the entity that declares it and
    /// the attributes of its key, in order. An attribute keyed by its keyed hash (a sensitive
    /// attribute in an encrypted store, `Docs/Encryption.md`) is marked with ``hashedMarker``, so
    /// the name says which form the keys have, and a table of the other form is another table.
    ///
    /// ```swift
    /// StoreLayout.keyTable(.index, of: "Book", ["year", "title"])   // "i/Book/year,title"
    /// StoreLayout.keyTable(.unique, of: "Patient", ["email"], hashed: ["email"])   // "u/Patient/#email"
    /// ```
    package static func keyTable(
        _ kind: KeyTableKind, of entity: String, _ attributes: [String], hashed: Set<String> = []
    ) -> String {
        let parts = attributes.map { hashed.contains($0) ? "\(hashedMarker)\($0)" : $0 }
        return "\(kind.rawValue)/\(entity)/\(parts.joined(separator: ","))"
    }

    /// What marks a hashed attribute in a key table's name (never part of a Swift identifier).
    package static let hashedMarker: Character = "#"

    /// The key tables of `kind` that `entity` declares among `names`, with their attributes
    /// (markers removed) and those keyed by hash, in name order.
    package static func keyTables(
        _ kind: KeyTableKind, of entity: String, among names: some Sequence<String>
    ) -> [(name: String, attributes: [String], hashed: Set<String>)] {
        let start = "\(kind.rawValue)/\(entity)/"
        return names.filter { $0.hasPrefix(start) }.sorted().map { name in
            let parts = name.dropFirst(start.count).split(separator: ",")
            let hashed = parts.filter { $0.first == hashedMarker }.map { String($0.dropFirst()) }
            return (name, parts.map { String($0.first == hashedMarker ? $0.dropFirst() : $0) }, Set(hashed))
        }
    }

    /// Whether a store's rewrite under another data key leaves the table `name` out, for the
    /// store to fill again from its records as it next opens (``isKeyTable(_:)``,
    /// ``isTextTable(_:)``): a hashed key or full-text table, whose hashes the new data key
    /// changes, and, when the rewrite encrypts a plaintext store, every key and full-text table,
    /// since which of their attributes are sensitive (to be hashed, not copied in clear) only the
    /// app's schema says, and an encrypted store keeps no term in clear.
    package static func isRebuiltByRewrite(_ name: String, encrypting: Bool) -> Bool {
        guard isKeyTable(name) || isTextTable(name) else { return false }
        return encrypting || name.contains(hashedMarker)
    }

    /// Whether `name` is a uniqueness constraint's or an index's table.
    package static func isKeyTable(_ name: String) -> Bool {
        KeyTableKind.allCases.contains { name.hasPrefix("\($0.rawValue)/") }
    }

    /// Whether `name` is an entity hierarchy's records table.
    package static func isRecordsTable(_ name: String) -> Bool { name.hasPrefix(recordsPrefix) }

    private static let recordsPrefix = "e/"

    // MARK: Keys of the meta table

    /// The store format's version (one byte).
    package static let formatKey = Array("format".utf8)
    /// The store's identifier (a UUID's 16 bytes).
    package static let storeKey = Array("store".utf8)
    /// The version of the versioned schema the store was last opened with.
    package static let schemaVersionKey = Array("schema.version".utf8)
    /// The oldest commit the history still holds in full.
    package static let historyFloorKey = Array("history.floor".utf8)
    /// What every entity description's key starts with.
    package static let entityDescriptionPrefix = Array("entity:".utf8)

    /// Sync state: the replica's identifier (16 bytes).
    package static let syncReplicaKey = Array("replica".utf8)
    /// Sync state: the hybrid logical clock's last reading.
    package static let syncClockKey = Array("clock".utf8)
    /// Sync state: the last commit whose history entry was turned into pending changes.
    package static let syncOutboxKey = Array("outbox".utf8)
    /// Sync state: the position in the zone's feed that every batch up to has been applied.
    package static let syncPositionKey = Array("position".utf8)
    /// Sync state: the batch being pushed, as sent (sent again, the same, until the server has it).
    package static let syncInFlightKey = Array("inflight".utf8)
    /// Sync state: references to rows not here yet, kept until the rows arrive.
    package static let syncUnresolvedKey = Array("unresolved".utf8)
    /// Sync state: the synced fields of the schema the replica last opened with (sorted
    /// `entity.field` names): when they change, kept fields the schema now has are applied.
    package static let syncFieldsKey = Array("fields".utf8)

    /// The key of an entity's stored description.
    ///
    /// ```swift
    /// StoreLayout.entityDescriptionKey("Book")   // "entity:Book"
    /// ```
    package static func entityDescriptionKey(_ entity: String) -> [UInt8] { entityDescriptionPrefix + Array(entity.utf8) }

    /// The key of an entity's row counter (the last row id it gave out).
    ///
    /// ```swift
    /// StoreLayout.rowCounterKey("Book")   // "rowid:Book"
    /// ```
    package static func rowCounterKey(_ entity: String) -> [UInt8] { Array("rowid:\(entity)".utf8) }
}

import Foundation

extension StoreVerifier {
    /// A verifier of an inspected store against its own descriptions, for a tool without the
    /// app's models (`cairn verify`).
    ///
    /// Every check runs as for ``ModelContainer/verify()``. Unique and index entries are checked
    /// against the keys the rows' records give (``RecordKey``), computed from the types the
    /// description records; where it does not tell enough (``StoreCatalog/recordKey(_:of:unique:)``), they
    /// are checked against the rows they name (each row has exactly one entry in each of its
    /// entity's keyed tables, and each entry names a row). Records are checked field by field against the
    /// types the description records. Inverse edges are checked for relationships whose
    /// description notes their inverse (recorded by a writable open of this version or later); an
    /// entity in a hierarchy whose descriptions lack the superentity notes has its records checked
    /// but not its keyed tables and relationships (``StoreInspector/entitiesWithoutNotes``).
    init(inspecting store: StoreInspector) throws {
        let names = store.entityNames
        var classes: [Table: [Int: String]] = [:]
        var entities: [Entity] = []
        for name in names {
            let records = try store.recordsTable(of: name)
            let shares = store.catalog.sharesTable(name)
            if shares { classes[records, default: [:]][store.catalog.classNumber(of: name)] = name }
            entities.append(
                Entity(
                    name: name, records: records, classNumber: store.catalog.classNumber(of: name), sharesTable: shares,
                    descendants: store.catalog.descendants(of: name)))
        }
        var keyed: [Keyed] = []
        // Entities whose covered rows are unknown (descriptions without notes) are left out.
        for name in names where store.knowsDescendants(of: name) {
            for kind in StoreLayout.KeyTableKind.allCases {
                for (table, attributes, hashed) in store.catalog.keyedTables(of: name, kind) {
                    keyed.append(
                        Keyed(
                            entity: name, table: try store.table(table), unique: kind == .unique, names: attributes,
                            hashed: hashed))
                }
            }
        }
        var relationships: [Relationship] = []
        for name in names where store.knowsDescendants(of: name) {
            for relationship in store.descriptions[name]!.relationships
            where store.knowsDescendants(of: relationship.destination) {
                // Each table once, with the entity that declares it (the table carries its name).
                guard let tableName = store.catalog.edgeTableName(of: relationship, entity: name),
                    tableName == StoreLayout.edgeTable(of: name, relationship.name)
                else { continue }
                let inverse = relationship.inverse.flatMap { inverseName in
                    store.descriptions[relationship.destination]?.relationships.first { $0.name == inverseName }
                }
                let inverseTable = try inverse.flatMap { inverse in
                    try store.catalog.edgeTableName(of: inverse, entity: relationship.destination).map { try store.table($0) }
                }
                relationships.append(
                    Relationship(
                        owner: name, name: relationship.name, destination: relationship.destination,
                        table: try store.table(tableName),
                        inverse: inverse.flatMap { inverse in inverseTable.map { (inverse.name, $0) } },
                        mayDangle: inverse == nil || inverse?.deleteRule == nil
                            || inverse?.deleteRule == Schema.Relationship.DeleteRule.noAction.rawValue))
            }
        }
        let descriptions = store.descriptions
        // The keyed tables over each entity's rows (its own and those it inherits), with the key
        // their records give when the description tells enough to compute it.
        var covering: [String: [(keyed: Keyed, key: RecordKey?)]] = [:]
        for keyed in keyed {
            let key = store.catalog.recordKey(
                keyed.names, of: keyed.entity, unique: keyed.unique, hashed: keyed.hashed,
                hasher: store.environment.keyHasher)
            for entity in store.catalog.descendants(of: keyed.entity) { covering[entity, default: []].append((keyed, key)) }
        }
        let compared = Set(covering.values.joined().filter { $0.key != nil }.map(\.keyed.table.name))
        self.init(
            environment: store.environment, storeIdentifier: store.storeIdentifier, entities: entities, keyed: keyed,
            relationships: relationships, classes: classes,
            readRecord: { reader, entity in
                let notEqualToItself = try Self.readFields(of: reader, described: descriptions[entity])
                var keys: [String: [UInt8]] = [:]
                for (keyed, key) in covering[entity] ?? [] {
                    if let key {
                        keys[keyed.table.name] = try key.key(of: reader)
                    } else if keyed.unique && keyed.names.contains(where: notEqualToItself.contains) {
                        // A unique value not equal to itself (a NaN) has no entry: an empty key says so.
                        keys[keyed.table.name] = []
                    }
                }
                return keys
            }, comparedTables: compared)
        skipsEmptyKeyTables = true
    }

    /// Reads every described field of a record by its stored type; returns the attributes whose
    /// value is not equal to itself (a NaN).
    private static func readFields(of reader: RecordReader, described: StoredEntity?) throws -> Set<String> {
        var notEqualToItself: Set<String> = []
        for attribute in described?.attributes ?? [] {
            guard let payload = reader.payload(tag: attribute.tag) else { continue }
            do throws(StorageError) {
                let value = try StoredValue(field: payload, type: attribute.type)
                if !value.equalsItself { notEqualToItself.insert(attribute.name) }
            } catch {
                throw StorageError(
                    code: error.code, message: "its \(attribute.name) (\(attribute.type)) cannot be read: \(error.message)")
            }
        }
        return notEqualToItself
    }

}

extension StoreInspector {
    /// Verifies the store against its own descriptions (see
    /// `StoreVerifier.init(inspecting:)`): every page, record, entry and edge.
    ///
    /// ```swift
    /// let report = try inspector.verify()
    /// print(report.isClean)
    /// ```
    /// - Parameter progress: Told the number of rows and entries read so far, now and then.
    /// - Throws: `StorageError` only when the store cannot be read at all.
    package func verify(progress: ((Int) -> Void)? = nil) throws -> VerificationReport {
        var verifier = try StoreVerifier(inspecting: self)
        verifier.progress = progress
        return try verifier.verify()
    }
}

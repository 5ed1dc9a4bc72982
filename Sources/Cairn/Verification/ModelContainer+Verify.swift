import Foundation

extension ModelContainer {
    /// Reads the whole store and checks that it is consistent, reporting every problem instead of
    /// stopping at the first.
    ///
    /// It first walks every page of the data file without the storage engine (the page kinds,
    /// bounds, key order, depth and counts of every tree, and the free list); damaged pages are
    /// reported as ``VerificationReport/Problem/Kind/damagedPage`` and the rows are then not read.
    /// Then it checks that every record decodes and passes its checksum; that every uniqueness and
    /// index entry passes its checksum, names an existing row and agrees with that row's values,
    /// and that every row has its entries; that no two rows hold the same unique values; that
    /// every relationship entry passes its checksum, has its inverse entry, and points at rows
    /// that exist. Damage becomes a ``VerificationReport/Problem`` with the identifiers involved:
    /// verifying never crashes and never throws because of what it finds. The rows and entries are
    /// read in one read transaction, so they form one consistent snapshot while other contexts
    /// keep saving; the page walk before it reads the newest snapshot of its own moment.
    ///
    /// ```swift
    /// let report = try container.verify()
    /// print(report.rowsByEntity)                // ["Book": 1200, "Author": 80]
    /// for problem in report.problems {
    ///     print(problem.kind, problem.table, problem.identifiers, problem.message)
    /// }
    /// ```
    /// - Returns: The counts of rows and entries, and every problem found.
    /// - Throws: `StorageError` only when the store cannot be read at all (for example, it was
    ///   closed, or an I/O error).
    /// - Complexity: O(*n*) in the store's rows and entries, decoding every record once.
    public func verify() throws -> VerificationReport {
        try StoreVerifier(container: self).verify()
    }
}

extension StoreVerifier {
    /// A verifier of `container`'s store against its schema: rows decode into its models, and
    /// keyed tables are checked against the keys the models' values give.
    init(container: ModelContainer) {
        let store = container.store
        let decoder = ModelContext(container)
        let sorted = store.entities.sorted { $0.key < $1.key }
        var classes: [Table: [Int: String]] = [:]
        for (name, tables) in sorted where tables.lineage.hierarchy != nil {
            classes[tables.layout.records, default: [:]][tables.lineage.classNumber] = name
        }
        self.init(
            environment: store.environment, storeIdentifier: store.identifier,
            entities: sorted.map { name, tables in
                Entity(
                    name: name, records: tables.layout.records, classNumber: tables.lineage.classNumber,
                    sharesTable: tables.lineage.hierarchy != nil, descendants: tables.descendants.map(\.entity.name))
            },
            // A table an entity inherits is checked once, with the entity that declares it.
            keyed: sorted.flatMap { name, tables in
                let entity = tables.entity
                return tables.keys.uniques.filter { keyed in
                    entity.declaring { $0.uniquenessConstraints.contains(keyed.names) } === entity
                }.map { Keyed(entity: name, table: $0.table, unique: true, names: $0.names) }
                    + tables.keys.indexes.filter { keyed in entity.declaring { $0.indices.contains(keyed.names) } === entity
                    }
                    .map { Keyed(entity: name, table: $0.table, unique: false, names: $0.names) }
            },
            relationships: sorted.flatMap { name, tables in
                let entity = tables.entity
                return entity.relationships.filter { relationship in
                    entity.declaring { $0.relationshipsByName[relationship.name] != nil } === entity
                }.map { relationship in
                    Relationship(
                        owner: name, name: relationship.name, destination: relationship.destination,
                        table: tables.layout.edges[relationship.name]!,
                        inverse: relationship.inverseName.flatMap { inverse in
                            store.entities[relationship.destination]?.layout.edges[inverse].map { (inverse, $0) }
                        },
                        mayDangle: store.canDangle(relationship))
                }
            },
            classes: classes,
            readRecord: { reader, entity in
                let tables = store.entities[entity]!
                // Every attribute decodes through the app's types; the keys come from the record.
                _ = try decoder.rows.scratchModel(from: reader, tables: tables)
                var keys: [String: [UInt8]] = [:]
                // An empty unique key (a value not equal to itself, such as a NaN) has no entry.
                for keyed in tables.keys.uniques + tables.keys.indexes { keys[keyed.table.name] = try keyed.key(ofRecord: reader) }
                return keys
            }, comparedTables: Set(store.entities.values.flatMap { ($0.keys.uniques + $0.keys.indexes).map(\.table.name) }))
    }
}

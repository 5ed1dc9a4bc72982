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
    /// - Throws: ``StorageError`` only when the store cannot be read at all (for example, it was
    ///   closed, or an I/O error).
    /// - Complexity: O(*n*) in the store's rows and entries, decoding every record once.
    public func verify() throws -> VerificationReport {
        var report = VerificationReport()
        let store = self.store
        let decoder = ModelContext(self)
        // Every page first, without the storage engine: reading a damaged page through LMDB can
        // stop the process, so the rows and entries are read only when every page is sound.
        let pages = try store.environment.checkPages()
        for problem in pages.problems { report.add(.damagedPage, table: problem.table ?? "", [], "\(problem)") }
        guard pages.problems.isEmpty else { return report }
        try store.read { txn in
            var rows: [String: Set<UInt64>] = [:]
            // For each unique or index table: the key each row's values give → those rows.
            var expected: [String: [[UInt8]: [UInt64]]] = [:]
            for (name, tables) in store.entities.sorted(by: { $0.key < $1.key }) {
                var ids = Set<UInt64>()
                var count = 0
                // A hierarchy's classes share a table (`Store+Hierarchy.swift`): each reads its own rows.
                let isMember = tables.hierarchy != nil
                try txn.scan(tables.records) { key, value in
                    let row: UInt64
                    do {
                        row = try EntryLayout.row(key: key, table: tables.records)
                    } catch {
                        if !isMember || tables.classNumber == 0 {
                            count += 1
                            report.add(.damagedRecord, table: tables.records.name, [], "\(error)")
                        }
                        return true
                    }
                    guard !isMember || tables.tables(forRow: row) === tables else { return true }
                    count += 1
                    ids.insert(row)
                    do {
                        let model = try decoder.rows.scratchModel(
                            from: RecordReader(copying: value, key: key), tables: tables)
                        for keyed in tables.uniques + tables.indexes {
                            expected[keyed.table.name, default: [:]][keyed.key(of: model), default: []].append(row)
                        }
                    } catch {
                        report.add(
                            .damagedRecord, table: tables.records.name, [identifier(name, row)],
                            "\(identifier(name, row)) cannot be read: \(error)")
                    }
                    return true
                }
                rows[name] = ids
                report.rowsByEntity[name] = ids.count
                report.entriesByTable[tables.records.name, default: 0] += count
            }
            // An entity's rows with its subclasses': what its relationships, constraints and indexes cover.
            let covered = store.entities.mapValues { tables in
                tables.descendants.reduce(into: Set<UInt64>()) { $0.formUnion(rows[$1.entity.name] ?? []) }
            }
            for (name, tables) in store.entities.sorted(by: { $0.key < $1.key }) {
                // A table an entity inherits is checked once, with the entity that declares it.
                let entity = tables.entity
                for keyed in tables.uniques
                where entity.declaring({ $0.uniquenessConstraints.contains(keyed.names) }) === entity {
                    try verifyKeyed(
                        keyed, entity: name, unique: true, rows: covered[name]!, expected: expected, txn, &report)
                }
                for keyed in tables.indexes where entity.declaring({ $0.indices.contains(keyed.names) }) === entity {
                    try verifyKeyed(
                        keyed, entity: name, unique: false, rows: covered[name]!, expected: expected, txn, &report)
                }
            }
            try verifyEdges(rows: covered, decoder: decoder, txn, &report)
        }
        return report
    }

    /// The identifier of row `row` of `entity`, or of the subclass the row id names.
    private func identifier(_ entity: String, _ row: UInt64) -> PersistentIdentifier {
        let concrete = store.entities[entity]?.tables(forRow: row)?.entity.name ?? entity
        return PersistentIdentifier(entityName: concrete, storeIdentifier: store.identifier, rowID: row)
    }

    /// Checks one unique or index table against the keys its entity's rows give.
    private func verifyKeyed(
        _ keyed: Store.EntityTables.UniqueConstraint, entity: String, unique: Bool, rows: Set<UInt64>,
        expected: [String: [[UInt8]: [UInt64]]], _ txn: borrowing ReadTransaction, _ report: inout VerificationReport
    ) throws {
        let table = keyed.table
        let wanted = expected[table.name] ?? [:]
        struct Entry: Hashable {
            let key: [UInt8]
            let row: UInt64
        }
        var present = Set<Entry>()
        var count = 0
        try txn.scan(table) { key, value in
            count += 1
            let row: UInt64
            do {
                row = try EntryLayout.row(keyedValue: value, key: key, table: table)
            } catch {
                report.add(.damagedEntry, table: table.name, [], "\(error)")
                return true
            }
            let keyBytes = Array(key)
            present.insert(Entry(key: keyBytes, row: row))
            if !rows.contains(row) {
                report.add(
                    .strayEntry, table: table.name, [identifier(entity, row)],
                    "An entry names \(identifier(entity, row)), which does not exist.")
            } else if !(wanted[keyBytes]?.contains(row) ?? false) {
                report.add(
                    .strayEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) is under a key its values do not give.")
            }
            return true
        }
        report.entriesByTable[table.name] = count
        for (key, keyRows) in wanted.sorted(by: { $0.value.min()! < $1.value.min()! }) {
            if unique && keyRows.count > 1 {
                report.add(
                    .duplicateUniqueValue, table: table.name, keyRows.sorted().map { identifier(entity, $0) },
                    "\(keyRows.count) rows hold the same values of (\(keyed.names.joined(separator: ", "))).")
            }
            for row in keyRows where !present.contains(Entry(key: key, row: row)) {
                report.add(
                    .missingEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) has no entry for its values of (\(keyed.names.joined(separator: ", ")))."
                )
            }
        }
    }

    /// Checks every relationship table: checksums, owners and targets that exist, inverse edges.
    private func verifyEdges(
        rows: [String: Set<UInt64>], decoder: ModelContext, _ txn: borrowing ReadTransaction,
        _ report: inout VerificationReport
    ) throws {
        struct Pair: Hashable {
            let owner: UInt64
            let target: UInt64
        }
        var pairs: [String: Set<Pair>] = [:]
        // An inherited relationship's table is checked once, with the entity that declares it.
        let relationships = store.entities.sorted(by: { $0.key < $1.key }).flatMap { name, tables in
            let entity = tables.entity
            return entity.relationships.filter { relationship in
                entity.declaring { $0.relationshipsByName[relationship.name] != nil } === entity
            }.map { (name, tables, $0) }
        }
        for (name, tables, relationship) in relationships {
            let table = tables.edges[relationship.name]!
            var found = Set<Pair>()
            var count = 0
            try txn.scan(table) { key, value in
                count += 1
                let owner: UInt64
                let edge: EntryLayout.Edge
                do {
                    owner = try EntryLayout.row(key: key, table: table)
                    edge = try EntryLayout.edge(value: value, ownerKey: key, table: table)
                } catch {
                    report.add(.damagedEntry, table: table.name, [], "\(error)")
                    return true
                }
                found.insert(Pair(owner: owner, target: edge.target))
                let ownerID = identifier(name, owner)
                let targetID = identifier(relationship.destination, edge.target)
                if !(rows[name]?.contains(owner) ?? false) {
                    report.add(.missingRow, table: table.name, [ownerID], "Edges of \(ownerID), which does not exist.")
                }
                if !(rows[relationship.destination]?.contains(edge.target) ?? false) && !store.canDangle(relationship) {
                    report.add(
                        .missingRow, table: table.name, [ownerID, targetID],
                        "\(ownerID).\(relationship.name) points at \(targetID), which does not exist.")
                }
                return true
            }
            pairs[table.name] = found
            report.entriesByTable[table.name] = count
        }
        for (name, tables, relationship) in relationships {
            guard let inverseName = relationship.inverseName,
                let inverseTable = store.entities[relationship.destination]?.edges[inverseName]
            else { continue }
            let table = tables.edges[relationship.name]!
            let inverse = pairs[inverseTable.name] ?? []
            for pair in (pairs[table.name] ?? []).sorted(by: { ($0.owner, $0.target) < ($1.owner, $1.target) }) {
                // An edge to or from a row that is gone is reported above (or allowed to dangle).
                guard rows[name]?.contains(pair.owner) ?? false,
                    rows[relationship.destination]?.contains(pair.target) ?? false,
                    !inverse.contains(Pair(owner: pair.target, target: pair.owner))
                else { continue }
                let ownerID = identifier(name, pair.owner)
                let targetID = identifier(relationship.destination, pair.target)
                report.add(
                    .asymmetricEdge, table: table.name, [ownerID, targetID],
                    "\(ownerID).\(relationship.name) holds \(targetID), but \(targetID).\(inverseName) does not hold "
                        + "\(ownerID).")
            }
        }
    }
}

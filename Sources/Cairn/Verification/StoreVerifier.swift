import Foundation

/// Reads a whole store and checks that it is consistent, reporting every problem instead of
/// stopping at the first (``ModelContainer/verify()``, `cairn verify`).
///
/// It checks a store against a description of its entities, keyed tables and relationships: the
/// app's schema (``ModelContainer/verify()``, ``init(container:)``), or the store's own stored
/// descriptions when no models are at hand (the `cairn` tool, ``init(descriptions:environment:storeIdentifier:)``
/// in `StoreVerifier+Descriptions.swift`). One set of checks serves both; what only models can
/// tell (the key each row's values give) is checked when the description can compute it.
///
/// It first walks every page of the data file without the storage engine (page kinds, bounds,
/// key order, depth and counts of every tree, and the free list); damaged pages are reported
/// and the rows are then not read. Then, in one read transaction (one snapshot while others
/// save): every record decodes and passes its checksum; every unique and index entry passes its
/// checksum, names an existing row, and (when keys are known) agrees with that row's values, and
/// every row has its entries; no two rows hold the same unique values; every relationship entry
/// passes its checksum, has its inverse entry, and points at rows that exist.
struct StoreVerifier {
    /// One entity whose rows are checked.
    struct Entity {
        var name: String
        var records: Table
        /// The class number its rows carry in a table its hierarchy shares (0 for the root).
        var classNumber: Int
        /// Whether its records table is shared by a hierarchy of models.
        var sharesTable: Bool
        /// It and every entity that inherits from it, directly or not: the rows its relationships,
        /// constraints and indexes cover.
        var descendants: [String]
    }

    /// A uniqueness constraint's or an index's table, checked once, with the entity that declares it.
    struct Keyed {
        var entity: String
        var table: Table
        var unique: Bool
        var names: [String]
        /// The attributes keyed by their keyed hash (an encrypted store's sensitive ones).
        var hashed: Set<String> = []
    }

    /// A relationship's table, checked once, with the entity that declares it.
    struct Relationship {
        var owner: String
        var name: String
        var destination: String
        var table: Table
        /// The inverse relationship's name and table, when it has one.
        var inverse: (name: String, table: Table)?
        /// Whether its targets may be gone without it being told (no inverse, or the inverse's
        /// delete rule is `.noAction`).
        var mayDangle: Bool
    }

    let environment: LMDBEnvironment
    let storeIdentifier: String
    var entities: [Entity]
    var keyed: [Keyed]
    var relationships: [Relationship]
    /// The concrete entity of a row of a shared records table, by the row's class number.
    var classes: [Table: [Int: String]]
    /// Decodes a row's record (throwing when it cannot be read) and returns the key each of its
    /// keyed tables must hold for it, by table name (for the tables in ``comparedTables``). An
    /// empty key says that the row has no entry in that table (a unique value not equal to
    /// itself, such as a NaN), for any table.
    var readRecord: (_ reader: RecordReader, _ entity: String) throws -> [String: [UInt8]]?
    /// The keyed tables whose keys `readRecord` gives (``RecordKey``), so their entries are
    /// compared with them; in the others each row is checked to have one entry.
    var comparedTables: Set<String>
    /// Told the number of rows and entries read so far, now and then.
    var progress: ((Int) -> Void)?
    /// Whether an empty unique or index table is left unchecked: for a verifier without the
    /// app's models, which cannot tell one the app no longer declares (emptied as it opens) or
    /// fills at its next open (one it added, or a rewrite left out) from one emptied by damage.
    var skipsEmptyKeyTables = false

    /// Runs every check.
    ///
    /// - Throws: `StorageError` only when the store cannot be read at all.
    func verify() throws -> VerificationReport {
        var report = VerificationReport()
        // Every page first, without the storage engine: reading a damaged page through LMDB can
        // stop the process, so the rows and entries are read only when every page is sound.
        let pages = try environment.checkPages()
        for problem in pages.problems { report.add(.damagedPage, table: problem.table ?? "", [], "\(problem)") }
        guard pages.problems.isEmpty else { return report }
        var visited = 0
        func tick() {
            visited += 1
            if visited & 0x3FFF == 0 { progress?(visited) }
        }
        try environment.read { txn in
            var rows: [String: Set<UInt64>] = [:]
            // For each unique or index table: the key each row's values give → those rows.
            var expected: [String: [[UInt8]: [UInt64]]] = [:]
            // For each unique table: the rows that have no entry in it.
            var keyless: [String: Set<UInt64>] = [:]
            for entity in entities.sorted(by: { $0.name < $1.name }) {
                var ids = Set<UInt64>()
                var count = 0
                // A sealed record that does not authenticate is reported as a damaged one is.
                let unreadable = { (key: UnsafeRawBufferPointer, error: StorageError) -> Bool in
                    tick()
                    count += 1
                    let row = try? EntryLayout.row(key: key, table: entity.records)
                    if let row { ids.insert(row) }
                    let id = row.map { identifier(entity.name, $0, entity.records) }
                    let text = (id.map { "\($0) cannot be read: " } ?? "") + "\(error)"
                    report.add(.damagedRecord, table: entity.records.name, id.map { [$0] } ?? [], text)
                    return true
                }
                try txn.scan(entity.records, onUnreadable: unreadable) { key, value in
                    tick()
                    let row: UInt64
                    do {
                        row = try EntryLayout.row(key: key, table: entity.records)
                    } catch {
                        if !entity.sharesTable || entity.classNumber == 0 {
                            count += 1
                            report.add(.damagedRecord, table: entity.records.name, [], "\(error)")
                        }
                        return true
                    }
                    guard !entity.sharesTable || Store.EntityTables.classNumber(ofRow: row) == entity.classNumber
                    else { return true }
                    count += 1
                    ids.insert(row)
                    do {
                        let keys = try readRecord(RecordReader(copying: value, key: key), entity.name)
                        for (table, key) in keys ?? [:] {
                            // An empty key: the row has no entry (a unique value not equal to itself).
                            if key.isEmpty { keyless[table, default: []].insert(row) } else {
                                expected[table, default: [:]][key, default: []].append(row)
                            }
                        }
                    } catch {
                        let id = identifier(entity.name, row, entity.records)
                        report.add(.damagedRecord, table: entity.records.name, [id], "\(id) cannot be read: \(error)")
                    }
                    return true
                }
                rows[entity.name] = ids
                report.rowsByEntity[entity.name] = ids.count
                report.entriesByTable[entity.records.name, default: 0] += count
            }
            let covered = Dictionary(
                uniqueKeysWithValues: entities.map { entity in
                    (entity.name, entity.descendants.reduce(into: Set<UInt64>()) { $0.formUnion(rows[$1] ?? []) })
                })
            for keyed in keyed.sorted(by: { ($0.entity, $0.table.name) < ($1.entity, $1.table.name) }) {
                try verify(
                    keyed, rows: (covered[keyed.entity] ?? []).subtracting(keyless[keyed.table.name] ?? []),
                    expected: comparedTables.contains(keyed.table.name) ? expected[keyed.table.name] ?? [:] : nil,
                    txn, &report, tick)
            }
            try verifyEdges(rows: covered, txn, &report, tick)
        }
        return report
    }

    /// The identifier of row `row` of `entity`, or of the subclass the row id names.
    func identifier(_ entity: String, _ row: UInt64, _ records: Table? = nil) -> PersistentIdentifier {
        let table = records ?? entities.first { $0.name == entity }?.records
        let concrete = table.flatMap { classes[$0]?[Store.EntityTables.classNumber(ofRow: row)] } ?? entity
        return PersistentIdentifier(entityName: concrete, storeIdentifier: storeIdentifier, rowID: row)
    }

    /// Checks one unique or index table against the rows it covers, and against the keys their
    /// values give when those are known (`expected`).
    private func verify(
        _ keyed: Keyed, rows: Set<UInt64>, expected wanted: [[UInt8]: [UInt64]]?, _ txn: borrowing ReadTransaction,
        _ report: inout VerificationReport, _ tick: () -> Void
    ) throws {
        let table = keyed.table
        let entity = keyed.entity
        struct Entry: Hashable {
            let key: [UInt8]
            let row: UInt64
        }
        var present = Set<Entry>()
        var rowsWithEntries = Set<UInt64>()
        var count = 0
        try txn.scan(table) { key, value in
            tick()
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
            let isFirst = rowsWithEntries.insert(row).inserted
            if !rows.contains(row) {
                report.add(
                    .strayEntry, table: table.name, [identifier(entity, row)],
                    "An entry names \(identifier(entity, row)), which does not exist.")
            } else if let wanted, !(wanted[keyBytes]?.contains(row) ?? false) {
                report.add(
                    .strayEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) is under a key its values do not give.")
            } else if wanted == nil && !isFirst {
                report.add(
                    .strayEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) is under more than one key; a row has one.")
            }
            return true
        }
        report.entriesByTable[table.name] = count
        if count == 0 && skipsEmptyKeyTables { return }
        let names = keyed.names.joined(separator: ", ")
        guard let wanted else {
            // Without the values' keys: every row it covers has an entry.
            for row in rows.subtracting(rowsWithEntries).sorted() {
                report.add(
                    .missingEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) has no entry for its values of (\(names)).")
            }
            return
        }
        for (key, keyRows) in wanted.sorted(by: { $0.value.min()! < $1.value.min()! }) {
            if keyed.unique && keyRows.count > 1 {
                report.add(
                    .duplicateUniqueValue, table: table.name, keyRows.sorted().map { identifier(entity, $0) },
                    "\(keyRows.count) rows hold the same values of (\(names)).")
            }
            for row in keyRows where !present.contains(Entry(key: key, row: row)) {
                report.add(
                    .missingEntry, table: table.name, [identifier(entity, row)],
                    "\(identifier(entity, row)) has no entry for its values of (\(names)).")
            }
        }
    }

    /// Checks every relationship table: checksums, owners and targets that exist, inverse edges.
    private func verifyEdges(
        rows: [String: Set<UInt64>], _ txn: borrowing ReadTransaction, _ report: inout VerificationReport,
        _ tick: () -> Void
    ) throws {
        struct Pair: Hashable {
            let owner: UInt64
            let target: UInt64
        }
        var pairs: [Table: Set<Pair>] = [:]
        let relationships = relationships.sorted { ($0.owner, $0.name) < ($1.owner, $1.name) }
        for relationship in relationships {
            let table = relationship.table
            var found = Set<Pair>()
            var count = 0
            try txn.scan(table) { key, value in
                tick()
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
                let ownerID = identifier(relationship.owner, owner)
                let targetID = identifier(relationship.destination, edge.target)
                if !(rows[relationship.owner]?.contains(owner) ?? false) {
                    report.add(.missingRow, table: table.name, [ownerID], "Edges of \(ownerID), which does not exist.")
                }
                if !(rows[relationship.destination]?.contains(edge.target) ?? false) && !relationship.mayDangle {
                    report.add(
                        .missingRow, table: table.name, [ownerID, targetID],
                        "\(ownerID).\(relationship.name) points at \(targetID), which does not exist.")
                }
                return true
            }
            pairs[table] = found
            report.entriesByTable[table.name] = count
        }
        for relationship in relationships {
            guard let (inverseName, inverseTable) = relationship.inverse else { continue }
            let inverse = pairs[inverseTable] ?? []
            let owners = rows[relationship.owner] ?? []
            let targets = rows[relationship.destination] ?? []
            for pair in (pairs[relationship.table] ?? []).sorted(by: { ($0.owner, $0.target) < ($1.owner, $1.target) })
            {
                // An edge to or from a row that is gone is reported above (or allowed to dangle).
                guard owners.contains(pair.owner), targets.contains(pair.target),
                    !inverse.contains(Pair(owner: pair.target, target: pair.owner))
                else { continue }
                let ownerID = identifier(relationship.owner, pair.owner)
                let targetID = identifier(relationship.destination, pair.target)
                report.add(
                    .asymmetricEdge, table: relationship.table.name, [ownerID, targetID],
                    "\(ownerID).\(relationship.name) holds \(targetID), but \(targetID).\(inverseName) does not hold "
                        + "\(ownerID).")
            }
        }
    }
}

import Foundation

extension ModelContext {
    /// The largest store (in rows) whose invariants debug builds check after every save.
    static let invariantCheckLimit = 20_000

    /// Checks, in debug builds, that the store and the context agree after a save; stops with the
    /// list of violations if they do not. Release builds skip it, and so do larger stores and
    /// runs with `CAIRN_CHECK_INVARIANTS=0`.
    func checkInvariantsAfterSave() {
        #if DEBUG
        guard ProcessInfo.processInfo.environment["CAIRN_CHECK_INVARIANTS"] != "0" else { return }
        do {
            let violations = try invariantViolations()
            precondition(
                violations.isEmpty,
                "ModelContext invariants broken after a save:\n" + violations.joined(separator: "\n"))
        } catch {
            preconditionFailure("Checking ModelContext invariants failed: \(error)")
        }
        #endif
    }

    /// Everything that is inconsistent between the store's tables and the context's identity map:
    ///
    /// - every registered saved model has a row, and is the map's instance for its identifier;
    /// - every row id is below its entity's row counter;
    /// - every edge has its inverse edge, points at an existing row, and ranks rise strictly;
    /// - every unique key names an existing row whose stored values give that key, and every row
    ///   has its keys.
    ///
    /// Empty when the store is larger than ``invariantCheckLimit`` rows.
    func invariantViolations() throws -> [String] {
        let store = container.store
        return try store.environment.read { txn in
            var violations: [String] = []
            var rows: [String: Set<UInt64>] = [:]
            var total = 0
            for (name, tables) in store.entities {
                total += try txn.count(of: tables.records)
                guard total <= Self.invariantCheckLimit else { return [] }
                var ids = Set<UInt64>()
                try txn.scan(tables.records) { key, _ in
                    ids.insert(try EntryLayout.row(key: key, table: tables.records))
                    return true
                }
                rows[name] = ids
                let counter = try RowAppender.nextRow(of: name, meta: store.meta, txn: txn)
                if let highest = ids.max(), highest >= counter {
                    violations.append("\(name): row \(highest) is not below the row counter \(counter)")
                }
            }
            for (id, live) in registeredSavedModels() {
                if !(rows[id.entityName]?.contains(id.rowID!) ?? false) {
                    violations.append("\(id) is registered but has no row")
                }
                if live.persistentModelID != id { violations.append("\(id) is registered under another identifier") }
            }
            for (name, tables) in store.entities {
                for relationship in tables.entity.relationships {
                    let inverse = relationship.inverseName.flatMap {
                        store.entities[relationship.destination]?.entity.relationshipsByName[$0]
                    }
                    let inverseTable = inverse.flatMap { store.entities[relationship.destination]?.edges[$0.name] }
                    var lastOwner: UInt64?
                    var lastRank: UInt64 = 0
                    let edgeTable = tables.edges[relationship.name]!
                    try txn.scan(edgeTable) { key, value in
                        let owner = try EntryLayout.row(key: key, table: edgeTable)
                        let edge = try EntryLayout.edge(value: value, ownerKey: key, table: edgeTable)
                        let (rank, target) = (edge.rank, edge.target)
                        if owner == lastOwner && rank <= lastRank {
                            violations.append("\(name)/\(owner).\(relationship.name): ranks do not rise")
                        }
                        (lastOwner, lastRank) = (owner, rank)
                        if !(rows[name]?.contains(owner) ?? false) {
                            violations.append("\(name)/\(owner).\(relationship.name): edges of a missing row")
                        }
                        let targetExists = rows[relationship.destination]?.contains(target) ?? false
                        // A relationship that may dangle keeps edges to deleted rows, which reads skip.
                        if !targetExists && store.canDangle(relationship) { return true }
                        if !targetExists {
                            violations.append(
                                "\(name)/\(owner).\(relationship.name) points at missing \(relationship.destination)/\(target)"
                            )
                        }
                        if let inverseTable, relationship.deleteRule != .noAction {
                            let back = try txn.edges(of: target, in: inverseTable).contains { $0.target == owner }
                            if !back {
                                violations.append(
                                    "\(name)/\(owner).\(relationship.name) → \(relationship.destination)/\(target) has no inverse edge"
                                )
                            }
                        }
                        return true
                    }
                }
                for index in tables.indexes {
                    var entries = 0
                    try txn.scan(index.table) { key, value in
                        entries += 1
                        let row = try EntryLayout.row(keyedValue: value, key: key, table: index.table)
                        if !(rows[name]?.contains(row) ?? false) {
                            violations.append("\(index.table.name): an entry names missing row \(row)")
                        }
                        return true
                    }
                    for row in rows[name] ?? [] {
                        guard let stored = try self.rows.storedModel(row: row, tables: tables, in: txn) else {
                            continue
                        }
                        let key = index.key(of: stored)
                        var found = false
                        try txn.forEachIndexedRow(for: key, in: index.table) { stored in
                            found = stored == row
                            return !found
                        }
                        if !found { violations.append("\(index.table.name): row \(row) is not under its key") }
                    }
                    if entries != (rows[name]?.count ?? 0) {
                        violations.append("\(index.table.name): \(entries) entries for \(rows[name]?.count ?? 0) rows")
                    }
                }
                for (index, unique) in tables.uniques.enumerated() {
                    var keyed = Set<UInt64>()
                    try txn.scan(unique.table) { key, value in
                        let row = try EntryLayout.row(keyedValue: value, key: key, table: unique.table)
                        keyed.insert(row)
                        if !(rows[name]?.contains(row) ?? false) {
                            violations.append("\(unique.table.name): a key names missing row \(row)")
                        }
                        return true
                    }
                    for row in rows[name] ?? [] {
                        let stored = try storedKeys(row: row, tables: tables, in: txn)[index]
                        if try txn.uniqueRow(for: stored, in: unique.table) != row {
                            violations.append("\(unique.table.name): row \(row) is not under its key")
                        }
                    }
                    if keyed.count != (rows[name]?.count ?? 0) {
                        violations.append(
                            "\(unique.table.name): \(keyed.count) keys for \(rows[name]?.count ?? 0) rows")
                    }
                }
            }
            return violations
        }
    }
}

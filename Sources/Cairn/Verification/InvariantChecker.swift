import Foundation

/// Checks that a context and its store agree, as debug builds do after every save: the identity
/// map's saved models against the rows, the row counters, the edges in both directions, and the
/// index and unique tables against the records (swift-collections' `Heap+Invariants.swift` does
/// the same for its heap).
///
/// ```swift
/// let violations = try InvariantChecker(store: context.store, rows: context.rows).violations()
/// #expect(violations.isEmpty)
/// ```
struct InvariantChecker {
    /// The largest store (in rows) whose invariants are checked; larger stores are skipped.
    static let rowLimit = 20_000

    let store: Store
    /// The context's row loader: its identity map, and the stored models it reads.
    let rows: RowLoader

    /// Reports the violations, if there are any, by logging them at `error` (they are bugs in
    /// Cairn) and handing them to the collector of ``collectingReports(_:)``; never stops the
    /// process. A check that could not run (a record or entry it cannot read: the world's doing,
    /// not Cairn's bookkeeping) is logged at `warning`. Skipped when the environment has
    /// `CAIRN_CHECK_INVARIANTS=0`.
    func reportIfViolated() {
        guard ProcessInfo.processInfo.environment["CAIRN_CHECK_INVARIANTS"] != "0" else { return }
        let found: [String]
        do {
            found = try violations()
        } catch {
            let text = "Checking ModelContext invariants after a save could not finish: \(ErrorText.describing(error))"
            cairnLog.warning("\(text)")
            Self.collector?.add([text])
            return
        }
        guard !found.isEmpty else { return }
        let list = found.joined(separator: "\n")
        cairnLog.error(
            "ModelContext invariants broken after a save (a bug in Cairn; please report it with this list):\n\(list)")
        Self.collector?.add(found)
    }

    /// Everything that is inconsistent between the store's tables and the identity map:
    ///
    /// - every registered saved model is registered under its own identifier;
    /// - every row id is below its entity's row counter;
    /// - every edge has its inverse edge, points at an existing row, and ranks rise strictly;
    /// - every unique key names an existing row whose stored values give that key, and every row
    ///   has its keys (but for a value not equal to itself, which has none).
    ///
    /// Only what Cairn itself writes is checked: a row another context or process deleted, or a
    /// record whose values its types refuse to decode, is no violation.
    ///
    /// Empty when the store is larger than ``rowLimit`` rows.
    func violations() throws -> [String] {
        try store.read { txn in
            var violations: [String] = []
            guard let stored = try storedRows(in: txn, violations: &violations) else { return [] }
            // Whether a registered model still has a row is the world's business (another context
            // or process may have deleted it since), not the identity map's.
            for (id, live) in rows.identity.storedModels where live.persistentModelID != id {
                violations.append("\(id) is registered under another identifier")
            }
            for tables in store.entities.values {
                // A table an entity inherits is checked once, with the entity that declares it.
                let entity = tables.entity
                for relationship in entity.relationships
                where entity.declaring({ $0.relationshipsByName[relationship.name] != nil }) === entity {
                    try checkEdges(of: relationship, in: tables, stored: stored, txn: txn, violations: &violations)
                }
                let own = stored[entity.name] ?? []
                for index in tables.keys.indexes where entity.declaring({ $0.indices.contains(index.names) }) === entity {
                    try check(index, of: tables, rows: own, txn: txn, violations: &violations)
                }
                for (position, unique) in tables.keys.uniques.enumerated()
                where entity.declaring({ $0.uniquenessConstraints.contains(unique.names) }) === entity {
                    try check(unique, at: position, of: tables, rows: own, txn: txn, violations: &violations)
                }
            }
            return violations
        }
    }

    /// Each entity's stored rows (in a hierarchy the table is shared: an entity's rows are its
    /// own and its subclasses', `Store+Hierarchy.swift`), noting a row at or past its entity's
    /// counter; `nil` when the store has more than ``rowLimit`` rows.
    private func storedRows(
        in txn: borrowing ReadTransaction, violations: inout [String]
    ) throws -> [String: Set<UInt64>]? {
        var stored: [String: Set<UInt64>] = [:]
        var total = 0
        for (name, tables) in store.entities {
            total += try txn.count(of: tables.layout.records)
            guard total <= Self.rowLimit else { return nil }
            var ids = Set<UInt64>()
            var highestOwn: UInt64?
            try txn.scan(tables.layout.records) { key, _ in
                let row = try EntryLayout.row(key: key, table: tables.layout.records)
                guard tables.includes(row: row) else { return true }
                ids.insert(row)
                if tables.tables(forRow: row) === tables {
                    highestOwn = max(highestOwn ?? 0, row & (1 << Store.classShift - 1))
                }
                return true
            }
            stored[name] = ids
            let counter = try txn.nextRow(of: name, meta: store.meta)
            if let highest = highestOwn, highest >= counter {
                violations.append("\(name): row \(highest) is not below the row counter \(counter)")
            }
        }
        return stored
    }

    /// Edges of `relationship`: ranks rise per owner, owners and targets exist (unless the
    /// relationship may dangle), and each edge has its inverse.
    private func checkEdges(
        of relationship: Schema.Relationship, in tables: Store.EntityTables, stored: [String: Set<UInt64>],
        txn: borrowing ReadTransaction, violations: inout [String]
    ) throws {
        let name = tables.entity.name
        func at(_ owner: UInt64) -> String { "\(name)/\(owner).\(relationship.name)" }
        let inverse = relationship.inverseName.flatMap {
            store.entities[relationship.destination]?.entity.relationshipsByName[$0]
        }
        let inverseTable = inverse.flatMap { store.entities[relationship.destination]?.layout.edges[$0.name] }
        var lastOwner: UInt64?
        var lastRank: UInt64 = 0
        let edgeTable = tables.layout.edges[relationship.name]!
        var found: [String] = []
        try txn.scan(edgeTable) { key, value in
            let owner = try EntryLayout.row(key: key, table: edgeTable)
            let edge = try EntryLayout.edge(value: value, ownerKey: key, table: edgeTable)
            let (rank, target) = (edge.rank, edge.target)
            if owner == lastOwner && rank <= lastRank { found.append("\(at(owner)): ranks do not rise") }
            (lastOwner, lastRank) = (owner, rank)
            if !(stored[name]?.contains(owner) ?? false) { found.append("\(at(owner)): edges of a missing row") }
            let targetExists = stored[relationship.destination]?.contains(target) ?? false
            // A relationship that may dangle keeps edges to deleted rows, which reads skip.
            if !targetExists && store.canDangle(relationship) { return true }
            if !targetExists { found.append("\(at(owner)) points at missing \(relationship.destination)/\(target)") }
            if let inverseTable, relationship.deleteRule != .noAction,
                try !txn.edges(of: target, in: inverseTable).contains(where: { $0.target == owner })
            {
                found.append("\(at(owner)) → \(relationship.destination)/\(target) has no inverse edge")
            }
            return true
        }
        violations += found
    }

    /// An index: every entry names a stored row, every row is under the key its values give,
    /// one entry per row.
    private func check(
        _ index: Store.EntityTables.UniqueConstraint, of tables: Store.EntityTables, rows stored: Set<UInt64>,
        txn: borrowing ReadTransaction, violations: inout [String]
    ) throws {
        var entries = 0
        var found: [String] = []
        try txn.scan(index.table) { key, value in
            entries += 1
            let row = try EntryLayout.row(keyedValue: value, key: key, table: index.table)
            if !stored.contains(row) { found.append("\(index.table.name): an entry names missing row \(row)") }
            return true
        }
        for row in stored {
            // A record its types cannot decode (an init(from:) that refuses a stored value) is
            // the world's; the check is of the keys Cairn wrote.
            guard let record = try? rows.storedRecord(row: row, tables: tables, in: txn),
                let key = try? index.key(ofRecord: record)
            else { continue }
            var isUnderKey = false
            try txn.forEachIndexedRow(for: key, in: index.table) { indexed in
                isUnderKey = indexed == row
                return !isUnderKey
            }
            if !isUnderKey { found.append("\(index.table.name): row \(row) is not under its key") }
        }
        if entries != stored.count { found.append("\(index.table.name): \(entries) entries for \(stored.count) rows") }
        violations += found
    }

    /// A uniqueness constraint: every key names a stored row, every row with a key is under it,
    /// one key per such row (a value not equal to itself, a NaN, has no key).
    private func check(
        _ unique: Store.EntityTables.UniqueConstraint, at position: Int, of tables: Store.EntityTables,
        rows stored: Set<UInt64>, txn: borrowing ReadTransaction, violations: inout [String]
    ) throws {
        var keyed = Set<UInt64>()
        var found: [String] = []
        try txn.scan(unique.table) { key, value in
            let row = try EntryLayout.row(keyedValue: value, key: key, table: unique.table)
            keyed.insert(row)
            if !stored.contains(row) { found.append("\(unique.table.name): a key names missing row \(row)") }
            return true
        }
        var (keyedRows, undecoded) = (0, 0)
        for row in stored {
            guard
                let key = try? UniquenessPlanner.storedKeys(row: row, tables: tables, reading: rows, in: txn)[position]
            else {
                undecoded += 1
                continue
            }
            guard !key.isEmpty else { continue }
            keyedRows += 1
            if try txn.uniqueRow(for: key, in: unique.table) != row {
                found.append("\(unique.table.name): row \(row) is not under its key")
            }
        }
        if undecoded == 0 && keyed.count != keyedRows {
            found.append("\(unique.table.name): \(keyed.count) keys for \(keyedRows) rows with keys")
        }
        violations += found
    }
}

/// The violations the invariant check reported while ``InvariantChecker/collectingReports(_:)``
/// ran: the test hook. Its list is behind `lock`.
final class InvariantReports: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [String] = []

    func add(_ found: [String]) { lock.withLock { reports += found } }
    var all: [String] { lock.withLock { reports } }
}

extension InvariantChecker {
    /// Where the checks of the current task report, besides the log.
    @TaskLocal static var collector: InvariantReports?

    /// Runs `body` and returns what the invariant checks after its saves reported.
    ///
    /// ```swift
    /// let reported = InvariantChecker.collectingReports { try? context.save() }
    /// #expect(reported.isEmpty)
    /// ```
    static func collectingReports(_ body: () throws -> Void) rethrows -> [String] {
        let reports = InvariantReports()
        try $collector.withValue(reports) { try body() }
        return reports.all
    }
}

import Foundation

/// Says how a fetch would find its models without fetching them (``ModelContext/explain(_:)``):
/// the access path the executor's plan chose, whether part of the predicate is left to evaluate
/// on the rows it reads, and roughly how many rows that is, counted in one read transaction.
///
/// ```swift
/// let executor = FetchExecutor(FetchRequest(descriptor, tables: tables), in: context)
/// let plan = try FetchExplainer(executor: executor, store: context.store).plan()
/// print(plan.accessPath)
/// ```
struct FetchExplainer {
    let executor: FetchExecutor
    let store: Store

    /// The plan of the executor's request, with the rows its access path reads counted.
    ///
    /// - Throws: `StorageError` when the store cannot be read.
    func plan() throws -> FetchPlan {
        let (request, planner, access) = (executor.request, executor.planner, executor.access)
        if let limit = request.fetchLimit, let order = planner.order(for: request.sortBy, access: access) {
            let needed = max(request.fetchOffset ?? 0, 0).addingClamped(max(limit, 0))
            var count = 0
            try store.read { txn in
                try txn.scan(order.index.table, order.range) { _, _ in
                    count += 1
                    return count < needed
                }
            }
            return FetchPlan(
                accessPath: .indexOrder(
                    table: order.index.table.name, attribute: order.index.names[0], lower: Self.bound(order.lower),
                    upper: Self.bound(order.upper), descending: order.direction == .backward),
                evaluatesPredicate: request.predicate != nil, estimatedRows: count, notes: hashedKeyNotes())
        }
        // Whether part of the predicate is left to evaluate on the rows the access path reads.
        let evaluates = !executor.residual.isEmptyForVouchedRows
        let rowTables = executor.plan.rowTables ?? executor.request.tables
        let rowsOf = rowTables.sharesRecordsWithOtherClasses ? rowTables.entity.name : nil
        return try store.read { txn in
            let (accessPath, rows) = try describe(access, txn)
            return FetchPlan(
                accessPath: accessPath, evaluatesPredicate: evaluates, estimatedRows: rows, rowsOf: rowsOf,
                notes: hashedKeyNotes())
        }
    }

    /// What the fetch asks of a unique or index table that holds keyed hashes (a sensitive
    /// attribute in an encrypted store) and the table cannot give: a range, or an order.
    private func hashedKeyNotes() -> [String] {
        let tables = executor.request.tables
        guard !tables.keys.hashedAttributes.isEmpty else { return [] }
        func hashed(_ keyPath: AnyKeyPath?) -> (Schema.Attribute, Store.EntityTables.UniqueConstraint)? {
            guard let attribute = tables.entity.attributes.first(where: { $0.keyPath == keyPath }),
                tables.keys.hashedAttributes.contains(attribute.name),
                let keyed = (tables.keys.uniques + tables.keys.indexes).first(where: {
                    $0.names.contains(attribute.name)
                })
            else { return nil }
            return (attribute, keyed)
        }
        func note(_ attribute: Schema.Attribute, _ keyed: Store.EntityTables.UniqueConstraint, _ what: String) -> String {
            "\(keyed.table.name) holds keyed hashes of \(attribute.name), a sensitive attribute of an encrypted "
                + "store: it finds equal values only, so \(what)"
        }
        var notes: [String] = []
        let parts = executor.request.predicate.map { PredicatePlanner.parts(of: $0.expression) } ?? []
        for part in parts {
            guard case .compare(let keyPath, _, _) = part.form, let (attribute, keyed) = hashed(keyPath) else { continue }
            notes.append(note(attribute, keyed, "the range on \(attribute.name) is checked on each candidate"))
        }
        if let first = executor.request.sortBy.first, let (attribute, keyed) = hashed(first.keyPath) {
            notes.append(note(attribute, keyed, "the sort by \(attribute.name) reads every candidate"))
        }
        return Array(Set(notes)).sorted()
    }

    /// An access path as a plan names it, and the rows it reads, counted in `txn`.
    private func describe(
        _ access: PredicatePlanner.Access, _ txn: borrowing ReadTransaction
    ) throws -> (FetchPlan.AccessPath, Int) {
        let tables = executor.request.tables
        switch access {
        case .fullScan:
            return (.fullScan, try (executor.plan.rowTables ?? tables).rowCount(in: txn))
        case .rows(let rows):
            var count = 0
            for row in rows where try txn.contains(EntryLayout.rowKey(row), in: tables.layout.records) { count += 1 }
            return (.identifiers(table: tables.layout.records.name, count: rows.count), count)
        case .unique(let unique, let key):
            return (
                .uniqueKey(table: unique.table.name, attribute: unique.names.joined(separator: ",")),
                try txn.contains(key, in: unique.table) ? 1 : 0
            )
        case .indexEquality(let index, let key):
            return (
                .indexEquality(table: index.table.name, attribute: index.names[0]),
                try txn.duplicateCount(of: key, in: index.table)
            )
        case .oneOf(let keyed, let keys, let isUnique):
            var count = 0
            let distinct = Set(keys.arrays)
            for key in distinct {
                count +=
                    isUnique
                    ? (try txn.contains(key, in: keyed.table) ? 1 : 0)
                    : try txn.duplicateCount(of: key, in: keyed.table)
            }
            return (.keyList(table: keyed.table.name, attribute: keyed.names[0], count: distinct.count), count)
        case .compound(let keyed, let range, let equalities, let lower, let upper):
            let described =
                equalities.map { "\($0.attribute.name) == \($0.text)" }
                + [lower, upper].compactMap { condition in
                    condition.flatMap { c in Self.bound(c).map { "\(c.attribute.name) \($0)" } }
                }
            return (
                .compoundIndex(table: keyed.table.name, attributes: keyed.names, conditions: described),
                try Self.count(keyed.table, range, txn)
            )
        case .indexRange(let index, let range, let lower, let upper):
            return (
                .indexRange(
                    table: index.table.name, attribute: index.names[0], lower: Self.bound(lower),
                    upper: Self.bound(upper)),
                try Self.count(index.table, range, txn)
            )
        }
    }

    /// The entries of `table` in `range`.
    private static func count(_ table: Table, _ range: KeyRange, _ txn: borrowing ReadTransaction) throws -> Int {
        var count = 0
        try txn.scan(table, range) { _, _ in
            count += 1
            return true
        }
        return count
    }

    /// A bound of a range as a plan describes it: `>= 1990`, `< "M"`, `in [1, 2]`.
    private static func bound(_ condition: PredicatePlanner.Condition?) -> String? {
        condition.map { condition in
            switch condition.kind {
            case .lower(let inclusive): (inclusive ? ">= " : "> ") + condition.text
            case .upper(let inclusive): (inclusive ? "<= " : "< ") + condition.text
            case .equal: "== " + condition.text
            case .oneOf: "in " + condition.text
            }
        }
    }
}

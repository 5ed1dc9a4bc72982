import CairnStorage
import Foundation

/// An aggregate without a predicate computed from the entity's tables' counts and keys, when no
/// unsaved change counts (``AggregatePlanner``):
///
/// - counts: the entity table's row count;
/// - a minimum or maximum: the first or last entries of an index on the attribute (past the
///   `nil`s of an optional, whose keys sort first), whose rows' records give the value;
/// - counts per group: the runs of equal keys of an index on the grouping attribute, with the
///   first row's record of each run giving the group's key.
///
/// ```swift
/// try IndexAggregation(aggregator: aggregator, plan: choice).run(into: &numbering)
/// ```
struct IndexAggregation {
    let aggregator: Aggregator
    let plan: AggregatePlanner.Choice

    private var tables: Store.EntityTables { aggregator.request.tables }
    private var columns: [AggregateColumn] { aggregator.values.map(\.column) }

    func run(into numbering: inout GroupNumbering) throws {
        let context = aggregator.context
        context.statistics.readTransactions += 1
        if case .indexGroups = plan.method {
            return try countGroups(into: &numbering)
        }
        if case .indexEntries = plan.method, let index = plan.indexes.first ?? nil {
            return try IndexEntryAggregation(aggregator: aggregator, index: index).run(into: &numbering)
        }
        numbering.reserveStored(upTo: 1, columns: columns)
        numbering.setKey([], of: 0)
        try context.store.read { txn in
            let rows = try tables.rowCount(in: txn)
            for ((value, source), index) in zip(zip(aggregator.values, aggregator.valueSources), plan.indexes) {
                if let index, case .field(let field)? = source {
                    try addExtreme(of: index, field: field, to: value, txn: txn)
                } else {
                    value.column.addModels(rows, to: 0)
                }
            }
        }
    }

    /// Adds to `value`'s column the values of the rows at the end of `index` it keeps (its first
    /// entries for a minimum, its last for a maximum): those whose keys share the first key's
    /// prefix, since a long key orders by its prefix only.
    private func addExtreme(
        of index: Store.EntityTables.UniqueConstraint, field: AggregateSource.StoredField, to value: Aggregator.Value,
        txn: borrowing ReadTransaction
    ) throws {
        // An optional's `nil` keys (presence byte 0) come first; a `nil` is no value.
        let range = field.attribute.isOptional ? KeyRange(from: .inclusive([1])) : KeyRange.all
        let direction: ScanDirection = value.function == .minimum ? .forward : .backward
        var prefix: ArraySlice<UInt8>?
        var scanner = RecordScanner()
        try txn.scanIndexedRows(index.table, range, direction: direction) { key, row in
            let keyPrefix = ArraySlice(key.prefix(KeyBuilder.hashedPrefixLength))
            if let prefix, prefix != keyPrefix { return false }
            // A row whose record is gone (a dangling entry) is no value.
            guard tables.includes(row: row), try scanner.load(row: row, in: tables.layout.records, txn: txn) else {
                return true
            }
            try value.column.add(field: try scanner.payload(tag: field.tag), to: 0)
            prefix = keyPrefix
            return true
        }
    }

    /// Counts per key of the grouping attribute's index, one record read per key for the
    /// group's value.
    private func countGroups(into numbering: inout GroupNumbering) throws {
        guard let index = plan.indexes.first ?? nil, case .field(let field) = aggregator.keySources[0] else { return }
        let groupKey = aggregator.keys[0]
        var runs: [(row: UInt64, count: Int)] = []
        var lastKey: [UInt8] = []
        try aggregator.context.store.read { txn in
            try txn.scanIndexedRows(index.table, .all) { key, row in
                guard tables.includes(row: row) else { return true }
                if runs.isEmpty || !key.elementsEqual(lastKey) {
                    runs.append((row, 0))
                    lastKey = Array(key)
                }
                runs[runs.count - 1].count += 1
                return true
            }
            var scanner = RecordScanner()
            for (group, run) in runs.enumerated() {
                numbering.reserveStored(upTo: group + 1, columns: columns)
                // A dangling entry's row has no record: its key has no value to group by.
                guard try scanner.load(row: run.row, in: tables.layout.records, txn: txn) else { continue }
                guard let boxed = groupKey.box(try field.value(of: scanner.payload(tag: field.tag))) else {
                    throw FetchError.ungroupableKey([groupKey.keyPath])
                }
                numbering.setKey([boxed], of: group)
                for column in columns { column.addModels(run.count, to: group) }
            }
        }
    }
}

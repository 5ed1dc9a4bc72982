import CairnStorage
import Foundation

/// An aggregate computed from records (``AggregatePlan/Method/records(fields:)``): the fetch
/// plan's candidate rows are read in one read transaction, each record verified and the plan's
/// record tests applied, then the fields of the grouping and aggregated attributes read in one
/// walk and added to their group. A grouping by a to-one relationship's attribute groups by the
/// target row (the row's edge), and reads each target's field once per group at the end.
///
/// Rows whose model in the context has unsaved changes, or is deleted, are left out when pending
/// changes count, and the context's pending models that match are added as models instead.
///
/// ```swift
/// try RecordAggregation(aggregator: aggregator, executor: executor).run(into: &numbering)
/// ```
struct RecordAggregation {
    let aggregator: Aggregator
    let executor: FetchExecutor

    private var context: ModelContext { aggregator.context }
    private var request: FetchRequest { aggregator.request }

    func run(into numbering: inout GroupNumbering) throws {
        let columns = aggregator.values.map(\.column)
        let (leftOut, pending) = try pendingChanges()
        var scan = RecordScan(aggregator: aggregator, tests: executor.plan.recordTests, leftOut: leftOut)
        context.statistics.readTransactions += 1
        let related = RelatedRows(sources: aggregator.keySources)
        try context.store.read { txn in
            var reader = CandidateReader(access: executor.access, tables: executor.plan.rowTables ?? request.tables)
            try related.withTargets(txn: txn) { target in
                try reader.visit(.max, txn: txn, expecting: { _ in }) { row, key, value in
                    try scan.add(row: row, key: key, value: value, target: target)
                }
            }
        }
        numbering.reserveStored(upTo: scan.groups.count, columns: columns)
        scan.tally.hand(to: columns)
        try decodeKeys(of: scan.groups, into: &numbering)
        try aggregator.add(pending, to: &numbering)
    }

    /// The rows to leave out (their models have unsaved changes, or are deleted) and the pending
    /// models that match, when pending changes count.
    private func pendingChanges() throws -> (leftOut: Set<UInt64>, pending: [any PersistentModel]) {
        guard request.includePendingChanges && context.hasChanges else { return ([], []) }
        // The deleted models and those their cascades reach count as deleted.
        let deleted = CascadedDeletes(context.deletedModelsArray, rows: context.rows)
        var leftOut = Set<UInt64>()
        for model in context.changedModelsArray + deleted.models where request.isFetchedType(model) {
            if let row = model.persistentModelID.rowID { leftOut.insert(row) }
        }
        var seen = Set<ObjectIdentifier>()
        let pending = (context.changedModelsArray + context.insertedModelsArray).filter { model in
            request.isFetchedType(model) && !deleted.identities.contains(ObjectIdentifier(model))
                && seen.insert(ObjectIdentifier(model)).inserted
        }
        return (leftOut, try executor.residual.filter(pending, tables: request.tables, vouched: false))
    }

    /// Decodes each stored rows' group's key: its fields, and its related rows' fields.
    private func decodeKeys(of groups: FieldGroups, into numbering: inout GroupNumbering) throws {
        let related = aggregator.keySources.map { source -> Bool in
            if case .related = source { return true }
            return false
        }
        try context.store.read { txn in
            for group in 0..<groups.count {
                var key: [AnyHashable] = []
                for (part, (source, groupKey)) in zip(
                    groups.parts(of: group, related: related), zip(aggregator.keySources, aggregator.keys))
                {
                    let value = try Self.value(of: part, source: source, txn: txn)
                    guard let boxed = groupKey.box(value) else { throw FetchError.ungroupableKey([groupKey.keyPath]) }
                    key.append(boxed)
                }
                numbering.setKey(key, of: group)
            }
        }
    }

    /// The value a key part stands for: a field's value, or a related row's field's (`nil` when
    /// there is no related row, or it is gone).
    private static func value(
        of part: FieldGroups.Part, source: AggregateSource, txn: borrowing ReadTransaction
    ) throws -> Any? {
        switch (part, source) {
        case (.field(let payload), .field(let field)):
            return try field.value(of: payload)
        case (.row(let row?), .related(_, _, let field)):
            var scanner = RecordScanner()
            // A target whose row is gone has no value.
            guard try scanner.load(row: row, in: field.tables.layout.records, txn: txn) else { return nil }
            return try field.value(of: scanner.payload(tag: field.tag))
        default:
            return nil
        }
    }
}

/// The state of a scan of records for ``RecordAggregation``: each candidate's record is
/// verified, the plan's record tests applied, the fields read in one walk, the row's group
/// numbered by their bytes, and its count and numbers tallied; other values go to their columns.
///
/// ```swift
/// var scan = RecordScan(aggregator: aggregator, tests: plan.recordTests, leftOut: [])
/// try scan.add(row: row, key: key, value: value, target: target)   // for each candidate
/// scan.tally.hand(to: columns)
/// ```
struct RecordScan {
    /// Where a grouping key's value comes from: a field (its slot in ``fields``) or the row's
    /// related row.
    private enum KeyPart {
        case field(Int)
        case related
    }

    private let tags: [UInt32]
    private let keyParts: [KeyPart]
    /// The tallied sums and averages: their field's slot, and how it reads as a number.
    private let numberReads: [(field: Int, reading: NumberField)]
    /// The other columns that read a field, and its slot.
    private let valueReads: [(column: Int, field: Int)]
    private let columns: [AggregateColumn]
    private let tests: RecordTests?
    /// Rows whose models have pending changes (added as models instead).
    private let leftOut: Set<UInt64>
    private(set) var groups = FieldGroups()
    private(set) var tally: GroupTally
    private var fields: [RecordReader.Field?]
    private var scanner = RecordScanner()

    init(aggregator: Aggregator, tests: RecordTests?, leftOut: Set<UInt64>) {
        let sources = (aggregator.keySources + aggregator.valueSources.compactMap { $0 }).compactMap { source in
            if case .field(let field) = source { return field }
            return nil
        }
        let tags = Array(Set(sources.map(\.tag))).sorted()
        let valueSlots = aggregator.valueSources.map { source -> Int? in
            if case .field(let field)? = source { return tags.firstIndex(of: field.tag) }
            return nil
        }
        keyParts = aggregator.keySources.map { source in
            if case .field(let field) = source { return .field(tags.firstIndex(of: field.tag)!) }
            return .related
        }
        let columns = aggregator.values.map(\.column)
        // Sums and averages are tallied; other columns that read a field get it row by row.
        let numberColumns = columns.indices.filter { columns[$0].numberField != nil && valueSlots[$0] != nil }
        numberReads = numberColumns.map { (field: valueSlots[$0]!, reading: columns[$0].numberField!) }
        valueReads = columns.indices.compactMap { index in
            valueSlots[index].flatMap { numberColumns.contains(index) ? nil : (column: index, field: $0) }
        }
        tally = GroupTally(numberColumns: numberColumns)
        fields = Array(repeating: nil, count: tags.count)
        (self.tags, self.columns, self.tests, self.leftOut) = (tags, columns, tests, leftOut)
    }

    /// Adds a candidate row, given its record; `target` gives its related row for a grouping key.
    mutating func add(
        row: UInt64, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, target: (UInt64, Int) throws -> UInt64?
    ) throws {
        if !leftOut.isEmpty && leftOut.contains(row) { return }
        try scanner.load(value, key: key)
        if let tests, !tests.admit({ [scanner] tag throws(StorageError) in try scanner.payload(tag: tag) }) { return }
        try scanner.fields(of: tags, into: &fields)
        groups.begin()
        for index in keyParts.indices {
            switch keyParts[index] {
            case .field(let slot): groups.append(fields[slot], of: scanner)
            case .related: groups.append(row: try target(row, index))
            }
        }
        let group = groups.group(ordered: false)
        tally.count(group, growing: columns)
        for (slot, read) in numberReads.enumerated() {
            if let number = try read.reading.number(of: fields[read.field], in: scanner) { tally.add(number, slot: slot, to: group) }
        }
        for read in valueReads { try columns[read.column].add(fields[read.field], of: scanner, to: group) }
    }
}

/// The targets of rows' to-one relationships, for the grouping keys that read them: each row's
/// edge, read through a cursor kept open on the first such relationship's edge table for the
/// whole scan (rows come in ascending order, so it moves forward), and looked up on its own for
/// any other.
struct RelatedRows {
    private let tables: [Table?]

    init(sources: [AggregateSource]) {
        tables = sources.map { source in
            if case .related(_, let edges, _) = source { return edges }
            return nil
        }
    }

    /// Calls `body` with a function that gives the target of a row through the relationship of
    /// a grouping key (`nil`: none, or the key reads no relationship).
    func withTargets<R>(
        txn: borrowing ReadTransaction, _ body: (_ target: (UInt64, Int) throws -> UInt64?) throws -> R
    ) throws -> R {
        guard let first = tables.firstIndex(where: { $0 != nil }), let table = tables[first] else {
            return try body { _, _ in nil }
        }
        return try txn.withCursor(on: table) { cursor in
            try body { row, key in
                guard let keyTable = tables[key] else { return nil }
                if key == first { return try ReadTransaction.edges(of: row, cursor: cursor, table: table).first?.target }
                return try txn.edges(of: row, in: keyTable).first?.target
            }
        }
    }
}

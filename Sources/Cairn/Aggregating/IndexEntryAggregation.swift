import CairnStorage
import Foundation

/// An aggregate read from the entries of an index whose keys hold every grouping and aggregated
/// attribute (``AggregatePlan/Method/indexEntries(table:)``), as SQL's covering index: each entry
/// is one row, its key decoded component by component, and no record is read. A grouping
/// component's bytes number its group (``FieldGroups``), decoded once per group at the end.
///
/// A key cut short by its length (a long string, completed by a hash) holds no whole value: that
/// row's record is read instead, and its values grouped by value.
///
/// ```swift
/// try IndexEntryAggregation(aggregator: aggregator, index: index).run(into: &numbering)
/// ```
struct IndexEntryAggregation {
    let aggregator: Aggregator
    let index: Store.EntityTables.UniqueConstraint

    private var tables: Store.EntityTables { aggregator.request.tables }

    /// What each of the index's attributes is to the aggregation.
    private struct Component {
        let field: AggregateSource.StoredField
        /// The grouping key it is, if any.
        let groupKey: Int?
        /// The columns that read it.
        let columns: [Int]
        /// Whether those columns all add numbers (sums and averages): it is read as one.
        let readsNumbers: Bool
    }


    private func components() -> [Component] {
        index.names.map { name in
            let field = tables.entity.attributesByName[name].flatMap { AggregateSource.StoredField($0, of: tables) }!
            let groupKey = aggregator.keySources.firstIndex { source in
                if case .field(let key) = source { return key.attribute.name == name }
                return false
            }
            let columns = aggregator.valueSources.indices.filter { index in
                if case .field(let value)? = aggregator.valueSources[index] { return value.attribute.name == name }
                return false
            }
            let readsNumbers = columns.allSatisfy { aggregator.values[$0].column.addsNumbers }
            return Component(field: field, groupKey: groupKey, columns: columns, readsNumbers: readsNumbers)
        }
    }

    /// What to do with each component of a key, in plain values (a row's loop copies no
    /// reference).
    private enum Role {
        case skip
        case group(Int)
        case number
        case value
    }

    func run(into numbering: inout GroupNumbering) throws {
        let components = components()
        let roles = components.map { component -> Role in
            if let groupKey = component.groupKey { return .group(groupKey) }
            if component.columns.isEmpty { return .skip }
            return component.readsNumbers ? .number : .value
        }
        let natives = components.map(\.field.native)
        let optionals = components.map(\.field.attribute.isOptional)
        let columns = aggregator.values.map(\.column)
        let readers = components.map(\.columns)
        var groups = FieldGroups()
        var scratch: [UInt8] = []
        // Rows whose key was cut short, added from their records after the groups of keys are
        // numbered (they are numbered by value, after those).
        var cutRows: [UInt64] = []
        var groupRanges = [Range<Int>](repeating: 0..<0, count: aggregator.keys.count)
        var numbers = [StoredNumber?](repeating: nil, count: components.count)
        var values = [Any?](repeating: nil, count: components.count)
        try aggregator.context.store.read { txn in
            try txn.scanIndexedRows(index.table, .all) { key, row in
                guard tables.includes(row: row) else { return true }
                // Copied into a buffer as long as the longest key yet, which the reader shares.
                if key.count > scratch.count { scratch = [UInt8](repeating: 0, count: max(key.count, 2 * scratch.count)) }
                scratch.withUnsafeMutableBytes { $0.copyMemory(from: key) }
                var reader = KeyReader(scratch, length: key.count)
                if reader.isHashed {
                    cutRows.append(row)
                    return true
                }
                for position in roles.indices {
                    let (native, isOptional, start) = (natives[position], optionals[position], reader.position)
                    switch roles[position] {
                    case .skip: try Self.skipComponent(native, isOptional: isOptional, in: &reader)
                    case .group(let groupKey):
                        try Self.skipComponent(native, isOptional: isOptional, in: &reader)
                        groupRanges[groupKey] = start..<reader.position
                    case .number: numbers[position] = try Self.numberComponent(native, isOptional: isOptional, in: &reader)
                    case .value: values[position] = try Self.readComponent(native, isOptional: isOptional, from: &reader)
                    }
                }
                // The grouping components in the order of the grouping key paths.
                groups.begin()
                for range in groupRanges { groups.append(keyBytes: scratch[range]) }
                let group = groups.group()
                if group >= numbering.count { numbering.reserveStored(upTo: group + 1, columns: columns) }
                for column in columns { column.addModel(to: group) }
                for position in roles.indices {
                    switch roles[position] {
                    case .number:
                        if let number = numbers[position] {
                            for column in readers[position] { columns[column].add(number: number, to: group) }
                        }
                    case .value:
                        for column in readers[position] { columns[column].add(value: values[position], to: group) }
                    case .skip, .group: break
                    }
                }
                return true
            }
        }
        try decodeKeys(of: groups, components: components, into: &numbering)
        try aggregator.context.store.read { txn in
            for row in cutRows { try addRecord(of: row, components: components, txn: txn, to: &numbering) }
        }
    }

    /// A component of a key: an optional's presence byte, then the value.
    private static func readComponent(
        _ native: any NativeValue.Type, isOptional: Bool, from reader: inout KeyReader
    ) throws(StorageError) -> Any? {
        if isOptional, try reader.readRawByte() == 0 { return nil }
        return try native.readKey(from: &reader)
    }

    /// A component of a key as a number (`nil` for an optional's `nil`).
    private static func numberComponent(
        _ native: any NativeValue.Type, isOptional: Bool, in reader: inout KeyReader
    ) throws(StorageError) -> StoredNumber? {
        if isOptional, try reader.readRawByte() == 0 { return nil }
        return try native.number(ofKey: &reader)
    }

    /// Moves past a component of a key.
    private static func skipComponent(
        _ native: any NativeValue.Type, isOptional: Bool, in reader: inout KeyReader
    ) throws(StorageError) {
        if isOptional, try reader.readRawByte() == 0 { return }
        try native.skipKey(in: &reader)
    }

    /// Adds a row whose key was cut short, from its record.
    private func addRecord(
        of row: UInt64, components: [Component], txn: borrowing ReadTransaction, to numbering: inout GroupNumbering
    ) throws {
        var scanner = RecordScanner()
        // A dangling entry (no record) is no row.
        guard try scanner.load(row: row, in: tables.layout.records, txn: txn) else { return }
        let read = try components.map { component in try component.field.value(of: scanner.payload(tag: component.field.tag)) }
        var key = [AnyHashable?](repeating: nil, count: aggregator.keys.count)
        for (position, component) in components.enumerated() {
            if let groupKey = component.groupKey { key[groupKey] = aggregator.keys[groupKey].box(read[position]) }
        }
        let columns = aggregator.values.map(\.column)
        let group = try numbering.group(forKey: key, columns: columns)
        for column in columns { column.addModel(to: group) }
        for (position, component) in components.enumerated() {
            for column in component.columns { columns[column].add(value: read[position], to: group) }
        }
    }

    /// Decodes each group's key from its components' bytes.
    private func decodeKeys(of groups: FieldGroups, components: [Component], into numbering: inout GroupNumbering) throws {
        let fields = aggregator.keySources.map { source -> AggregateSource.StoredField? in
            if case .field(let field) = source { return field }
            return nil
        }
        for group in 0..<groups.count {
            var key: [AnyHashable] = []
            for (position, bytes) in groups.keyBytes(of: group, parts: fields.count).enumerated() {
                guard let field = fields[position] else { continue }
                var reader = KeyReader(bytes)
                let value = try Self.readComponent(field.native, isOptional: field.attribute.isOptional, from: &reader)
                guard let boxed = aggregator.keys[position].box(value) else {
                    throw FetchError.ungroupableKey([aggregator.keys[position].keyPath])
                }
                key.append(boxed)
            }
            numbering.setKey(key, of: group)
        }
    }
}

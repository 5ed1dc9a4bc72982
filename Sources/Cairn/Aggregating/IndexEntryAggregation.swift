import CairnStorage
import Foundation

/// An aggregate read from the entries of an index whose keys hold every grouping and aggregated
/// attribute (``AggregatePlan/Method/indexEntries(table:)``), as SQL's covering index: each entry
/// is one row, its key read in place component by component (``IndexEntryScan``), and no record
/// is read. The grouping components' bytes number the row's group (``FieldGroups``); each group's
/// key is decoded once, at the end.
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

    func run(into numbering: inout GroupNumbering) throws {
        let tables = aggregator.request.tables
        let columns = aggregator.values.map(\.column)
        var scan = IndexEntryScan(components: components(), columns: columns)
        try aggregator.context.store.read { txn in
            try txn.scanIndexedRows(index.table, .all) { key, row in
                if tables.includes(row: row) { try scan.add(key: key, row: row) }
                return true
            }
        }
        numbering.reserveStored(upTo: scan.groups.count, columns: columns)
        scan.tally.hand(to: columns)
        try decodeKeys(of: scan.groups, components: scan.components, into: &numbering)
        try aggregator.context.store.read { txn in
            for row in scan.cutRows { try addRecord(of: row, components: scan.components, txn: txn, to: &numbering) }
        }
    }

    /// What each of the index's attributes is to the aggregation, in the index's order.
    private func components() -> [IndexEntryScan.Component] {
        let numberColumns = IndexEntryScan.numberColumns(aggregator.values.map(\.column))
        return index.names.map { name in
            let tables = aggregator.request.tables
            let field = tables.entity.attributesByName[name].flatMap { AggregateSource.StoredField($0, of: tables) }!
            let groupKey = aggregator.keySources.firstIndex { source in
                if case .field(let key) = source { return key.attribute.name == name }
                return false
            }
            let columns = aggregator.valueSources.indices.filter { index in
                if case .field(let value)? = aggregator.valueSources[index] { return value.attribute.name == name }
                return false
            }
            let slots = columns.compactMap { numberColumns.firstIndex(of: $0) }
            return IndexEntryScan.Component(
                field: field, groupKey: groupKey, columns: columns, slots: slots.count == columns.count ? slots : nil)
        }
    }

    /// Adds a row whose key was cut short, from its record.
    private func addRecord(
        of row: UInt64, components: [IndexEntryScan.Component], txn: borrowing ReadTransaction,
        to numbering: inout GroupNumbering
    ) throws {
        var scanner = RecordScanner()
        // A dangling entry (no record) is no row.
        guard try scanner.load(row: row, in: aggregator.request.tables.layout.records, txn: txn) else { return }
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

    /// Decodes each group's key from its grouping components' bytes (in the index's order).
    private func decodeKeys(
        of groups: FieldGroups, components: [IndexEntryScan.Component], into numbering: inout GroupNumbering
    ) throws {
        for group in 0..<groups.count {
            var key = [AnyHashable](repeating: 0, count: aggregator.keys.count)
            var reader = KeyReader(groups.bytes(of: group))
            for component in components {
                guard let groupKey = component.groupKey else { continue }
                let value = try IndexEntryScan.read(component.field, from: &reader)
                guard let boxed = aggregator.keys[groupKey].box(value) else {
                    throw FetchError.ungroupableKey([aggregator.keys[groupKey].keyPath])
                }
                key[groupKey] = boxed
            }
            numbering.setKey(key, of: group)
        }
    }
}

/// The state of a scan of index entries for ``IndexEntryAggregation``: each key is read where
/// LMDB keeps it, its grouping components give the row's group, its numbers go to the
/// ``GroupTally`` and any other value to its columns.
///
/// ```swift
/// var scan = IndexEntryScan(components: components, columns: columns)
/// try scan.add(key: key, row: row)   // for each entry
/// scan.tally.hand(to: columns)
/// ```
struct IndexEntryScan {
    /// What one of the index's attributes is to the aggregation.
    struct Component {
        let field: AggregateSource.StoredField
        /// The grouping key it is, if any.
        let groupKey: Int?
        /// The columns that read it.
        let columns: [Int]
        /// Those columns' slots in the tally, when they all add numbers (it is read as one).
        let slots: [Int]?
    }

    /// What to do with each component of a key, in plain values (a row copies no reference):
    /// its role, type, and its columns or tally slots (a range of ``targets``).
    private struct Use {
        enum Role { case skip, group, number, value }
        let role: Role
        let native: any NativeValue.Type
        let isOptional: Bool
        let targets: Range<Int>
    }

    let components: [IndexEntryScan.Component]
    private let uses: [Use]
    /// Each number component's tally slots and each value component's columns, one after another.
    private let targets: [Int]
    private let columns: [AggregateColumn]
    /// Whether the grouping components follow one another in the key: their bytes are the
    /// group's key where they lie.
    private let groupsAreAdjacent: Bool
    /// How many components lead the key that are all grouping ones (0 when any grouping
    /// component comes later).
    private let leadingGroups: Int
    /// The last grouping component's position (-1: none): the row's group is known past it.
    private let lastGrouping: Int
    /// The last row's leading grouping components' bytes, and its group (-1: none yet).
    private var lastLeadBytes: [UInt8] = []
    private var lastLeadGroup = -1
    private(set) var groups = FieldGroups()
    private(set) var tally: GroupTally
    /// Rows whose key was cut short, added from their records after the scan.
    private(set) var cutRows: [UInt64] = []
    /// A row's numbers and values read before its group is known, by component.
    private var numbers: [StoredNumber?]
    private var values: [Any?]

    init(components: [Component], columns: [AggregateColumn]) {
        self.components = components
        self.columns = columns
        var targets: [Int] = []
        uses = components.map { component in
            let role: Use.Role =
                component.groupKey != nil ? .group
                : component.columns.isEmpty ? .skip : component.slots != nil ? .number : .value
            let first = targets.count
            if role == .number { targets += component.slots ?? [] }
            if role == .value { targets += component.columns }
            return Use(
                role: role, native: component.field.native, isOptional: component.field.attribute.isOptional,
                targets: first..<targets.count)
        }
        self.targets = targets
        let grouping = components.indices.filter { components[$0].groupKey != nil }
        groupsAreAdjacent = zip(grouping, grouping.dropFirst()).allSatisfy { $0 + 1 == $1 }
        leadingGroups = groupsAreAdjacent && grouping.first == 0 ? grouping.count : 0
        lastGrouping = grouping.last ?? -1
        tally = GroupTally(numberColumns: Self.numberColumns(columns))
        numbers = Array(repeating: nil, count: components.count)
        values = Array(repeating: nil, count: components.count)
    }

    /// Adds the row of an index entry, given its key. Its numbers and values are added as they
    /// are read once its group is known (past the last grouping component), kept until then.
    mutating func add(key: UnsafeRawBufferPointer, row: UInt64) throws {
        var reader = KeyReader(unsafeBytes: key)
        if reader.isHashed { return cutRows.append(row) }
        var group = try sameLeadingGroup(key, reader: &reader)
        if group == nil && lastGrouping < 0 { group = numberGroup(key: key, grouping: 0..<0) }
        if let group { tally.count(group, growing: columns) }
        // Where the grouping components lie, when they are adjacent.
        var grouping: Range<Int>?
        if !groupsAreAdjacent { groups.begin() }
        var kept = false
        for position in (group == nil ? 0 : leadingGroups)..<uses.count {
            let (use, start) = (uses[position], reader.position)
            switch use.role {
            case .skip:
                try Self.skip(use.native, isOptional: use.isOptional, in: &reader)
            case .group:
                try Self.skip(use.native, isOptional: use.isOptional, in: &reader)
                grouping = (grouping?.lowerBound ?? start)..<reader.position
                if !groupsAreAdjacent { groups.append(raw: UnsafeRawBufferPointer(rebasing: key[start..<reader.position])) }
                if position == lastGrouping {
                    group = numberGroup(key: key, grouping: grouping!)
                    tally.count(group!, growing: columns)
                }
            case .number:
                let number = try Self.number(use.native, isOptional: use.isOptional, in: &reader)
                if let group { add(number, use, to: group) } else { (numbers[position], kept) = (number, true) }
            case .value:
                let value = try Self.read(use.native, isOptional: use.isOptional, from: &reader)
                if let group { add(value, use, to: group) } else { (values[position], kept) = (value, true) }
            }
        }
        if kept, let group { addKept(to: group) }
    }

    /// The last row's group when the grouping components lead the key and this key starts with
    /// the last row's (keys come in order: rows of one group follow one another), the reader
    /// moved past them; otherwise `nil`.
    // Mutating, though it changes nothing, so that calling it copies no `self`.
    @inline(__always)
    private mutating func sameLeadingGroup(_ key: UnsafeRawBufferPointer, reader: inout KeyReader) throws(StorageError) -> Int? {
        guard leadingGroups > 0, lastLeadGroup >= 0, key.count > lastLeadBytes.count else { return nil }
        let same = lastLeadBytes.withUnsafeBytes { ByteHashing.equal($0, UnsafeRawBufferPointer(rebasing: key[..<$0.count])) }
        guard same else { return nil }
        try reader.skip(count: lastLeadBytes.count)
        return lastLeadGroup
    }

    /// The group of a row whose grouping components were read (at `grouping`, when adjacent).
    private mutating func numberGroup(key: UnsafeRawBufferPointer, grouping: Range<Int>) -> Int {
        guard groupsAreAdjacent else { return groups.group(ordered: true) }
        let group = groups.group(of: UnsafeRawBufferPointer(rebasing: key[grouping]))
        if leadingGroups > 0 && group != lastLeadGroup {
            (lastLeadBytes, lastLeadGroup) = (Array(UnsafeRawBufferPointer(rebasing: key[grouping])), group)
        }
        return group
    }

    private mutating func add(_ number: StoredNumber?, _ use: Use, to group: Int) {
        guard let number else { return }
        for target in use.targets { tally.add(number, slot: targets[target], to: group) }
    }

    private mutating func add(_ value: Any?, _ use: Use, to group: Int) {
        for target in use.targets { columns[targets[target]].add(value: value, to: group) }
    }

    /// Adds the numbers and values read before the row's group was known.
    private mutating func addKept(to group: Int) {
        for position in uses.indices where uses[position].role == .number || uses[position].role == .value {
            if uses[position].role == .number { add(numbers[position], uses[position], to: group) }
            if uses[position].role == .value { add(values[position], uses[position], to: group) }
            // Taken: a later row whose group comes first must not add them again.
            (numbers[position], values[position]) = (nil, nil)
        }
    }

    /// The columns whose numbers are tallied: every sum and average (the index holds every
    /// attribute read). One that shares its component with another kind of column gets its
    /// values one by one instead, its tally left empty.
    static func numberColumns(_ columns: [AggregateColumn]) -> [Int] {
        columns.indices.filter { columns[$0].numberField != nil }
    }

    /// A component of a key: an optional's presence byte, then the value.
    static func read(_ field: AggregateSource.StoredField, from reader: inout KeyReader) throws(StorageError) -> Any? {
        try read(field.native, isOptional: field.attribute.isOptional, from: &reader)
    }

    private static func read(
        _ native: any NativeValue.Type, isOptional: Bool, from reader: inout KeyReader
    ) throws(StorageError) -> Any? {
        if isOptional, try reader.readRawByte() == 0 { return nil }
        return try native.readKey(from: &reader)
    }

    /// A component of a key as a number (`nil` for an optional's `nil`).
    private static func number(
        _ native: any NativeValue.Type, isOptional: Bool, in reader: inout KeyReader
    ) throws(StorageError) -> StoredNumber? {
        if isOptional, try reader.readRawByte() == 0 { return nil }
        return try native.number(ofKey: &reader)
    }

    /// Moves past a component of a key.
    private static func skip(
        _ native: any NativeValue.Type, isOptional: Bool, in reader: inout KeyReader
    ) throws(StorageError) {
        if isOptional, try reader.readRawByte() == 0 { return }
        try native.skipKey(in: &reader)
    }
}

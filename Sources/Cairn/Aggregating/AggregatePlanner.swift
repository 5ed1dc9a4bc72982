import Foundation

/// Chooses how an ``Aggregator`` computes its values (``AggregatePlan/Method``): from an index or
/// the row count when nothing else is needed, from records when the fetch plan decides the whole
/// predicate and every value is a stored field, from models otherwise.
///
/// ```swift
/// let choice = AggregatePlanner(aggregator: aggregator, executor: executor).method()
/// ```
struct AggregatePlanner {
    let aggregator: Aggregator
    let executor: FetchExecutor

    /// The method, with the index tables an index method reads.
    struct Choice {
        enum Kind {
            case indexCount, indexExtremes, indexGroups, indexEntries, records, models
        }
        let method: Kind
        let explained: AggregatePlan.Method
        /// For ``Kind/indexExtremes``: each value's index (`nil` for a count); for
        /// ``Kind/indexGroups``: the grouping attribute's index; for ``Kind/indexEntries``: the
        /// index whose keys hold every attribute read.
        var indexes: [Store.EntityTables.UniqueConstraint?] = []
    }

    private var request: FetchRequest { aggregator.request }
    private var tables: Store.EntityTables { request.tables }

    func method() -> Choice {
        if let reason = modelsReason() {
            return Choice(method: .models, explained: .models(reason: reason))
        }
        if let choice = indexChoice() ?? coveringChoice() { return choice }
        var fields: [String] = []
        for source in aggregator.keySources + aggregator.valueSources.compactMap({ $0 }) {
            switch source {
            case .field(let field): fields.append(field.attribute.name)
            case .related(let relationship, _, let field): fields.append("\(relationship.name).\(field.attribute.name)")
            case .model: break
            }
        }
        var seen = Set<String>()
        return Choice(method: .records, explained: .records(fields: fields.filter { seen.insert($0).inserted }))
    }

    /// Why the values must be read of models, if they must.
    private func modelsReason() -> String? {
        if request.fetchLimit != nil || request.fetchOffset != nil {
            return "the descriptor has a fetchLimit or fetchOffset: the aggregates are over the page fetch returns"
        }
        if !executor.residual.isEmptyForVouchedRows {
            return "part of the predicate is not a comparison of a stored attribute with a value"
        }
        for (key, source) in zip(aggregator.keys, aggregator.keySources) where !source.isStored {
            return "grouping by \(key.keyPath), which is not a stored attribute of \(tables.entity.name) or of a to-one "
                + "relationship's destination"
        }
        for (value, source) in zip(aggregator.values, aggregator.valueSources) {
            guard let keyPath = value.keyPath else { continue }
            guard case .field = source, value.column.readsFields else {
                return "\(keyPath) is not a stored attribute of \(tables.entity.name)"
            }
        }
        return nil
    }

    /// An index method, when there is no predicate and no unsaved change counts.
    private func indexChoice() -> Choice? {
        let context = aggregator.context
        guard request.predicate == nil, !(request.includePendingChanges && context.hasChanges) else { return nil }
        let values = aggregator.values
        if aggregator.keys.isEmpty {
            if values.allSatisfy({ $0.keyPath == nil }) {
                return Choice(method: .indexCount, explained: .rowCount(table: tables.layout.records.name))
            }
            var indexes: [Store.EntityTables.UniqueConstraint?] = []
            for (value, source) in zip(values, aggregator.valueSources) {
                if value.keyPath == nil {
                    indexes.append(nil)
                    continue
                }
                guard [.minimum, .maximum].contains(value.function), case .field(let field)? = source,
                    let index = orderedIndex(of: field)
                else { return nil }
                indexes.append(index)
            }
            let names = indexes.compactMap { $0?.table.name }
            return Choice(method: .indexExtremes, explained: .indexEnds(tables: names), indexes: indexes)
        }
        guard aggregator.keys.count == 1, case .field(let field) = aggregator.keySources[0],
            values.allSatisfy({ $0.keyPath == nil }),
            let index = tables.keys.indexes.first(where: { $0.names == [field.attribute.name] }), isFilled(index)
        else { return nil }
        return Choice(method: .indexGroups, explained: .indexGroups(table: index.table.name), indexes: [index])
    }

    /// An index whose keys hold every grouping and aggregated attribute, when there is no
    /// predicate and no unsaved change counts: its entries are read, not the records.
    private func coveringChoice() -> Choice? {
        guard request.predicate == nil, !(request.includePendingChanges && aggregator.context.hasChanges) else {
            return nil
        }
        var names = Set<String>()
        for source in aggregator.keySources + aggregator.valueSources.compactMap({ $0 }) {
            guard case .field(let field) = source else { return nil }
            names.insert(field.attribute.name)
        }
        guard !names.isEmpty, names.isDisjoint(with: tables.keys.hashedAttributes),
            aggregator.values.allSatisfy({ $0.keyPath == nil || $0.column.readsFields })
        else { return nil }
        // A unique table leaves out the rows whose key holds a NaN: an index lists every row.
        let index = tables.keys.indexes.first { names.isSubset(of: $0.names) && isFilled($0) }
        return index.map { Choice(method: .indexEntries, explained: .indexEntries(table: $0.table.name), indexes: [$0]) }
    }

    /// A single-attribute unique or index table on `field` whose key order is its values' order
    /// (a floating-point attribute has none here: NaN has no place in `<`).
    private func orderedIndex(of field: AggregateSource.StoredField) -> Store.EntityTables.UniqueConstraint? {
        let name = field.attribute.name
        guard field.native.keyOrderIsValueOrder, !(field.native is any BinaryFloatingPoint.Type),
            !tables.keys.hashedAttributes.contains(name)
        else { return nil }
        return (tables.keys.indexes + tables.keys.uniques).first { $0.names == [name] && isFilled($0) }
    }

    private func isFilled(_ index: Store.EntityTables.UniqueConstraint) -> Bool {
        !tables.keys.unfilled.contains { $0 === index }
    }
}

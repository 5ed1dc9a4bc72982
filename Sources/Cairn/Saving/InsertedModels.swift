import Foundation

/// What a save needs of each inserted model, read in one pass over the models: its entity's
/// tables, its record, its unique keys, and its position among the save's new rows (noted in its
/// state, see ``SavePlanner``).
///
/// Models are far apart in memory, and each pass over a hundred thousand of them misses the
/// caches once per model, so the save planner makes this one pass for the tables, the keys, the
/// records and the positions, not one each.
///
/// ```swift
/// let inserted = try InsertedModels(context.insertedModelsArray, store: store)
/// let firstKeys = inserted.keyRange(of: 0).map { inserted.keys[$0] }   // the first model's unique keys
/// ```
struct InsertedModels {
    private(set) var models: [any PersistentModel] = []
    private(set) var tables: [Store.EntityTables] = []
    /// Each model's record, by position, sealed for its row's key in the write transaction.
    private(set) var records = RecordList()
    /// Their (temporary) identifiers, read in the same pass: what `willSave` reports.
    private(set) var identifiers: [PersistentIdentifier] = []
    /// The unique keys, model after model, with each key's table: model `i`'s are at
    /// `keyStart[i]..<keyStart[i + 1]`, in the order of its entity's constraints.
    private(set) var keys = KeyList()
    private(set) var keyTables: [Table] = []
    private var keyStart: [Int] = [0]

    /// Reads `models`, in order.
    ///
    /// - Throws: What encoding a record throws.
    init(_ models: [any PersistentModel], store: Store) throws {
        self.models = models
        tables.reserveCapacity(models.count)
        records = RecordList(reservingCapacity: models.count, bytesPerRecord: 64)
        identifiers.reserveCapacity(models.count)
        keys = KeyList(reservingCapacity: models.count)
        keyTables.reserveCapacity(models.count)
        keyStart.reserveCapacity(models.count + 1)
        // One builder for every key: its storage is reused, and the list copies the bytes.
        var builder = KeyBuilder()
        for (position, model) in models.enumerated() {
            let tables = store.tables(of: model)
            self.tables.append(tables)
            for unique in tables.keys.uniques {
                builder.removeAll()
                unique.appendKey(of: model, to: &builder)
                keys.append(builder)
                keyTables.append(unique.table)
            }
            keyStart.append(keys.count)
            _ = try SavePlanner.appendRecord(of: model, tables: tables, to: &records)
            let state = model._$state
            state.planPosition = position
            identifiers.append(state.persistentIdentifier ?? model.persistentModelID)
        }
    }

    private init() {}

    var count: Int { models.count }

    /// The position of the model whose keys include key `key` (a binary search: for the rare
    /// paths that start from a key).
    func position(ofKey key: Int) -> Int {
        // The last model whose first key is at or before `key`; models without keys start
        // where the next one does, so the last of equal starts is the owner.
        var (low, high) = (0, models.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if keyStart[middle] <= key { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The positions in ``keys`` of model `position`'s unique keys.
    func keyRange(of position: Int) -> Range<Int> { keyStart[position]..<keyStart[position + 1] }

    /// The same without the models at the positions in `excluded`, their positions noted again,
    /// with each old position's new one (`nil` for one removed; no list when none is).
    func removing(_ excluded: Set<Int>) -> (kept: InsertedModels, newPositions: [Int?]?) {
        guard !excluded.isEmpty else { return (self, nil) }
        var kept = InsertedModels()
        var newPositions: [Int?] = []
        newPositions.reserveCapacity(models.count)
        for position in models.indices {
            guard !excluded.contains(position) else {
                newPositions.append(nil)
                continue
            }
            newPositions.append(kept.models.count)
            models[position]._$state.planPosition = kept.models.count
            kept.models.append(models[position])
            kept.tables.append(tables[position])
            kept.records.append(position, of: records)
            kept.identifiers.append(identifiers[position])
            for key in keyRange(of: position) {
                kept.keys.append(key, of: keys)
                kept.keyTables.append(keyTables[key])
            }
            kept.keyStart.append(kept.keys.count)
        }
        return (kept, newPositions)
    }

    /// The position of `model` among these models, if it is one of them (its state's note,
    /// checked against the list, so a note left by an earlier save means nothing).
    func position(of model: any PersistentModel, state: _UnretainedModelState) -> Int? {
        let position = state.planPosition
        guard position >= 0 && position < models.count && models[position] === model else { return nil }
        return position
    }
}

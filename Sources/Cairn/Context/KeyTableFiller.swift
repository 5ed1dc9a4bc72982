import CairnStorage
import Foundation

/// Fills the unique and index tables a schema adds to entities that already have rows
/// (``Store/EntityTables/unfilledKeyTables``), as a container opens: the key of every stored
/// model goes in, in one write transaction. A uniqueness constraint that the stored models
/// break (two with the same values) refuses the open with a ``SchemaError`` naming them, and
/// its table stays empty, to be filled at the next open: remove the duplicates first, in a
/// custom migration stage's `willMigrate`.
///
/// ```swift
/// try KeyTableFiller(container: container).fill()
/// ```
struct KeyTableFiller {
    let container: ModelContainer

    func fill() throws {
        for tables in container.store.entities.values where !tables.unfilledKeyTables.isEmpty {
            try fill(tables, type: tables.modelType)
            tables.unfilledKeyTables = []
        }
    }

    /// Fills `tables`' unfilled key tables from every stored model of `type`.
    private func fill<Model: PersistentModel>(_ tables: Store.EntityTables, type: Model.Type) throws {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Model>()
        descriptor.includePendingChanges = false
        let models = try context.fetch(descriptor)
        let rows = models.map { $0.persistentModelID.rowID! }
        var entries: [(table: Table, key: [UInt8], row: UInt64)] = []
        for constraint in tables.unfilledKeyTables {
            let isUnique = tables.uniques.contains { $0 === constraint }
            var claimed: [[UInt8]: PersistentIdentifier] = [:]
            for (model, row) in zip(models, rows) {
                let key = constraint.key(of: model)
                if isUnique, let earlier = claimed.updateValue(model.persistentModelID, forKey: key) {
                    throw SchemaError(
                        code: .incompatibleStore, entity: tables.entityName.text,
                        property: constraint.names.joined(separator: ","),
                        message:
                            "The schema makes \(tables.entityName.text).\(constraint.names.joined(separator: ", ")) "
                            + "unique, but the store holds two models with the same values (\(earlier) and "
                            + "\(model.persistentModelID)). Remove or merge the duplicates before the constraint "
                            + "applies: in a custom migration stage's willMigrate, with the previous version's models.")
                }
                entries.append((constraint.table, key, row))
            }
        }
        try container.store.write(expectedBytes: entries.reduce(0) { $0 + $1.key.count + 40 }) { txn in
            for entry in entries {
                try txn.put(EntryLayout.keyedValue(row: entry.row, key: entry.key), for: entry.key, in: entry.table)
            }
        }
    }
}

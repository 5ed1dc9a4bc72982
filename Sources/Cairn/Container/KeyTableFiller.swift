import CairnStorage
import Foundation

/// Fills the unique and index tables a schema adds to entities that already have rows
/// (``Store/EntityTables/KeyTables/unfilled``), as a container opens: the key of every stored
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
        for tables in container.store.entities.values where !tables.keys.unfilled.isEmpty {
            try fill(tables, type: tables.modelType)
            tables.keys.unfilled = []
        }
    }

    /// How many models one context reads while the keys are computed: the models of a part are
    /// freed before the next part is read, so memory holds keys, not models.
    private static let partSize = 2_000

    /// Fills `tables`' unfilled key tables from every stored model of `type`.
    private func fill<Model: PersistentModel>(_ tables: Store.EntityTables, type: Model.Type) throws {
        var descriptor = FetchDescriptor<Model>()
        descriptor.includePendingChanges = false
        let ids = try ModelContext(container).fetchIdentifiers(descriptor)
        var entries: [(table: Table, key: [UInt8], row: UInt64)] = []
        var claimed = [[[UInt8]: PersistentIdentifier]](repeating: [:], count: tables.keys.unfilled.count)
        for start in stride(from: 0, to: ids.count, by: Self.partSize) {
            let context = ModelContext(container)
            for id in ids[start..<min(start + Self.partSize, ids.count)] {
                let (model, row) = (context.model(for: id), id.rowID!)
                // A record that cannot be read has no values to key: it is left out (verify()
                // reports it), rather than keep the store from opening.
                guard (try? context.rows.load(model, rowID: row, tables: tables)) != nil else { continue }
                try add(model, row: row, of: tables, to: &entries, claimed: &claimed)
            }
        }
        try container.store.write(expectedBytes: entries.reduce(0) { $0 + $1.key.count + 40 }) { txn in
            for entry in entries {
                try txn.put(EntryLayout.keyedValue(row: entry.row, key: entry.key), for: entry.key, in: entry.table)
            }
        }
    }

    /// Adds `model`'s key in each unfilled table of `tables` to `entries`; a unique key another
    /// model has (`claimed`, per table) refuses the open.
    private func add(
        _ model: any PersistentModel, row: UInt64, of tables: Store.EntityTables,
        to entries: inout [(table: Table, key: [UInt8], row: UInt64)], claimed: inout [[[UInt8]: PersistentIdentifier]]
    ) throws {
        for (position, constraint) in tables.keys.unfilled.enumerated() {
            let isUnique = tables.keys.uniques.contains { $0 === constraint }
            let key = constraint.key(of: model)
            // A unique value not equal to itself (a NaN) has no key.
            if isUnique && key.isEmpty { continue }
            if isUnique, let earlier = claimed[position].updateValue(model.persistentModelID, forKey: key) {
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
}

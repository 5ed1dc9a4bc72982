import Foundation

extension ModelContext {
    /// Writes every inserted, changed and deleted model to the store in one transaction: all of it
    /// lands or none of it.
    ///
    /// Every record is encoded before the transaction begins; new models get their row ids, and
    /// so their permanent identifiers, inside it. If the save fails, nothing is written and the
    /// context keeps all its changes, so you can fix the problem and save again.
    ///
    /// ```swift
    /// context.insert(book)
    /// author.name = "Thoreau"
    /// try context.save()
    /// ```
    /// - Throws: ``StorageError`` (`.readOnly`, `.diskFull`, `.maximumSizeReached`,
    ///   `.unsupportedValue` for a value that cannot be encoded, …).
    public func save() throws {
        guard hasChanges else { return }
        let store = container.store
        guard !store.isReadOnly else {
            throw StorageError(
                code: .readOnly,
                message: "The container was opened with allowsSave: false. Open it with allowsSave: true to save.")
        }
        let inserted = insertedModelsArray
        let deleted = Set(deletedModelsArray.map { ObjectIdentifier($0) })
        let changed = changedModelsArray.filter { !deleted.contains(ObjectIdentifier($0)) }

        // Everything is prepared before the transaction: no encoding, and no reads of the store
        // through faults, may happen inside it.
        var insertRecords: [(entity: String, record: [UInt8])] = []
        for model in inserted {
            insertRecords.append((model.persistentModelID.entityName, try record(of: model)))
        }
        var updateRecords: [(table: Table, key: [UInt8], record: [UInt8])] = []
        for model in changed {
            let id = model.persistentModelID
            let tables = store.entities[id.entityName]!
            // A partly loaded model is completed first, so its record is written whole.
            if tables.entity.storedProperties.contains(where: {
                ($0 as? Schema.Attribute)?.access?.isLoaded(model) == false
            }) {
                try load(model, rowID: id.rowID!, tables: tables)
            }
            updateRecords.append((tables.records, Self.rowKey(id.rowID!), try record(of: model)))
        }
        let deleteKeys = try deletedModelsArray.map { model in
            let tables = store.entities[model.persistentModelID.entityName]!
            if let relationship = tables.entity.relationships.first {
                throw StorageError(
                    code: .unsupportedValue,
                    message:
                        "\(tables.entity.name) has relationships (\(relationship.name)), and this version of Cairn "
                        + "cannot apply delete rules yet, so it does not delete such models. Clear the relationships "
                        + "you want to keep consistent, or keep the model for now.")
            }
            return (tables.records, Self.rowKey(model.persistentModelID.rowID!))
        }
        // The relationships to write: every one of an inserted model, and the changed ones of a
        // changed model. Each is rewritten whole, in its order.
        var edgeWrites: [(table: Table, owner: any PersistentModel, targets: [any PersistentModel])] = []
        for model in inserted + changed {
            let tables = store.entities[model.persistentModelID.entityName]!
            let isNew = model.persistentModelID.isTemporary
            for relationship in tables.entity.relationships
            where isNew || model._$modelState.isChanged(relationship.index) {
                let targets = relationship.access.targets(model)
                guard !(isNew && targets.isEmpty) else { continue }
                edgeWrites.append((tables.edges[relationship.name]!, model, targets))
            }
        }

        let rowIDs: [UInt64] = try store.environment.write { txn in
            // This closure may run again after the map grows, so it only reads its inputs.
            var next: [String: UInt64] = [:]
            var assigned: [UInt64] = []
            var assignedByModel: [ObjectIdentifier: UInt64] = [:]
            assigned.reserveCapacity(insertRecords.count)
            for ((entity, record), model) in zip(insertRecords, inserted) {
                let counterKey = Self.rowCounterKey(entity)
                var rowID = try next[entity] ?? txn.get(counterKey, in: store.meta).map(Self.number) ?? 1
                let tables = store.entities[entity]!
                guard try txn.put(record, for: Self.rowKey(rowID), in: tables.records, options: .append) else {
                    throw StorageError(
                        code: .damaged,
                        message: "The row counter of \(entity) is behind its rows, so a new row would overwrite one. "
                            + "Restore the store from a backup.")
                }
                assigned.append(rowID)
                assignedByModel[ObjectIdentifier(model)] = rowID
                rowID += 1
                next[entity] = rowID
            }
            for (entity, rowID) in next {
                try txn.put(Self.rowKey(rowID), for: Self.rowCounterKey(entity), in: store.meta)
            }
            for (table, key, record) in updateRecords { try txn.put(record, for: key, in: table) }
            for (table, key) in deleteKeys { try txn.delete(key, in: table) }
            func rowID(of model: any PersistentModel) throws -> UInt64 {
                if let rowID = model._$modelState.persistentIdentifier?.rowID
                    ?? assignedByModel[ObjectIdentifier(model)]
                {
                    return rowID
                }
                throw StorageError(
                    code: .unsupportedValue,
                    message: "A relationship points at a \(type(of: model)) that is not saved and was not inserted "
                        + "(it was deleted before it was ever saved). Remove it from the relationship, or insert it again."
                )
            }
            for (table, owner, targets) in edgeWrites {
                let ownerKey = Self.rowKey(try rowID(of: owner))
                try txn.delete(ownerKey, in: table)
                for (rank, target) in targets.enumerated() {
                    let edge = Self.rowKey(UInt64(rank)) + Self.rowKey(try rowID(of: target))
                    try txn.put(edge, for: ownerKey, in: table, options: .appendDuplicate)
                }
            }
            return assigned
        }
        didSave(inserted: inserted, rowIDs: rowIDs, changed: changed)
    }

    /// The record of a model's attributes, fields in ascending tag order.
    private func record(of model: any PersistentModel) throws -> [UInt8] {
        let tables = container.store.entities[model.persistentModelID.entityName]!
        var writer = RecordWriter()
        for (tag, access) in tables.encodingOrder {
            try access.encode(model, tag, &writer)
        }
        return writer.finished()
    }

    static func rowCounterKey(_ entity: String) -> [UInt8] { Array("rowid:\(entity)".utf8) }

    static func number(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

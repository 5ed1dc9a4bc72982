import Foundation

extension ModelContext {
    /// The models that match a descriptor, in its order.
    ///
    /// The entity's rows are read in one pass of one read transaction; rows the context already
    /// holds come back as the same instances, and the others are loaded from the record just read.
    /// With ``FetchDescriptor/includePendingChanges`` (the default), inserted models that match are
    /// included, deleted ones left out, and changed ones judged by their unsaved values.
    ///
    /// ```swift
    /// let recent = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.year > 2000 }))
    /// ```
    /// - Throws: ``StorageError`` when the store cannot be read, or what the predicate throws.
    /// - Complexity: O(*n* log *n*) in the entity's rows: every row is read and tested.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        var results = try candidates(descriptor)
        if !descriptor.sortBy.isEmpty { results.sort(using: descriptor.sortBy) }
        let offset = min(max(descriptor.fetchOffset ?? 0, 0), results.count)
        let end = descriptor.fetchLimit.map { min(offset + max($0, 0), results.count) } ?? results.count
        return Array(results[offset..<end])
    }

    /// The number of models that match a descriptor (its limit and offset apply).
    ///
    /// ```swift
    /// let count = try context.fetchCount(FetchDescriptor<Book>())
    /// ```
    /// - Complexity: O(*n*) in the entity's rows.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let matching =
            try descriptor.predicate == nil ? countWithoutPredicate(descriptor) : candidates(descriptor).count
        let afterOffset = max(matching - max(descriptor.fetchOffset ?? 0, 0), 0)
        return descriptor.fetchLimit.map { min(max($0, 0), afterOffset) } ?? afterOffset
    }

    /// The rows of `T`, adjusted for pending inserts and deletes, without loading any model.
    private func countWithoutPredicate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let entityName = Schema.entityName(of: T.self)
        guard let tables = container.store.entities[entityName] else {
            preconditionFailure(
                "ModelContext.fetchCount(_:): \(entityName) is not in the container's schema; add \(entityName).self to it"
            )
        }
        let rows = try container.store.environment.read { txn in try txn.count(of: tables.records) }
        guard descriptor.includePendingChanges else { return rows }
        let inserted = insertedModelsArray.count { $0 is T }
        let deleted = deletedModelsArray.count { $0 is T }
        return rows + inserted - deleted
    }

    /// Every model of `T` that matches the predicate, in row order, then pending inserts.
    private func candidates<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let entityName = Schema.entityName(of: T.self)
        guard let tables = container.store.entities[entityName] else {
            preconditionFailure(
                "ModelContext.fetch(_:): \(entityName) is not in the container's schema; add \(entityName).self to it")
        }
        let pendingDeletes = Set(deletedModelsArray.map { ObjectIdentifier($0) })
        var models: [T] = []
        let rows: [(UInt64, RecordReader)] = try container.store.environment.read { txn in
            var rows: [(UInt64, RecordReader)] = []
            try txn.scan(tables.records) { key, value in
                rows.append((UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), try RecordReader(copying: value)))
                return true
            }
            return rows
        }
        for (rowID, reader) in rows {
            let id = PersistentIdentifier(
                entityName: entityName, storeIdentifier: container.store.identifier, rowID: rowID)
            let model = model(for: id) as! T
            if descriptor.includePendingChanges && pendingDeletes.contains(ObjectIdentifier(model)) { continue }
            try apply(reader, to: model, tables: tables)
            models.append(model)
        }
        if descriptor.includePendingChanges {
            models += insertedModelsArray.compactMap { $0 as? T }.filter {
                !pendingDeletes.contains(ObjectIdentifier($0))
            }
        }
        guard let predicate = descriptor.predicate else { return models }
        if descriptor.includePendingChanges {
            return try models.filter { try predicate.evaluate($0) }
        }
        // Without pending changes, changed models are judged by their stored values: test a
        // fresh copy loaded from the store.
        return try models.filter { model in
            guard model.hasChanges, let rowID = model.persistentModelID.rowID else {
                return try predicate.evaluate(model)
            }
            var state = _ModelState()
            state.persistentIdentifier = model.persistentModelID
            let stored = T(_$modelState: state)
            stored._$modelState.loader = self
            try load(stored, rowID: rowID, tables: tables)
            return try predicate.evaluate(stored)
        }
    }
}

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
        let page = Array(results[offset..<end])
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching.map { $0 as AnyKeyPath }, of: page)
        }
        return page
    }

    /// Loads the given relationships of `models` that are not loaded yet, one relationship per
    /// read transaction: every owner's edges in one pass of one cursor in row order, then the
    /// targets' records in row order. Targets become registered models (or are loaded into the
    /// ones registered), and each owner's relationship is set in its stored order.
    func prefetch<T: PersistentModel>(_ keyPaths: [AnyKeyPath], of models: [T]) throws {
        let store = container.store
        guard let tables = store.entities[Schema.entityName(of: T.self)] else { return }
        for keyPath in keyPaths {
            guard let relationship = tables.entity.relationships.first(where: { $0.keyPath == keyPath }) else {
                continue
            }
            let owners = models.filter { $0.persistentModelID.rowID != nil && !relationship.access.isLoaded($0) }
            guard !owners.isEmpty else { continue }
            let ownerRows = owners.map { $0.persistentModelID.rowID! }.sorted()
            let edgeTable = tables.edges[relationship.name]!
            let destination = store.entities[relationship.destination]!
            statistics.readTransactions += 1
            let (edges, records) = try store.environment.read { txn -> ([UInt64: [UInt64]], [UInt64: RecordReader]) in
                var edges: [UInt64: [UInt64]] = [:]
                try txn.withCursor(on: edgeTable) { cursor in
                    for row in ownerRows {
                        var targets: [UInt64] = []
                        var more = try cursor.seek(exactly: Self.rowKey(row))
                        while more {
                            targets.append(
                                UInt64(
                                    bigEndian: cursor.current.value.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                            more = try cursor.nextDuplicate()
                        }
                        edges[row] = targets
                    }
                }
                var records: [UInt64: RecordReader] = [:]
                for target in Set(edges.values.joined()).sorted() {
                    // A target whose row is gone (a dangling reference) is left out.
                    if let reader = try txn.withValue(
                        for: Self.rowKey(target), in: destination.records, { try RecordReader(copying: $0) })
                    {
                        records[target] = reader
                    }
                }
                return (edges, records)
            }
            var loaded: [UInt64: any PersistentModel] = [:]
            for (row, reader) in records {
                let target = model(
                    for: PersistentIdentifier(
                        entityName: destination.entity.name, storeIdentifier: store.identifier, rowID: row))
                try apply(reader, to: target, tables: destination)
                statistics.recordLoads += 1
                loaded[row] = target
            }
            for owner in owners {
                relationship.access.load(
                    owner, edges[owner.persistentModelID.rowID!, default: []].compactMap { loaded[$0] })
            }
        }
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
        let access = PredicatePlanner(tables: tables).access(for: descriptor.predicate?.expression)
        statistics.readTransactions += 1
        let rows = try container.store.environment.read { txn in
            try Self.candidateRows(access, tables: tables, txn: txn)
        }
        statistics.recordLoads += rows.count
        var included = Set<ObjectIdentifier>()
        for (rowID, reader) in rows {
            let id = PersistentIdentifier(
                entityName: entityName, storeIdentifier: container.store.identifier, rowID: rowID)
            let model = model(for: id) as! T
            if descriptor.includePendingChanges && pendingDeletes.contains(ObjectIdentifier(model)) { continue }
            try apply(reader, to: model, tables: tables)
            models.append(model)
            included.insert(ObjectIdentifier(model))
        }
        if descriptor.includePendingChanges {
            // An index reflects stored values: changed models are candidates by their unsaved ones.
            if case .fullScan = access {
            } else {
                models += changedModelsArray.compactMap { $0 as? T }.filter {
                    !included.contains(ObjectIdentifier($0)) && !pendingDeletes.contains(ObjectIdentifier($0))
                }
            }
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

    /// The stored rows an access path reads, with their records.
    private static func candidateRows(
        _ access: PredicatePlanner.Access, tables: Store.EntityTables, txn: borrowing ReadTransaction
    ) throws -> [(UInt64, RecordReader)] {
        var rowIDs: [UInt64] = []
        switch access {
        case .fullScan:
            var rows: [(UInt64, RecordReader)] = []
            try txn.scan(tables.records) { key, value in
                rows.append((UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), try RecordReader(copying: value)))
                return true
            }
            return rows
        case .unique(let unique, let key):
            if let row = try txn.get(key, in: unique.table) { rowIDs = [number(row)] }
        case .indexEquality(let index, let key):
            try txn.forEachDuplicate(of: key, in: index.table) { value in
                rowIDs.append(number(Array(value)))
                return true
            }
        case .indexRange(let index, let range, _, _):
            try txn.scan(index.table, range) { _, value in
                rowIDs.append(number(Array(value)))
                return true
            }
        case .oneOf(let keyed, let keys, let isUnique):
            var seen = Set<UInt64>()
            for key in Set(keys) {
                if isUnique {
                    if let row = try txn.get(key, in: keyed.table) { rowIDs.append(number(row)) }
                } else {
                    try txn.forEachDuplicate(of: key, in: keyed.table) { value in
                        rowIDs.append(number(Array(value)))
                        return true
                    }
                }
            }
            rowIDs = rowIDs.filter { seen.insert($0).inserted }
        }
        return try rowIDs.compactMap { row in
            try txn.withValue(for: rowKey(row), in: tables.records) { (row, try RecordReader(copying: $0)) }
        }
    }

    /// How ``fetch(_:)`` would find the descriptor's models: the access path it chooses and
    /// roughly how many rows that path reads.
    ///
    /// ```swift
    /// let plan = try context.explain(FetchDescriptor<Author>(predicate: #Predicate { $0.lastName == "Austen" }))
    /// print(plan)   // "index equality on i/Author/lastName (lastName ==), about 1 rows, then the predicate …"
    /// ```
    /// - Throws: ``StorageError`` when the store cannot be read.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchPlan {
        let entityName = Schema.entityName(of: T.self)
        guard let tables = container.store.entities[entityName] else {
            preconditionFailure(
                "ModelContext.explain(_:): \(entityName) is not in the container's schema; add \(entityName).self to it"
            )
        }
        let access = PredicatePlanner(tables: tables).access(for: descriptor.predicate?.expression)
        return try container.store.environment.read { txn in
            switch access {
            case .fullScan:
                return FetchPlan(
                    accessPath: .fullScan, evaluatesPredicate: descriptor.predicate != nil,
                    estimatedRows: try txn.count(of: tables.records))
            case .unique(let unique, let key):
                return FetchPlan(
                    accessPath: .uniqueKey(table: unique.table.name, attribute: unique.names[0]),
                    evaluatesPredicate: true, estimatedRows: try txn.contains(key, in: unique.table) ? 1 : 0)
            case .indexEquality(let index, let key):
                return FetchPlan(
                    accessPath: .indexEquality(table: index.table.name, attribute: index.names[0]),
                    evaluatesPredicate: true, estimatedRows: try txn.duplicateCount(of: key, in: index.table))
            case .oneOf(let keyed, let keys, let isUnique):
                var count = 0
                for key in Set(keys) {
                    count +=
                        isUnique
                        ? (try txn.contains(key, in: keyed.table) ? 1 : 0)
                        : try txn.duplicateCount(of: key, in: keyed.table)
                }
                return FetchPlan(
                    accessPath: .keyList(table: keyed.table.name, attribute: keyed.names[0], count: Set(keys).count),
                    evaluatesPredicate: true, estimatedRows: count)
            case .indexRange(let index, let range, let lower, let upper):
                var count = 0
                try txn.scan(index.table, range) { _, _ in
                    count += 1; return true
                }
                func bound(_ condition: PredicatePlanner.Condition?) -> String? {
                    condition.map { condition in
                        switch condition.kind {
                        case .lower(let inclusive): (inclusive ? ">= " : "> ") + condition.text
                        case .upper(let inclusive): (inclusive ? "<= " : "< ") + condition.text
                        case .equal: "== " + condition.text
                        case .oneOf: "in " + condition.text
                        }
                    }
                }
                return FetchPlan(
                    accessPath: .indexRange(
                        table: index.table.name, attribute: index.names[0],
                        lower: bound(lower), upper: bound(upper)),
                    evaluatesPredicate: true, estimatedRows: count)
            }
        }
    }
}

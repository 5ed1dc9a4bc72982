import Foundation

extension ModelContext {
    /// The models that match a descriptor, in its order.
    ///
    /// The planner picks how to find candidates (see ``explain(_:)``): a unique key, index keys or
    /// an index range when the predicate allows, else every row, read in one read transaction.
    /// Rows the context already holds come back as the same instances, and the others are loaded
    /// from the record just read. With a ``FetchDescriptor/fetchLimit`` and a first sort key that
    /// has an index, rows are read in index order and reading stops once the limit is certain.
    /// With ``FetchDescriptor/includePendingChanges`` (the default), inserted models that match are
    /// included, deleted ones left out, and changed ones judged by their unsaved values.
    ///
    /// ```swift
    /// let recent = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.year > 2000 }))
    /// ```
    /// - Throws: ``StorageError`` when the store cannot be read; ``FetchError`` when the predicate
    ///   cannot be evaluated on a model, or (``FetchError/Code/loadFailed``, before anything is
    ///   read) when a property could not be loaded since the last save or fetch: see
    ///   ``pendingLoadErrors``.
    /// - Complexity: O(*n* log *n*) in the candidate rows.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try beginStoreAccess()
        let tables = entityTables(of: T.self, for: "fetch(_:)")
        if !descriptor.includePendingChanges && hasChanges {
            return try fetchStoredOnly(descriptor, tables: tables)
        }
        let page = try results(of: FetchExecutor(FetchRequest(descriptor, tables: tables), in: self), descriptor)
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching.map { $0 as AnyKeyPath }, of: page)
        }
        return page
    }

    /// The executor's matches as the descriptor's models, in its order, after its offset and limit.
    func results<T: PersistentModel>(of executor: FetchExecutor, _ descriptor: FetchDescriptor<T>) throws -> [T] {
        try ordered(executor.matches(), by: executor, descriptor)
    }

    /// `matches` as the descriptor's models, sorted by it, after its offset and limit.
    func ordered<T: PersistentModel>(
        _ matches: [any PersistentModel], by executor: FetchExecutor, _ descriptor: FetchDescriptor<T>
    ) -> [T] {
        var models = Self.typed(matches, as: T.self)
        if !descriptor.sortBy.isEmpty { models.sort(using: descriptor.sortBy) }
        return executor.page(models)
    }

    /// Models read for a fetch of `T`, as `T`: the executor reads `T`'s entity's tables only and
    /// checks the type of pending models, so no cast can fail.
    static func typed<T: PersistentModel>(_ models: [any PersistentModel], as _: T.Type) -> [T] {
        // A loop, not `map`: unspecialized generic code pays metadata lookups per call made.
        var typed: [T] = []
        typed.reserveCapacity(models.count)
        for model in models { typed.append(unsafeDowncast(model as AnyObject, to: T.self)) }
        return typed
    }

    /// A fetch that ignores this context's unsaved changes, which may reach the predicate through
    /// related models too: it is answered by a context without changes on the same store, and the
    /// results are this context's instances of the same models (loaded in one read when new).
    private func fetchStoredOnly<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, tables: Store.EntityTables
    ) throws -> [T] {
        var plain = descriptor
        plain.includePendingChanges = true
        plain.relationshipKeyPathsForPrefetching = []
        let scratch = ModelContext(container)
        let identifiers = try scratch.fetch(plain).map(\.persistentModelID)
        statistics.readTransactions += scratch.statistics.readTransactions
        statistics.recordLoads += scratch.statistics.recordLoads
        let unregistered = identifiers.filter { (registeredModel(for: $0) as T?) == nil }.compactMap(\.rowID)
        var loaded: [T] = []
        if !unregistered.isEmpty {
            statistics.readTransactions += 1
            let rows = try container.store.environment.read { txn in
                try CandidateReader.records(of: unregistered.sorted(), tables: tables, txn: txn)
            }
            loaded = Self.typed(try models(for: rows, of: FetchRequest(plain, tables: tables)), as: T.self)
        }
        // The identity map sweeps as models register: keep the ones just loaded until they are in `page`.
        let page = withExtendedLifetime(loaded) { identifiers.map { registeredOrFault($0) as! T } }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching.map { $0 as AnyKeyPath }, of: page)
        }
        return page
    }

    /// The tables of `T`; a model outside the container's schema is a programming error.
    func entityTables<T: PersistentModel>(of type: T.Type, for function: String) -> Store.EntityTables {
        // By the type first: hashing an identifier, not looking the entity's name up and hashing it.
        if let tables = container.store.entitiesByType[ObjectIdentifier(T.self)] { return tables }
        let entityName = Schema.entityName(of: T.self)
        guard let tables = container.store.entities[entityName] else {
            preconditionFailure(
                "ModelContext.\(function): \(entityName) is not in the container's schema; add \(entityName).self to it"
            )
        }
        return tables
    }

    /// Loads the given relationships of `models` that are not loaded yet, one relationship per
    /// read transaction: every owner's edges with one cursor, and the records of the targets the
    /// context does not hold loaded, read as they are met (see ``RelationshipReader``). Targets
    /// become registered models (or are loaded into the ones registered), and each owner's
    /// relationship is set in its stored order.
    func prefetch<T: PersistentModel>(_ keyPaths: [AnyKeyPath], of models: [T]) throws {
        guard let tables = container.store.entitiesByType[ObjectIdentifier(T.self)] else { return }
        for keyPath in keyPaths {
            guard let relationship = tables.entity.relationships.first(where: { $0.keyPath == keyPath }) else {
                continue
            }
            let owners = models.filter { $0.persistentModelID.rowID != nil && !relationship.access.isLoaded($0) }
            guard !owners.isEmpty else { continue }
            let targets = try self.rows.storedTargets(
                relationship, owners: owners.map { $0.persistentModelID.rowID! }, tables: tables, loadingRecords: true)
            for (owner, loaded) in zip(owners, targets) { relationship.access.load(owner, loaded) }
        }
    }

    /// The number of models that match a descriptor (its limit and offset apply).
    ///
    /// ```swift
    /// let count = try context.fetchCount(FetchDescriptor<Book>())
    /// ```
    /// - Throws: What ``fetch(_:)`` throws.
    /// - Complexity: O(*n*) in the candidate rows; without a predicate, O(1) plus the context's
    ///   pending changes.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try beginStoreAccess()
        let tables = entityTables(of: T.self, for: "fetchCount(_:)")
        if !descriptor.includePendingChanges && hasChanges {
            var plain = descriptor
            plain.includePendingChanges = true
            return try ModelContext(container).fetchCount(plain)
        }
        let matching: Int
        if descriptor.predicate == nil {
            matching = try countWithoutPredicate(descriptor, tables: tables)
        } else {
            let executor = FetchExecutor(FetchRequest(descriptor, tables: tables), in: self)
            var stored = Set<ObjectIdentifier>()
            try executor.forEachStoredMatch(decoding: nil, stopAfter: nil) { chunk in
                stored.formUnion(chunk.map(ObjectIdentifier.init))
                return true
            }
            matching = stored.count + (try executor.pendingMatches(excluding: stored)).count
        }
        let afterOffset = max(matching - max(descriptor.fetchOffset ?? 0, 0), 0)
        return descriptor.fetchLimit.map { min(max($0, 0), afterOffset) } ?? afterOffset
    }

    /// The rows of `T`, adjusted for pending inserts and deletes, without loading any model.
    private func countWithoutPredicate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, tables: Store.EntityTables
    ) throws -> Int {
        let rows = try container.store.environment.read { txn in try txn.count(of: tables.records) }
        guard descriptor.includePendingChanges else { return rows }
        let inserted = insertedModelsArray.count { $0 is T }
        let deleted = deletedModelsArray.count { $0 is T }
        return rows + inserted - deleted
    }

    /// The models for stored rows, registered (or the registered instances, loaded), leaving out
    /// the context's pending deletes when pending changes count. Only the request's
    /// `propertiesToFetch` (with what its predicate and sort use) are decoded when it lists some.
    func models(
        for rows: [(UInt64, RecordReader)], of request: FetchRequest, decoding only: Set<UInt32>?? = nil
    ) throws -> [any PersistentModel] {
        let deleted =
            request.includePendingChanges && !pending.deleted.isEmpty
            ? Set(deletedModelsArray.map(ObjectIdentifier.init)) : []
        let only = only ?? PredicatePlanner(tables: request.tables).tagsToDecode(request)
        return try self.rows.models(for: rows, tables: request.tables, decoding: only, leavingOut: deleted)
    }

    /// The property indexes of the named attributes.
    static func propertyIndexes(of names: [String], tables: Store.EntityTables) -> Set<Int> {
        Set(names.compactMap { tables.entity.attributesByName[$0]?.index })
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
        checkOwner()
        let tables = entityTables(of: T.self, for: "explain(_:)")
        let executor = FetchExecutor(FetchRequest(descriptor, tables: tables), in: self)
        let (planner, access) = (executor.planner, executor.access)
        // Whether part of the predicate is left to evaluate on the rows the access path reads.
        let evaluates = !executor.residual.isEmptyForVouchedRows
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
        if let limit = descriptor.fetchLimit, let order = planner.order(for: executor.request.sortBy, access: access) {
            let needed = max(descriptor.fetchOffset ?? 0, 0).addingClamped(max(limit, 0))
            var count = 0
            try container.store.environment.read { txn in
                try txn.scan(order.index.table, order.range) { _, _ in
                    count += 1
                    return count < needed
                }
            }
            return FetchPlan(
                accessPath: .indexOrder(
                    table: order.index.table.name, attribute: order.index.names[0], lower: bound(order.lower),
                    upper: bound(order.upper), descending: order.direction == .backward),
                evaluatesPredicate: descriptor.predicate != nil, estimatedRows: count)
        }
        return try container.store.environment.read { txn in
            switch access {
            case .fullScan:
                return FetchPlan(
                    accessPath: .fullScan, evaluatesPredicate: evaluates,
                    estimatedRows: try txn.count(of: tables.records))
            case .rows(let rows):
                var count = 0
                for row in rows where try txn.contains(EntryLayout.rowKey(row), in: tables.records) { count += 1 }
                return FetchPlan(
                    accessPath: .identifiers(table: tables.records.name, count: rows.count),
                    evaluatesPredicate: evaluates, estimatedRows: count)
            case .unique(let unique, let key):
                return FetchPlan(
                    accessPath: .uniqueKey(table: unique.table.name, attribute: unique.names.joined(separator: ",")),
                    evaluatesPredicate: evaluates, estimatedRows: try txn.contains(key, in: unique.table) ? 1 : 0)
            case .indexEquality(let index, let key):
                return FetchPlan(
                    accessPath: .indexEquality(table: index.table.name, attribute: index.names[0]),
                    evaluatesPredicate: evaluates, estimatedRows: try txn.duplicateCount(of: key, in: index.table))
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
                    evaluatesPredicate: evaluates, estimatedRows: count)
            case .compound(let keyed, let range, let equalities, let lower, let upper):
                var count = 0
                try txn.scan(keyed.table, range) { _, _ in
                    count += 1
                    return true
                }
                let described =
                    equalities.map { "\($0.attribute.name) == \($0.text)" }
                    + [lower, upper].compactMap { condition in
                        condition.flatMap { c in bound(c).map { "\(c.attribute.name) \($0)" } }
                    }
                return FetchPlan(
                    accessPath: .compoundIndex(table: keyed.table.name, attributes: keyed.names, conditions: described),
                    evaluatesPredicate: evaluates, estimatedRows: count)
            case .indexRange(let index, let range, let lower, let upper):
                var count = 0
                try txn.scan(index.table, range) { _, _ in
                    count += 1; return true
                }
                return FetchPlan(
                    accessPath: .indexRange(
                        table: index.table.name, attribute: index.names[0],
                        lower: bound(lower), upper: bound(upper)),
                    evaluatesPredicate: evaluates, estimatedRows: count)
            }
        }
    }
}

import Foundation

/// Keeps the results of one fetch current as the store changes: the engine behind ``LiveQuery``
/// and ``ModelContext/liveResults(for:)``.
///
/// Each ``update()`` reads what the commits since the last one changed from the history
/// (``ChangedRow/rows(after:store:)``), once for every query of the context that is at the same
/// commit, and:
///
/// - leaves the results alone when no row of the fetched entity (or its subclasses) changed in a
///   field the predicate or the sort reads, and no row of the results changed at all;
/// - otherwise checks only the changed rows: a deleted row leaves the results; an inserted or
///   changed one is loaded and evaluated against the predicate, and goes in or out, in its sorted
///   place (found by binary search: the rest are not compared again). Which rows can change the
///   results is the fetch's region (``FetchRegion``); the predicate is evaluated and the order
///   compared by the fetch executor's own code (``PredicateResidual``, ``FetchQuery/Precedes``);
/// - fetches again when the descriptor cannot be kept incrementally (a limit or an offset, a
///   predicate or sort that reads through a relationship) and a change reaches it, or when the
///   history cannot say what changed.
///
/// Without sort descriptors the results are in row order (the order rows were first saved).
///
/// ```swift
/// let tracker = LiveResultsTracker(FetchDescriptor<Author>(predicate: #Predicate { $0.group == 3 }), in: context)
/// if tracker.update() { render(tracker.results) }
/// ```
final class LiveResultsTracker<Model: PersistentModel> {
    /// The descriptor as given: what ``resultsWithPendingChanges()`` fetches.
    let requested: FetchDescriptor<Model>
    /// The descriptor the tracker keeps current with the store: `requested` without the
    /// context's unsaved changes.
    let descriptor: FetchDescriptor<Model>
    let context: ModelContext
    /// The current results.
    private(set) var results: [Model] = []
    /// The last fetch or check that failed; `nil` once one succeeds.
    private(set) var error: (any Error)?
    /// The commit the results are current with.
    private(set) var commit: UInt64 = 0

    /// How many times the results were fetched whole, and rows evaluated one by one: what the
    /// tests and the benchmark look at to tell an incremental update from a fetch.
    private(set) var fetches = 0
    private(set) var evaluations = 0

    /// The identifiers of ``results``.
    private var members: Set<PersistentIdentifier> = []
    /// What the fetch reads: which changed rows can change the results.
    private let region: FetchRegion
    /// The fetch's predicate as the fetch executor evaluates it on a candidate.
    private let residual: PredicateResidual
    /// The fetch executor's comparison by the sort descriptors; `nil` without any.
    private let precedes: FetchQuery.Precedes?
    /// The fetched entity's tables.
    private let tables: Store.EntityTables
    /// Whether changed rows can be checked one by one (no limit or offset, and a predicate and
    /// sort on the entity's own attributes only).
    private let isIncremental: Bool

    init(_ descriptor: FetchDescriptor<Model>, in context: ModelContext) {
        // What the store holds: the context's unsaved inserts (with temporary identifiers) would
        // come back as new rows once saved. `resultsWithPendingChanges()` adds them when read.
        requested = descriptor
        var descriptor = descriptor
        descriptor.includePendingChanges = false
        self.descriptor = descriptor
        self.context = context
        tables = context.store.entityTables(of: Model.self, for: "liveResults(for:)")
        let request = FetchRequest(descriptor, tables: tables)
        region = FetchRegion(request)
        precedes = request.precedes
        // A request the executor refuses (a .codable attribute in the predicate) fails its
        // fetch below, with the error the tracker then holds.
        residual = FetchExecutor.residual(
            of: request, planner: PredicatePlanner(tables: tables, store: context.store.internedIdentifier), in: context
        )
        isIncremental =
            !region.readsOtherEntities && descriptor.fetchLimit == nil && (descriptor.fetchOffset ?? 0) == 0
        refetch()
    }

    /// Brings the results up to the store's newest commit.
    ///
    /// - Returns: Whether they changed: a model came in, went out or moved, or a model in them
    ///   changed.
    @discardableResult
    func update() -> Bool {
        let newest = UInt64(truncatingIfNeeded: context.store.lastCommittedTransactionID)
        guard newest > commit else { return false }
        // The context's models take the commits into account first (their changed values are
        // observed), so what is evaluated below is what the store holds.
        context.refreshIfNeeded()
        let changes: (through: UInt64, rows: [ChangedRow])?
        do {
            changes = try context.liveChanges(after: commit)
        } catch {
            self.error = error
            return false
        }
        guard let changes else { return refetch() }
        let reaching = changes.rows.filter { row in
            guard region.returns(row.tables.entityName) else { return region.readsOtherEntities }
            return row.deleted || rereads(row) || members.contains(row.identifier(in: context.store.internedIdentifier))
        }
        guard !reaching.isEmpty else {
            commit = changes.through
            return false
        }
        guard isIncremental else { return refetch() }
        commit = changes.through
        var changed = false
        do {
            // Every changed row leaves first, so the rows left are in their sorted places when
            // the ones that still match go back in, each by binary search.
            var rechecked: [(Model, PersistentIdentifier, wasMember: Bool)] = []
            for row in reaching {
                let id = row.identifier(in: context.store.internedIdentifier)
                let isMember = members.contains(id)
                if row.deleted {
                    if isMember { remove(id) }
                    changed = changed || isMember
                    continue
                }
                guard rereads(row) else {
                    changed = changed || isMember  // a member whose other values changed
                    continue
                }
                if isMember { remove(id) }
                if let model = context.model(for: id) as? Model, !model.isDeleted {
                    rechecked.append((model, id, isMember))
                } else {
                    changed = changed || isMember
                }
            }
            for (model, id, wasMember) in rechecked {
                evaluations += 1
                let matches = try residual.matches(model, tables: tables, vouched: false)
                if matches { insert(model, id) }
                changed = changed || wasMember || matches
            }
            error = nil
        } catch {
            self.error = error
            return refetch() || changed
        }
        return changed
    }

    /// The results as a fetch in the context would return them now, while the context has
    /// unsaved changes and the descriptor includes them (`includePendingChanges`, as by default):
    /// the fetch executor merges them over what the store holds. `nil` otherwise, when
    /// ``results`` are that already, and when the fetch fails (``results`` stand).
    ///
    /// Without sort descriptors, the saved models keep the order of their rows and the
    /// inserted ones follow in the order they were inserted, as they will once saved.
    func resultsWithPendingChanges() -> [Model]? {
        guard requested.includePendingChanges, context.hasChanges,
            var fetched = try? context.fetch(requested)
        else { return nil }
        if requested.sortBy.isEmpty {
            fetched.sort { $0.persistentModelID.kind < $1.persistentModelID.kind }
        }
        return fetched
    }

    /// Whether `row` must be evaluated again: it is new, or changed in a field the predicate or
    /// the sort reads (or in fields the history does not name).
    private func rereads(_ row: ChangedRow) -> Bool {
        region.reads(entity: row.tables.entityName, fields: row.fields, inserted: row.inserted, unnamed: row.unnamed)
    }

    private func remove(_ id: PersistentIdentifier) {
        members.remove(id)
        if let position = results.firstIndex(where: { $0.persistentModelID == id }) { results.remove(at: position) }
    }

    /// Inserts `model` where the sort puts it (ties, and no sort at all, by row).
    private func insert(_ model: Model, _ id: PersistentIdentifier) {
        var low = 0
        var high = results.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(results[middle], model) { low = middle + 1 } else { high = middle }
        }
        results.insert(model, at: low)
        members.insert(id)
    }

    /// The fetch's order, ties (and no sort at all) by row.
    private func precedes(_ lhs: Model, _ rhs: Model) -> Bool {
        if let precedes {
            if precedes(lhs, rhs) { return true }
            if precedes(rhs, lhs) { return false }
        }
        return (lhs.persistentModelID.rowID ?? 0) < (rhs.persistentModelID.rowID ?? 0)
    }

    /// Fetches the results again; whether they differ from the last ones.
    @discardableResult
    private func refetch() -> Bool {
        let newest = UInt64(truncatingIfNeeded: context.store.readableTransactionID)
        fetches += 1
        do {
            var fetched = try context.fetch(descriptor)
            if descriptor.sortBy.isEmpty {
                // Row order, which the incremental steps keep (an index may have given another).
                fetched.sort { ($0.persistentModelID.rowID ?? 0) < ($1.persistentModelID.rowID ?? 0) }
            }
            let old = results
            results = fetched
            members = Set(fetched.map(\.persistentModelID))
            // The fetch read a snapshot at least as new as `newest`: a commit after it is read
            // again next time, which changes nothing it already shows.
            commit = newest
            error = nil
            return old.count != fetched.count || !zip(old, fetched).allSatisfy { $0 === $1 }
        } catch {
            self.error = error
            return false
        }
    }
}

extension ModelContext {
    /// What the commits after `commit` changed (see ``LiveChangeReader``).
    func liveChanges(after commit: UInt64) throws -> (through: UInt64, rows: [ChangedRow])? {
        try liveChangeReader.rows(after: commit, store: store)
    }
}

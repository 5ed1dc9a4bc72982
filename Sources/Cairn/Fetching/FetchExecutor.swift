import Foundation

/// Runs one fetch through the one pipeline every fetch-like API uses:
/// plan → candidate rows → residual predicate → identity map → models, then the context's pending
/// models, the order, the offset and the limit.
///
/// - **Plan:** ``PredicatePlanner`` picks the access path and says which parts of the predicate
///   it guarantees (``PredicateResidual``).
/// - **Candidates:** the path's rows are read with their records. A fetch that needs only its
///   first matches (a `fetchLimit` without a sort, or an indexed first sort key) reads a chunk
///   at a time and stops once it has them; any other fetch reads in one read transaction.
/// - **Residual:** only the parts of the predicate the path does not guarantee are evaluated.
/// - **Models:** each row becomes the context's registered instance or a new one, loaded from the
///   record just read.
/// - **Pending:** inserted models, and changed ones an index path cannot see under their new
///   values, are checked the same way and follow the stored matches.
///
/// A fetch that leaves the context's unsaved changes out, while it has some, runs on images of
/// the stored rows instead of the context's instances (``StoredImages``): the same plan, reads and
/// residual, with the stored values.
struct FetchExecutor {
    let context: ModelContext
    let request: FetchRequest
    let planner: PredicatePlanner
    /// What of the predicate the plan leaves to evaluate; it holds the plan.
    let residual: PredicateResidual
    /// Where the rows read become models: the context's instances, or images of the stored rows.
    let images: StoredImages?
    /// The context's models the fetch leaves out: pending deletes and what their cascades take,
    /// found once per fetch (``leftOut(by:in:)``).
    let deleted: Set<ObjectIdentifier>

    /// - Parameter images: Images to evaluate the request on instead of the context's instances;
    ///   the request must then leave pending changes out.
    /// - Throws: ``FetchError`` `opaqueAttribute` when the predicate or a sort reads a `.codable`
    ///   attribute.
    init(_ request: __owned FetchRequest, in context: ModelContext, images: StoredImages? = nil) throws(FetchError) {
        precondition(
            images == nil || !request.includePendingChanges, "FetchExecutor: images hold no pending changes")
        try request.checkOpaqueAttributes()
        let tables = request.tables
        planner = PredicatePlanner(tables: tables, store: context.store.internedIdentifier)
        residual = Self.residual(of: request, planner: planner, in: context)
        self.context = context
        self.images = images
        deleted = images == nil ? Self.leftOut(by: request, in: context) : []
        // Moved in last, after every read of it: a request read after being stored was copied.
        self.request = request
    }

    /// What of `request`'s predicate is left to evaluate once `planner`'s plan has found the
    /// candidates.
    static func residual(
        of request: borrowing FetchRequest, planner: PredicatePlanner, in context: ModelContext
    ) -> PredicateResidual {
        PredicateResidual(
            predicate: request.predicate, plan: planner.plan(for: request.predicate, cache: context.plans))
    }

    var plan: PredicatePlanner.Plan { residual.plan }
    var access: PredicatePlanner.Access { residual.plan.access }
    private var tables: Store.EntityTables { request.tables }
    /// The tables whose rows are candidates: those of the subclass the predicate asks for
    /// (`$0 is Car`), else the fetched entity's.
    private var rowTables: Store.EntityTables { plan.rowTables ?? tables }

    private var offset: Int { max(request.fetchOffset ?? 0, 0) }

    /// How many matches the result needs from the start of the order: offset plus limit.
    private var needed: Int? { request.fetchLimit.map { offset.addingClamped(max($0, 0)) } }

    /// The matches the request's results are made of, not yet sorted nor cut: sort them by the
    /// descriptor's sort descriptors, then ``page(_:)`` them. Without a sort, they are in
    /// candidate order and, with a limit, only the first ones needed.
    func matches() throws -> [any PersistentModel] {
        let decoding = planner.tagsToDecode(request)
        if let matches = try matchesInIndexOrder(decoding: decoding) { return matches }
        // Without a sort, stored matches come first in candidate order, so the first `needed` of
        // them are the first `needed` results.
        let stopAfter = request.sortBy.isEmpty ? needed : nil
        var stored: [any PersistentModel] = []
        try forEachStoredMatch(decoding: decoding, stopAfter: stopAfter) { chunk in
            if stored.isEmpty { stored = chunk } else { stored += chunk }
            return stopAfter.map { stored.count < $0 } ?? true
        }
        let pending = try pendingMatches(excluding: Set(stored.map(ObjectIdentifier.init)))
        return pending.isEmpty ? stored : stored + pending
    }

    /// The matches, unsorted and uncut, when a limit and an indexed first sort key let the fetch
    /// read in index order (see ``indexOrderedMatches(_:needed:decoding:)``); `nil` otherwise.
    func matchesInIndexOrder(decoding: Set<UInt32>?) throws -> [any PersistentModel]? {
        guard let needed, let order = planner.order(for: request.sortBy, access: access) else { return nil }
        return try indexOrderedMatches(order, needed: needed, decoding: decoding)
    }

    /// The matches after the request's offset, cut to its limit.
    func page<Element>(_ all: [Element]) -> [Element] {
        if request.fetchLimit == nil && offset == 0 { return all }
        let start = min(offset, all.count)
        let end = request.fetchLimit.map { min(start.addingClamped(max($0, 0)), all.count) } ?? all.count
        return Array(all[start..<end])
    }

    // MARK: Stored matches

    /// How many records are read before they are turned into models.
    static let decodingChunk = 512

    /// Calls `body` with the stored rows' models that match, a chunk at a time in candidate order,
    /// until it returns `false` or the candidates run out.
    ///
    /// - Parameters:
    ///   - decoding: The record-field tags to decode (`nil`: all).
    ///   - stopAfter: How many matches the caller needs at most: reading starts with a chunk about
    ///     that size and grows. `nil` reads every candidate in one read transaction.
    ///   - chunkSize: The most rows one read transaction reads, when given (batched fetches keep
    ///     their memory flat this way).
    func forEachStoredMatch(
        decoding: Set<UInt32>?, stopAfter: Int?, chunkSize: Int? = nil, _ body: ([any PersistentModel]) throws -> Bool
    ) throws {
        var reader = CandidateReader(access: access, tables: rowTables, filter: recordFilter)
        var want: Int
        if let stopAfter {
            // A path that guarantees the whole predicate matches every row it reads.
            want = residual.isEmptyForVouchedRows ? max(stopAfter, 1) : max(stopAfter * 2, 64)
        } else {
            want = .max
        }
        if let chunkSize { want = min(want, chunkSize) }
        // The context's spare batch holds the records read, and goes back to it at the end.
        var batch = context.rows.takeRecordBatch()
        defer { context.rows.keepRecordBatch(&batch) }
        while !reader.isExhausted {
            context.statistics.readTransactions += 1
            // Records become models a few hundred at a time inside the transaction, so the
            // copies of the records read are never all alive at once.
            // Whether any model read has unsaved changes, noted per chunk while its models are
            // in the cache: the residual then need not walk them all again to find out.
            var anyChanged = false
            let models = try context.store.read { txn in
                // Every chunk's models appended to one list, room for all of them made once the
                // candidates are known: a list per chunk, appended to one that grew by doubling,
                // copied each model (a retain and a release) and each list into fresh memory.
                var models: [any PersistentModel] = []
                var remaining = want
                repeat {
                    let asked = min(remaining, Self.decodingChunk)
                    remaining -= asked
                    let rows = try reader.next(asked, txn: txn, into: &batch)
                    // (Record tests keep only the few rows that match, as a rule.)
                    if models.isEmpty, reader.filter == nil, let candidates = reader.candidateCount {
                        models.reserveCapacity(min(candidates, want))
                    }
                    let start = models.count
                    try self.appendModels(for: rows, decoding: decoding, to: &models)
                    if !anyChanged && residual.predicate != nil && residual.isEmptyForVouchedRows {
                        anyChanged = models[start...].contains { $0.hasChanges }
                    }
                } while remaining > 0 && !reader.isExhausted
                return models
            }
            let matches = try residual.filter(models, tables: tables, vouched: true, noneChanged: !anyChanged)
            if !matches.isEmpty, try !body(matches) { return }
            if want < .max / 4 { want = min(want * 4, chunkSize ?? .max) }
        }
    }

    /// The plan's record tests, keeping the rows whose model in the context has unsaved changes
    /// (unless the fetch leaves those changes out); `nil` when the plan has none.
    private var recordFilter: CandidateReader.RecordFilter? {
        guard let tests = plan.recordTests else { return nil }
        guard images == nil && request.includePendingChanges && !context.pending.changed.isEmpty else {
            return CandidateReader.RecordFilter(tests: tests) { _ in false }
        }
        let (rows, tables) = (context.rows, rowTables)
        return CandidateReader.RecordFilter(tests: tests) { row in
            rows.identity.model(entity: tables.concrete(forRow: row).ordinal, row: row)?.hasChanges ?? false
        }
    }

    /// The candidates of a fetch whose first sort key has an index: rows are read in index order,
    /// a few at a time, until `needed` unchanged stored models match and the last key read is
    /// complete (so every row not read sorts after them). Changed and inserted models come from
    /// the context. The caller sorts and cuts the result.
    func indexOrderedMatches(
        _ order: PredicatePlanner.IndexOrder, needed: Int, decoding: Set<UInt32>?
    ) throws -> [any PersistentModel] {
        /// The part of a key that orders reliably: a hashed long key orders by its prefix only.
        func group(_ key: [UInt8]) -> ArraySlice<UInt8> { key.prefix(KeyBuilder.hashedPrefixLength) }
        guard needed > 0 else { return [] }
        var found: [(row: UInt64, model: any PersistentModel)] = []
        var visited = Set<UInt64>()
        var counted = 0
        var resume: [UInt8]?
        while counted < needed {
            var range = order.range
            if let resume {
                if order.direction == .forward {
                    range.lower = .inclusive(resume)
                } else {
                    range.upper = .inclusive(resume)
                }
            }
            let want = max(needed - counted, 1)
            context.statistics.readTransactions += 1
            let (entries, exhausted) = try context.store.read {
                txn -> ([(key: [UInt8], row: UInt64, reader: RecordReader?)], Bool) in
                var entries: [(key: [UInt8], row: UInt64, reader: RecordReader?)] = []
                var taken = 0
                var exhausted = true
                try txn.scanIndexedRows(order.index.table, range, direction: order.direction) { key, row in
                    // An inherited index lists the whole hierarchy's rows.
                    if visited.contains(row) || !rowTables.includes(row: row) { return true }
                    let key = Array(key)
                    if taken >= want, let last = entries.last, group(last.key) != group(key) {
                        exhausted = false
                        return false
                    }
                    // A dangling index entry (no record) is skipped.
                    let rowKey = EntryLayout.rowKey(row)
                    let reader = try txn.withValue(for: rowKey, in: tables.layout.records) {
                        try RecordReader(copying: $0, key: rowKey)
                    }
                    entries.append((key, row, reader))
                    taken += 1
                    return true
                }
                return (entries, exhausted)
            }
            let rows = entries.compactMap { entry in entry.reader.map { (entry.row, $0) } }
            visited.formUnion(entries.map(\.row))
            // The index order's range guarantees nothing of the predicate by itself: evaluate it all.
            let models = try self.models(for: rows, decoding: decoding)
            for model in try residual.filter(models, tables: tables, vouched: false) {
                found.append((model.persistentModelID.rowID!, model))
                if !model.hasChanges { counted += 1 }
            }
            guard !exhausted, let last = entries.last else { break }
            resume = last.key
        }
        let stored = found.sorted { $0.row < $1.row }.map(\.model)
        let movedBy = tables.propertyIndexes(of: order.index.names)
        guard request.includePendingChanges else { return stored }
        return stored + (try pendingMatches(excluding: Set(stored.map(ObjectIdentifier.init)), movedBy: movedBy))
    }

    /// The models of rows just read: the context's instances (registered, or new ones loaded from
    /// the records), or images of the rows.
    private func models(
        for rows: some RandomAccessCollection<(UInt64, RecordReader)>, decoding: Set<UInt32>?
    ) throws -> [any PersistentModel] {
        var models: [any PersistentModel] = []
        try appendModels(for: rows, decoding: decoding, to: &models)
        return models
    }

    /// The same, appended to `models`.
    private func appendModels(
        for rows: some RandomAccessCollection<(UInt64, RecordReader)>, decoding: Set<UInt32>?,
        to models: inout [any PersistentModel]
    ) throws {
        guard let images else {
            return try Self.appendModels(
                for: rows, of: request, in: context, decoding: decoding, leavingOut: deleted, to: &models)
        }
        try images.rows.appendModels(for: rows, tables: tables, decoding: decoding, leavingOut: [], to: &models)
    }

    /// The context's models for stored rows, registered (or the registered instances, loaded),
    /// leaving out the context's pending deletes when pending changes count. Only the request's
    /// `propertiesToFetch` (with what its predicate and sort use) are decoded when it lists some.
    static func models(
        for rows: some RandomAccessCollection<(UInt64, RecordReader)>, of request: FetchRequest,
        in context: ModelContext,
        decoding only: Set<UInt32>?? = nil
    ) throws -> [any PersistentModel] {
        var models: [any PersistentModel] = []
        try appendModels(for: rows, of: request, in: context, decoding: only, to: &models)
        return models
    }

    /// The same, appended to `models`, leaving out `deleted` (``leftOut(by:in:)`` when `nil`).
    static func appendModels(
        for rows: some RandomAccessCollection<(UInt64, RecordReader)>, of request: FetchRequest,
        in context: ModelContext, decoding only: Set<UInt32>?? = nil, leavingOut deleted: Set<ObjectIdentifier>? = nil,
        to models: inout [any PersistentModel]
    ) throws {
        let deleted = deleted ?? leftOut(by: request, in: context)
        let only = only ?? PredicatePlanner(tables: request.tables).tagsToDecode(request)
        try context.rows.appendModels(
            for: rows, tables: request.tables, decoding: only, leavingOut: deleted, to: &models)
    }

    /// The context's models a request leaves out: when pending changes count, the deleted models
    /// and those their cascades take, before the save as after it.
    static func leftOut(by request: FetchRequest, in context: ModelContext) -> Set<ObjectIdentifier> {
        request.includePendingChanges && !context.pending.deleted.isEmpty
            ? CascadedDeletes(context.deletedModelsArray, rows: context.rows).identities : []
    }

    // MARK: Pending matches

    /// The context's pending models that match and are not among the stored matches: inserted
    /// ones, and changed ones with an unsaved change to an attribute the access path keys (an
    /// index holds their stored values, not the unsaved ones). None when pending changes do not
    /// count.
    func pendingMatches(excluding stored: @autoclosure () -> Set<ObjectIdentifier>) throws -> [any PersistentModel] {
        let pending = context.pending
        // Most fetches run with nothing inserted and no keyed attribute changed: nothing to add.
        guard request.includePendingChanges, !(pending.inserted.isEmpty && pending.keyChanged.isEmpty) else {
            return []
        }
        return try pendingMatches(excluding: stored(), movedBy: pending.keyChanged.isEmpty ? [] : movedBy)
    }

    private func pendingMatches(
        excluding stored: Set<ObjectIdentifier>, movedBy: Set<Int>?
    ) throws -> [any PersistentModel] {
        var candidates: [any PersistentModel] = []
        if let movedBy, !movedBy.isEmpty {
            for model in context.keyChangedModels
            where request.isFetchedType(model) && movedBy.contains(where: model._$state.isChanged)
                && !stored.contains(ObjectIdentifier(model)) && !deleted.contains(ObjectIdentifier(model))
            {
                candidates.append(model)
            }
        }
        for model in context.insertedModelsArray
        where request.isFetchedType(model) && !deleted.contains(ObjectIdentifier(model)) {
            candidates.append(model)
        }
        return try residual.filter(candidates, tables: tables, vouched: false)
    }

    /// The property indexes whose unsaved change can make a model a candidate the access path
    /// does not read: the attributes of the unique or index table it uses. `nil` for a full scan
    /// (it reads every stored row); empty for identifier lookups (identity never changes). A
    /// changed model whose keyed attributes are unchanged sits under its stored key, so the path
    /// reads it when it can match.
    var movedBy: Set<Int>? {
        switch access {
        case .fullScan: nil
        case .rows: []
        case .unique(let keyed, _), .indexEquality(let keyed, _), .indexRange(let keyed, _, _, _),
            .oneOf(let keyed, _, _), .compound(let keyed, _, _, _, _):
            tables.propertyIndexes(of: keyed.names)
        }
    }
}

/// Reads the rows an access path selects, with their records, a chunk at a time: a full scan
/// resumes after the last row read; other paths collect their row ids in the first read
/// transaction and look the records up in order. Rows saved by others between two chunks may
/// or may not be seen; none is seen twice.
struct CandidateReader {
    let access: PredicatePlanner.Access
    let tables: Store.EntityTables
    /// What turns a row away before it is kept in the batch, when the plan has record tests.
    let filter: RecordFilter?
    private var rowIDs: [UInt64]?
    private var position = 0
    private var after: UInt64?
    private(set) var isExhausted = false

    /// How many rows a full scan's table held when the scan began (LMDB keeps the count).
    private var scanned: Int?

    /// How many candidate rows the path selects in all, once the first chunk has been read (for
    /// a full scan, the rows its table held then).
    var candidateCount: Int? { rowIDs?.count ?? scanned }

    /// The most records a scan makes room for before it reads (it may stop early, when the
    /// table has fewer rows than asked for).
    static let scanReserveLimit = 4_096

    init(access: PredicatePlanner.Access, tables: Store.EntityTables, filter: RecordFilter? = nil) {
        self.access = access
        self.tables = tables
        self.filter = filter
    }

    /// A plan's record tests (``RecordTests``), with the rows they must not turn away: those
    /// whose model in the context has unsaved changes, which the predicate is evaluated on.
    struct RecordFilter {
        let tests: RecordTests
        let keeps: (UInt64) -> Bool

        /// Whether the batch keeps the row's record, whose fields `field` reads by tag.
        func admits(_ row: UInt64, _ field: (UInt32) throws(StorageError) -> FieldPayload?) -> Bool {
            tests.admit(field) || keeps(row)
        }

        /// Appends the row's record borrowed under `key` to `batch` if the tests keep it.
        func append(
            _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, row: UInt64, to batch: inout RecordBatch
        ) throws(StorageError) {
            try batch.append(copying: value, key: key, row: row) { field in admits(row, field) }
        }
    }

    /// Empties `batch` and makes room for about `rows` records: grown once for them, not by
    /// doubling (an allocation and a copy at each); a few rows grow it as they come, as the guess
    /// of their size would.
    private static func prepare(_ batch: inout RecordBatch, for rows: Int) {
        _ = batch.empty(keepingUpTo: .max)
        if rows > 16 { batch.reserveCapacity(records: rows) }
    }

    /// At most `count` more candidate rows with their records, read into `batch` (emptied
    /// first); rows whose record is gone are left out.
    mutating func next(
        _ count: Int, txn: borrowing ReadTransaction, into batch: inout RecordBatch
    ) throws -> RecordBatch.Rows {
        let filter = filter
        var reserved = false
        try visit(count, txn: txn) { rows in
            Self.prepare(&batch, for: rows)
            reserved = true
        } _: { row, key, value in
            if let filter {
                try filter.append(value, key: key, row: row, to: &batch)
            } else {
                try batch.append(copying: value, key: key, row: row)
            }
        }
        if !reserved { Self.prepare(&batch, for: 0) }
        return batch.rowsAndReaders()
    }

    /// Calls `body` with at most `count` more candidate rows and their records as stored (valid
    /// inside `body`), in the path's order; rows whose record is gone are left out. `expecting`
    /// is told first about how many rows will come (for room).
    ///
    /// ```swift
    /// try reader.visit(.max, txn: txn) { _ in } _: { row, key, record in … }
    /// ```
    mutating func visit(
        _ count: Int, txn: borrowing ReadTransaction, expecting: (Int) -> Void,
        _ body: (UInt64, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if case .fullScan = access {
            if after == nil && scanned == nil { scanned = try txn.count(of: tables.layout.records) }
            expecting(min(count, Self.scanReserveLimit))
            var read = 0
            var last = after
            // A subclass's rows share the table with its hierarchy's other classes': only the
            // ranges of its own (and its subclasses') are read.
            for range in tables.rowRanges(after: after) where read < count {
                try txn.scan(tables.layout.records, range) { key, value in
                    let row = try EntryLayout.row(key: key, table: tables.layout.records)
                    last = row
                    try body(row, key, value)
                    read += 1
                    return read < count
                }
            }
            after = last
            isExhausted = read < count
            return
        }
        if case .unique(let unique, let key) = access {
            // At most one row: looked up and read without a list of row ids.
            isExhausted = true
            guard let row = try txn.uniqueRow(for: key, in: unique.table), tables.includes(row: row) else { return }
            expecting(1)
            return try Self.visit(CollectionOfOne(row), tables: tables, txn: txn, body)
        }
        if rowIDs == nil {
            let all = try Self.rowIDs(access, txn: txn)
            rowIDs = tables.sharesRecordsWithOtherClasses ? all.filter { tables.includes(row: $0) } : all
        }
        let all = rowIDs!
        let end = count >= all.count - position ? all.count : position + count
        expecting(end - position)
        try Self.visit(all[position..<end], tables: tables, txn: txn, body)
        position = end
        isExhausted = position == all.count
    }

    /// Calls `body` with each of `rowIDs` that has a record, and the record, in that order.
    private static func visit(
        _ rowIDs: some Collection<UInt64>, tables: Store.EntityTables, txn: borrowing ReadTransaction,
        _ body: (UInt64, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for row in rowIDs {
            // The key on the stack, so that no record read costs an allocation.
            _ = try EntryLayout.withRowKey(row) { key in
                try txn.withValue(for: key, in: tables.layout.records) { value in try body(row, key, value) }
            }
        }
    }

    /// The records of `rowIDs`, in that order; rows that are gone are left out.
    static func records(
        of rowIDs: some Collection<UInt64>, tables: Store.EntityTables, txn: borrowing ReadTransaction
    ) throws -> RecordBatch.Rows {
        var batch = RecordBatch()
        return try records(of: rowIDs, tables: tables, txn: txn, into: &batch)
    }

    /// The same, read into `batch` (emptied first).
    static func records(
        of rowIDs: some Collection<UInt64>, tables: Store.EntityTables, txn: borrowing ReadTransaction,
        into batch: inout RecordBatch
    ) throws -> RecordBatch.Rows {
        prepare(&batch, for: rowIDs.count)
        try visit(rowIDs, tables: tables, txn: txn) { row, key, value in try batch.append(copying: value, key: key, row: row) }
        return batch.rowsAndReaders()
    }

    /// The row ids an access path selects other than a full scan, each once, in the path's order.
    static func rowIDs(_ access: PredicatePlanner.Access, txn: borrowing ReadTransaction) throws -> [UInt64] {
        var rowIDs: [UInt64] = []
        switch access {
        case .fullScan:
            preconditionFailure("a full scan reads the records table, not row ids")
        case .rows(let rows):
            rowIDs = rows
        case .unique(let unique, let key):
            if let row = try txn.uniqueRow(for: key, in: unique.table) { rowIDs = [row] }
        case .indexEquality(let index, let key):
            try txn.forEachIndexedRow(for: key, in: index.table) { row in
                rowIDs.append(row)
                return true
            }
        case .indexRange(let index, let range, _, _), .compound(let index, let range, _, _, _):
            try txn.scanIndexedRows(index.table, range) { _, row in
                rowIDs.append(row)
                return true
            }
        case .oneOf(let keyed, let keys, let isUnique):
            // Distinct keys find distinct rows in a unique table. Keys that ascend (a sorted list
            // of ids; one comparison each to tell) are distinct, and no set of the rows found is
            // kept: inserting a hundred thousand rows into one missed the cache at each.
            let distinctRows = isUnique && keys.ascendStrictly(table: { _ in 0 })
            var seen = Set<UInt64>(minimumCapacity: distinctRows ? 0 : keys.count)
            rowIDs.reserveCapacity(keys.count)
            for index in 0..<keys.count {
                if isUnique {
                    if let row = try keys.withKey(index, { try txn.uniqueRow(for: $0, in: keyed.table) }),
                        distinctRows || seen.insert(row).inserted
                    {
                        rowIDs.append(row)
                    }
                } else {
                    try txn.forEachIndexedRow(for: keys[index], in: keyed.table) { row in
                        if seen.insert(row).inserted { rowIDs.append(row) }
                        return true
                    }
                }
            }
        }
        return rowIDs
    }
}

internal import CLMDB

/// What read and write transactions share: lookups, scans, duplicates, counts and cursors.
///
/// Values are handed to closures as borrowed `UnsafeRawBufferPointer`s that point into LMDB's
/// memory map; they are valid only inside the closure (and, in a write transaction, only until
/// the next write). Copy what you keep. ``get(_:in:)`` copies for you.
///
/// ```swift
/// let count = try environment.read { txn in try txn.count(of: table) }
/// ```
package protocol StorageTransaction: ~Copyable {
    /// The transaction's LMDB state.
    /// Borrowed: a read through the requirement retains nothing.
    @_borrowed var handle: TransactionHandle { get }
}

extension StorageTransaction where Self: ~Copyable {
    /// The transaction's id: for a write, the id its commit will have; for a read, the id of the
    /// last commit its snapshot includes.
    ///
    /// ```swift
    /// let commit = txn.id
    /// ```
    package var id: UInt64 { UInt64(truncatingIfNeeded: mdb_txn_id(handle.pointer)) }

    /// The value stored for `key`, copied out of the store, or `nil` if there is none.
    ///
    /// In a ``TableFlags/duplicateSort`` table this is the key's first value.
    ///
    /// ```swift
    /// let record = try txn.get(rowKey, in: table)
    /// ```
    /// - Complexity: O(log *n*) in the table's entries.
    package func get(_ key: [UInt8], in table: Table) throws(StorageError) -> [UInt8]? {
        try lookup(key, in: table).map { Array($0) }
    }

    /// Calls `body` with the bytes stored for `key`, borrowed from the store; `nil` if there are none.
    ///
    /// ```swift
    /// let length = try txn.withValue(for: key, in: table) { $0.count }
    /// ```
    /// - Complexity: O(log *n*) in the table's entries.
    package func withValue<R>(
        for key: [UInt8], in table: Table, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try lookup(key, in: table) else { return nil }
        return try body(value)
    }

    /// The same for a key held elsewhere (a row key built on the stack: no array per lookup).
    ///
    /// ```swift
    /// let length = try EntryLayout.withRowKey(row) { key in try txn.withValue(for: key, in: table) { $0.count } }
    /// ```
    package func withValue<R>(
        for key: UnsafeRawBufferPointer, in table: Table, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try lookup(key, in: table) else { return nil }
        return try body(value)
    }

    /// The stored bytes for `key`, borrowed: only for use before the transaction writes or ends.
    ///
    /// Through the table's kept cursor (see ``withCursor(on:_:)``) where it is free: a cursor
    /// that is already on the page holding `key` finds it without descending from the root again,
    /// so lookups of neighbouring keys (rows read in order, keys looked up in order) cost about
    /// half of `mdb_get`'s, which starts from the root every time.
    func lookup(_ key: [UInt8], in table: Table) throws(StorageError) -> UnsafeRawBufferPointer? {
        do {
            return try key.withUnsafeBytes { key in try lookup(key, in: table) }
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("a lookup throws only StorageError, not \(error)")
        }
    }

    /// The same for a key held elsewhere.
    func lookup(_ key: UnsafeRawBufferPointer, in table: Table) throws(StorageError) -> UnsafeRawBufferPointer? {
        // The handle once: each read of the requirement is a call and a retain.
        let handle = handle
        handle.check(table)
        let kept = try handle.takeKeptCursor(for: table.handle)
        switch kept {
        case .ready(let index):
            defer { handle.releaseKeptCursor(at: index) }
            let kept = handle.keptCursor(at: index)
            let cursor = Cursor(
                pointer: kept.pointer, position: kept.position, table: table, transaction: handle, isOwned: false)
            guard try cursor.seek(exactly: key) else { return nil }
            return table.isSealed ? handle.keepForLookup(cursor.current.value) : cursor.current.value
        case .absent:
            do {
                return try withCursor(on: table) { cursor in
                    guard try cursor.seek(exactly: key) else { return nil }
                    return table.isSealed ? handle.keepForLookup(cursor.current.value) : cursor.current.value
                }
            } catch let error as StorageError {
                throw error
            } catch {
                preconditionFailure("a cursor's seek throws only StorageError, not \(error)")
            }
        case .busy:
            break  // the caller is inside a closure on this table's kept cursor
        }
        var data = MDB_val()
        let found = try withMDBValue(key) { (keyValue) throws(StorageError) -> Bool in
            try handle.run("Reading from table '\(table)'", "mdb_get") {
                mdb_get(handle.pointer, table.handle, &keyValue, &data)
            }
        }
        guard found else { return nil }
        guard table.isSealed else { return bytes(of: data) }
        return try handle.openingForLookup(bytes(of: data), key: key, in: table)
    }

    /// Whether `key` has a value in `table`.
    ///
    /// ```swift
    /// if try txn.contains(uniqueKey, in: uniques) { … }
    /// ```
    /// - Complexity: O(log *n*) in the table's entries.
    package func contains(_ key: [UInt8], in table: Table) throws(StorageError) -> Bool {
        try lookup(key, in: table) != nil
    }

    /// Calls `body` for each entry in `range`, in key order or reverse key order, until it
    /// returns `false`.
    ///
    /// In a ``TableFlags/duplicateSort`` table each duplicate is one entry: forward scans visit a
    /// key's values in ascending order, backward scans in descending order.
    ///
    /// ```swift
    /// try txn.scan(table, .prefix(ownerKey)) { key, value in
    ///     targets.append(Array(value))
    ///     return true
    /// }
    /// ```
    /// - Parameters:
    ///   - table: The table to read.
    ///   - range: The keys to visit, compared with the table's own order.
    ///   - direction: `.forward` from the smallest key, `.backward` from the largest.
    ///   - body: Receives each key and value, borrowed; returns whether to go on.
    /// - Throws: ``StorageError``, or what `body` throws.
    /// - Complexity: O(log *n* + *k*) for *k* visited entries.
    package func scan(
        _ table: Table, _ range: KeyRange = .all, direction: ScanDirection = .forward,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(on: table) { cursor in
            // Without tolerance a cursor throws where a value is unreadable: this is never called.
            try Self.walk(cursor, range, direction, onUnreadable: { _, error in throw error }, body)
        }
    }

    /// The same, calling `onUnreadable` (with the key and why) for each value of a sealed table
    /// that does not authenticate, instead of throwing, and going on when it returns `true`: for
    /// readers that report damage row by row, as they do for a record that fails its checksum.
    ///
    /// ```swift
    /// try txn.scan(records, onUnreadable: { key, error in report(key, error); return true }) { key, value in … }
    /// ```
    package func scan(
        _ table: Table, _ range: KeyRange = .all, direction: ScanDirection = .forward,
        onUnreadable: (UnsafeRawBufferPointer, StorageError) throws -> Bool,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(on: table) { cursor in
            try cursor.toleratingUnreadableValues {
                try Self.walk(cursor, range, direction, onUnreadable: onUnreadable, body)
            }
        }
    }

    /// The loop of ``scan(_:_:direction:onUnreadable:_:)`` on a positioned cursor.
    private static func walk(
        _ cursor: borrowing Cursor, _ range: KeyRange, _ direction: ScanDirection,
        onUnreadable: (UnsafeRawBufferPointer, StorageError) throws -> Bool,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var positioned = try cursor.position(at: range, direction: direction)
        while positioned {
            let (key, value) = cursor.current
            guard try cursor.isWithin(range, key: key, direction: direction) else { return }
            if let damage = cursor.unreadable {
                guard try onUnreadable(key, damage) else { return }
            } else {
                guard try body(key, value) else { return }
            }
            positioned = try direction == .forward ? cursor.next() : cursor.previous()
        }
    }

    /// Calls `body` with each value of `key` in a ``TableFlags/duplicateSort`` table, in order,
    /// until it returns `false`.
    ///
    /// ```swift
    /// try txn.forEachDuplicate(of: yearKey, in: yearIndex) { rowID in rows.append(Array(rowID)); return true }
    /// ```
    /// - Complexity: O(log *n* + *k*) for *k* values.
    package func forEachDuplicate(
        of key: [UInt8], in table: Table, _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(on: table) { cursor in
            var positioned = try cursor.seek(exactly: key)
            while positioned {
                guard try body(cursor.current.value) else { return }
                positioned = try cursor.nextDuplicate()
            }
        }
    }

    /// Calls `body` with the values of `key` in a ``TableFlags/duplicateFixed`` table in a few
    /// large batches: each batch is the values of one page, laid end to end, all `valueSize` bytes
    /// long. Stops when `body` returns `false`.
    ///
    /// ```swift
    /// try txn.forEachBatchOfFixedDuplicates(of: key, in: edges) { batch in
    ///     ids += stride(from: 0, to: batch.count, by: 8).map { batch.load(fromByteOffset: $0, as: UInt64.self) }
    ///     return true
    /// }
    /// ```
    /// - Complexity: O(log *n* + *k*) for *k* values, with one call per page instead of per value.
    package func forEachBatchOfFixedDuplicates(
        of key: [UInt8], in table: Table, _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        precondition(
            table.flags.contains(.duplicateFixed),
            "forEachBatchOfFixedDuplicates(of:in:) needs a .duplicateFixed table; '\(table)' is not")
        try withCursor(on: table) { cursor in
            guard try cursor.seek(exactly: key) else { return }
            var batch = try cursor.multiple(MDB_GET_MULTIPLE)
            while let values = batch {
                guard try body(values) else { return }
                batch = try cursor.multiple(MDB_NEXT_MULTIPLE)
            }
        }
    }

    /// The number of values of `key` in a ``TableFlags/duplicateSort`` table (0 if absent).
    ///
    /// ```swift
    /// let books = try txn.duplicateCount(of: authorKey, in: authorBooks)
    /// ```
    /// - Complexity: O(log *n*).
    package func duplicateCount(of key: [UInt8], in table: Table) throws -> Int {
        try withCursor(on: table) { cursor in
            try cursor.seek(exactly: key) ? try cursor.duplicateCount() : 0
        }
    }

    /// The number of entries in `table` (each duplicate counts).
    ///
    /// ```swift
    /// let rows = try txn.count(of: table)
    /// ```
    /// - Complexity: O(1): LMDB keeps the count in the tree's header.
    package func count(of table: Table) throws(StorageError) -> Int {
        try statistics(of: table).entries
    }

    /// The shape of `table`'s B-tree.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).depth)
    /// ```
    /// - Complexity: O(1).
    package func statistics(of table: Table) throws(StorageError) -> TableStatistics {
        handle.check(table)
        var stat = MDB_stat()
        _ = try handle.run("Reading the statistics of table '\(table)'", "mdb_stat") {
            mdb_stat(handle.pointer, table.handle, &stat)
        }
        return TableStatistics(
            entries: stat.ms_entries, depth: Int(stat.ms_depth), branchPages: stat.ms_branch_pages,
            leafPages: stat.ms_leaf_pages, overflowPages: stat.ms_overflow_pages, pageSize: Int(stat.ms_psize))
    }

    /// Calls `body` with a cursor on `table`, closed when `body` returns.
    ///
    /// ```swift
    /// let lastKey = try txn.withCursor(on: table) { cursor in try cursor.last() ? Array(cursor.current.key) : nil }
    /// ```
    package func withCursor<R>(on table: Table, _ body: (borrowing Cursor) throws -> R) throws -> R {
        let handle = handle
        handle.check(table)
        let lookup = try handle.takeKeptCursor(for: table.handle)
        if case .ready(let index) = lookup {
            defer { handle.releaseKeptCursor(at: index) }
            let kept = handle.keptCursor(at: index)
            return try body(
                Cursor(
                    pointer: kept.pointer, position: kept.position, table: table, transaction: handle, isOwned: false)
            )
        }
        var pointer: OpaquePointer?
        _ = try handle.run("Opening a cursor on table '\(table)'", "mdb_cursor_open") {
            mdb_cursor_open(handle.pointer, table.handle, &pointer)
        }
        let position = UnsafeMutablePointer<CursorPosition>.allocate(capacity: 1)
        position.initialize(to: CursorPosition())
        // The first cursor on a table is kept for the next use; one opened while it is in use is not.
        guard case .absent = lookup else {
            return try body(
                Cursor(pointer: pointer!, position: position, table: table, transaction: handle, isOwned: true))
        }
        let index = handle.keep(pointer!, for: table.handle, position: position)
        defer { handle.releaseKeptCursor(at: index) }
        return try body(
            Cursor(pointer: pointer!, position: position, table: table, transaction: handle, isOwned: false))
    }

    /// Compares two keys in `table`'s order (`memcmp` order, or numeric for integer keys).
    ///
    /// ```swift
    /// let order = txn.compare([1], [2], in: table)   // < 0
    /// ```
    package func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, in table: Table) -> Int32 {
        let handle = handle
        handle.check(table)
        return withMDBValue(a) { a in withMDBValue(b) { b in mdb_cmp(handle.pointer, table.handle, &a, &b) } }
    }
}

// Reads of unique, index and edge entries that verify every entry they use and, when a point
// lookup finds nothing, the entries around the position where the key would be. A bit flipped in
// a stored key leaves the entry where the original key sorted (LMDB never re-sorts a page), so a
// search for the original key lands on it or just after it: checking the entry at the position
// and the one before turns that damage into a typed error instead of a silent miss. The hit path
// reads nothing extra: one checksum per entry used.

extension StorageTransaction where Self: ~Copyable {
    /// The row a unique table holds for `key`, verified, or `nil` when the key is absent (its
    /// neighbours verified).
    ///
    /// ```swift
    /// let row = try txn.uniqueRow(for: key, in: unique.table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the entry or a neighbour is damaged.
    /// - Complexity: O(log *n*).
    package func uniqueRow(for key: [UInt8], in table: Table) throws -> UInt64? {
        try key.withUnsafeBytes { key in try uniqueRow(for: key, in: table) }
    }

    /// The same for key bytes held elsewhere (a list of keys stored end to end).
    ///
    /// ```swift
    /// let row = try keys.withKey(3) { try txn.uniqueRow(for: $0, in: unique.table) }
    /// ```
    package func uniqueRow(for key: UnsafeRawBufferPointer, in table: Table) throws -> UInt64? {
        try withCursor(on: table) { cursor in
            let found = try cursor.seek(atLeast: key)
            if found {
                let (storedKey, value) = cursor.current
                if key.hasSameBytes(as: storedKey) {
                    return try EntryLayout.row(keyedValue: value, key: storedKey, table: table)
                }
            }
            try verifyNeighbours(cursor, found: found, kind: .keyed, table: table)
            return nil
        }
    }

    /// Calls `body` with each row an index (or any duplicate-keyed table of ``EntryLayout/Kind/keyed``
    /// entries) holds for `key`, in row order, each verified, until it returns `false`. When the
    /// key is absent, its neighbours are verified.
    ///
    /// ```swift
    /// try txn.forEachIndexedRow(for: key, in: index.table) { row in rows.append(row); return true }
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when an entry is damaged; what `body` throws.
    /// - Complexity: O(log *n* + *k*) for *k* rows.
    package func forEachIndexedRow(
        for key: [UInt8], in table: Table, _ body: (UInt64) throws -> Bool
    ) throws {
        try withCursor(on: table) { cursor in
            let found = try cursor.seek(atLeast: key)
            guard found, Self.bytes(key, equal: cursor.current.key) else {
                return try verifyNeighbours(cursor, found: found, kind: .keyed, table: table)
            }
            var more = true
            while more {
                let (storedKey, value) = cursor.current
                guard try body(EntryLayout.row(keyedValue: value, key: storedKey, table: table)) else { return }
                more = try cursor.nextDuplicate()
            }
        }
    }

    /// Calls `body` with each key and row of a unique or index table in `range`, each verified,
    /// until it returns `false`. The entries just outside each bound are verified too, so a key
    /// damaged out of the range is an error rather than a row left out.
    ///
    /// ```swift
    /// try txn.scanIndexedRows(index.table, range) { key, row in rows.append(row); return true }
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when an entry is damaged; what `body` throws.
    /// - Complexity: O(log *n* + *k*) for *k* visited entries.
    package func scanIndexedRows(
        _ table: Table, _ range: KeyRange, direction: ScanDirection = .forward,
        _ body: (UnsafeRawBufferPointer, UInt64) throws -> Bool
    ) throws {
        for bound in [range.lower, range.upper].compactMap({ $0 }) {
            try withCursor(on: table) { cursor in
                let found = try cursor.seek(atLeast: bound.key)
                try verifyNeighbours(cursor, found: found, kind: .keyed, table: table)
            }
        }
        let forward = direction == .forward
        // Without a bound where the scan goes, every entry it reaches is within the range.
        let bounded = (forward ? range.upper : range.lower) != nil
        try withCursor(on: table) { cursor in
            var positioned = try cursor.position(at: range, direction: direction)
            while positioned {
                let (key, value) = cursor.current
                let row = try EntryLayout.row(keyedValue: value, key: key, table: table)
                if bounded, try !cursor.isWithin(range, key: key, direction: direction) { return }
                guard try body(key, row) else { return }
                positioned = try forward ? cursor.next() : cursor.previous()
            }
        }
    }

    /// The stored edges of `owner` in an edge table, in rank order, each verified; when the
    /// owner has none, its neighbours are verified.
    ///
    /// ```swift
    /// let targets = try txn.edges(of: row, in: edgeTable).map(\.target)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when an edge is damaged.
    /// - Complexity: O(log *n* + *k*) for *k* edges.
    package func edges(of owner: UInt64, in table: Table) throws -> [EntryLayout.Edge] {
        try withCursor(on: table) { cursor in try Self.edges(of: owner, cursor: cursor, table: table) }
    }

    /// The same with a cursor the caller keeps open across owners (a prefetch's pass).
    ///
    /// ```swift
    /// try txn.withCursor(on: edgeTable) { cursor in for row in rows { edges[row] = try ReadTransaction.edges(of: row, cursor: cursor, table: edgeTable) } }
    /// ```
    package static func edges(
        of owner: UInt64, cursor: borrowing Cursor, table: Table
    ) throws -> [EntryLayout.Edge] {
        let key = EntryLayout.rowKey(owner)
        let found = try cursor.seek(atLeast: key)
        guard found, bytes(key, equal: cursor.current.key) else {
            try verifyNeighbours(cursor, found: found, kind: .edge, table: table)
            return []
        }
        // Sized once by the key's count of values, not regrown at 1, 2, 4, 8… edges.
        var edges: [EntryLayout.Edge] = []
        edges.reserveCapacity(try cursor.duplicateCount())
        var more = true
        while more {
            let (storedKey, value) = cursor.current
            edges.append(try EntryLayout.edge(value: value, ownerKey: storedKey, table: table))
            more = try cursor.nextDuplicate()
        }
        return edges
    }

    /// Whether a key is exactly the stored bytes.
    private static func bytes(_ key: [UInt8], equal stored: UnsafeRawBufferPointer) -> Bool {
        key.withUnsafeBytes { $0.hasSameBytes(as: stored) }
    }

    /// Verifies the entry a failed point lookup landed on (`found`) and the one before it.
    private func verifyNeighbours(
        _ cursor: borrowing Cursor, found: Bool, kind: EntryLayout.Kind, table: Table
    ) throws {
        try Self.verifyNeighbours(cursor, found: found, kind: kind, table: table)
    }

    private static func verifyNeighbours(
        _ cursor: borrowing Cursor, found: Bool, kind: EntryLayout.Kind, table: Table
    ) throws {
        if found {
            let (key, value) = cursor.current
            try EntryLayout.verify(key: key, value: value, kind: kind, table: table)
        }
        // After a failed seek the cursor is at no entry: the entry before the position is the last.
        guard try found ? cursor.previous() : cursor.last() else { return }
        let (key, value) = cursor.current
        try EntryLayout.verify(key: key, value: value, kind: kind, table: table)
    }
}

extension WriteTransaction {
    /// Removes the unique entry for `key` when it names `row`. An entry that names another row
    /// stays: the value was freed and claimed again by another writer since the caller read it
    /// (the row deleted or changed meanwhile).
    ///
    /// ```swift
    /// try txn.removeUniqueEntry(for: oldKey, naming: row, in: unique.table)
    /// ```
    /// - Throws: `StorageError` `.damagedRecord` when the entry or a neighbour is damaged.
    package func removeUniqueEntry(for key: [UInt8], naming row: UInt64, in table: Table) throws {
        guard try uniqueRow(for: key, in: table) == row else { return }
        try delete(key, in: table)
    }
}

extension StorageTransaction where Self: ~Copyable {
    /// An entity's next row id as `meta` stores it (1 when it has none yet).
    ///
    /// ```swift
    /// let next = try txn.nextRow(of: "Book", meta: store.meta)
    /// ```
    ///
    /// - Throws: `StorageError` `.damagedRecord` when the counter's entry is damaged.
    func nextRow(of entity: String, meta: Table) throws -> UInt64 {
        let key = StoreLayout.rowCounterKey(entity)
        return try get(key, in: meta).map { try EntryLayout.counter($0, key: key, table: meta) } ?? 1
    }
}

internal import CLMDB

/// Where a cursor is: the entry its last successful move landed on (pointers into the map, `nil`
/// when it is on none), and how its seeks fared at stepping forward from there (see
/// `Cursor.stepForward(to:)`). Kept with a table's kept cursor from one use to the next.
struct CursorPosition {
    var key = MDB_val()
    var value = MDB_val()
    /// How many seeks in a row stepped in vain, roughly: doubled at each miss, up to 64.
    var missedSteps = 0
    /// How many seeks search at once before one tries stepping again.
    var searchesBeforeStepping = 0
    /// Where a sealed table's value is opened (see `Cursor.openCurrentValue`), and its bytes and
    /// size, read without touching the buffer object (a retain and a release per value).
    var plaintext: ValueBuffer?
    var plaintextBytes: UnsafeMutableRawPointer?
    var plaintextCapacity = 0
    /// Whether a sealed value that does not authenticate is handed out as ``unreadable`` (an
    /// empty value beside it) instead of thrown: for scans that report damage row by row.
    var toleratesUnreadable = false
    /// Why the value the cursor is on could not be opened, when it tolerates that.
    var unreadable: StorageError?
    /// Whether moves leave a sealed value as stored, unopened (see `Cursor.seekToReplace`).
    var leavesValueSealed = false

    /// On no entry (a failed move, or a new transaction); what it learnt about stepping stays.
    mutating func forget() { (key, value) = (MDB_val(), MDB_val()) }
}

/// A position in one table, inside one transaction's closure.
///
/// Get one from ``StorageTransaction/withCursor(on:_:)``. Moves return `false` when there is no
/// such entry; ``current`` borrows the entry's bytes from the store.
///
/// ```swift
/// try txn.withCursor(on: table) { cursor in
///     var more = try cursor.first()
///     while more {
///         print(Array(cursor.current.key))
///         more = try cursor.next()
///     }
/// }
/// ```
package struct Cursor: ~Copyable {
    private let pointer: OpaquePointer
    private let table: Table
    private let transaction: TransactionHandle
    // The entry the last successful move landed on; pointers into the map.
    private let position: UnsafeMutablePointer<CursorPosition>

    /// Whether this value closes the cursor when it goes; a kept cursor stays with its
    /// transaction (see ``TransactionHandle/KeptCursor``).
    private let isOwned: Bool

    init(
        pointer: OpaquePointer, position: UnsafeMutablePointer<CursorPosition>, table: Table,
        transaction: TransactionHandle, isOwned: Bool
    ) {
        self.pointer = pointer
        self.table = table
        self.transaction = transaction
        self.position = position
        self.isOwned = isOwned
    }

    deinit {
        if isOwned {
            mdb_cursor_close(pointer)
            position.deinitialize(count: 1)
            position.deallocate()
        }
    }

    /// The key and value at the cursor, borrowed from the store. Valid after a move returned
    /// `true`, until the next move or write.
    ///
    /// ```swift
    /// let (key, value) = cursor.current
    /// ```
    package var current: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        (bytes(of: position.pointee.key), bytes(of: position.pointee.value))
    }

    /// Moves to the first entry. - Complexity: O(log *n*).
    ///
    /// ```swift
    /// if try cursor.first() { … }
    /// ```
    package func first() throws(StorageError) -> Bool { try move(MDB_FIRST) }
    /// Moves to the last entry (a duplicate table's last value of its last key). - Complexity: O(log *n*).
    ///
    /// ```swift
    /// if try cursor.last() { … }
    /// ```
    package func last() throws(StorageError) -> Bool { try move(MDB_LAST) }
    /// Moves to the next entry (the next duplicate, or the next key). - Complexity: amortised O(1).
    ///
    /// ```swift
    /// while try cursor.next() { … }
    /// ```
    package func next() throws(StorageError) -> Bool { try move(MDB_NEXT) }
    /// Moves to the previous entry. - Complexity: amortised O(1).
    ///
    /// ```swift
    /// while try cursor.previous() { … }
    /// ```
    package func previous() throws(StorageError) -> Bool { try move(MDB_PREV) }
    /// Moves to the first value of the next key, skipping the current key's other values.
    ///
    /// ```swift
    /// while try cursor.nextKey() { distinctKeys += 1 }
    /// ```
    package func nextKey() throws(StorageError) -> Bool { try move(MDB_NEXT_NODUP) }
    /// Moves to the last value of the previous key.
    ///
    /// ```swift
    /// while try cursor.previousKey() { … }
    /// ```
    package func previousKey() throws(StorageError) -> Bool { try move(MDB_PREV_NODUP) }
    /// Moves to the current key's next value; `false` after its last.
    ///
    /// ```swift
    /// while try cursor.nextDuplicate() { … }
    /// ```
    package func nextDuplicate() throws(StorageError) -> Bool { try move(MDB_NEXT_DUP) }
    /// Moves to the current key's previous value; `false` before its first.
    ///
    /// ```swift
    /// while try cursor.previousDuplicate() { … }
    /// ```
    package func previousDuplicate() throws(StorageError) -> Bool { try move(MDB_PREV_DUP) }
    /// Moves to the current key's first value.
    ///
    /// ```swift
    /// _ = try cursor.firstDuplicate()
    /// ```
    package func firstDuplicate() throws(StorageError) -> Bool { try move(MDB_FIRST_DUP) }
    /// Moves to the current key's last value.
    ///
    /// ```swift
    /// _ = try cursor.lastDuplicate()
    /// ```
    package func lastDuplicate() throws(StorageError) -> Bool { try move(MDB_LAST_DUP) }

    /// Moves to `key`'s first value; `false` if the key is absent. - Complexity: O(log *n*).
    ///
    /// ```swift
    /// if try cursor.seek(exactly: key) { … }
    /// ```
    package func seek(exactly key: [UInt8]) throws(StorageError) -> Bool {
        try withMDBValue(key) { (key) throws(StorageError) -> Bool in try seek(exactlyValue: key) }
    }

    /// The same for key bytes held elsewhere (a key built on the stack).
    ///
    /// ```swift
    /// let found = try EntryLayout.withRowKey(row) { try cursor.seek(exactly: $0) }
    /// ```
    package func seek(exactly key: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        try withMDBValue(key) { (key) throws(StorageError) -> Bool in try seek(exactlyValue: key) }
    }

    /// Moves to `key` exactly, to replace its value (``replaceCurrentValue(with:key:)``) without
    /// reading it: a sealed table's value is not opened, and `current.value` holds its stored
    /// bytes until the next move.
    ///
    /// ```swift
    /// if try cursor.seekToReplace(exactly: key) { try cursor.replaceCurrentValue(with: record, key: key) }
    /// ```
    package func seekToReplace(exactly key: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        position.pointee.leavesValueSealed = true
        defer { position.pointee.leavesValueSealed = false }
        return try seek(exactly: key)
    }

    private func seek(exactlyValue key: MDB_val) throws(StorageError) -> Bool {
        if let stepped = try stepForward(to: key) {
            var wanted = key
            guard stepped, mdb_cmp(transaction.pointer, table.handle, &position.pointee.key, &wanted) == 0 else {
                position.pointee.forget()
                return false
            }
            return true
        }
        position.pointee.key = key
        return try move(MDB_SET_KEY)
    }

    /// At most how many entries a seek steps over from the cursor's entry before it searches the
    /// tree instead.
    private static let stepsBeforeSearch = 4

    /// Steps forward from the cursor's entry to the first entry whose key is at least `key`, when
    /// the cursor is on an entry below `key` in a transaction that has written nothing (so the
    /// entry it was left on is still where it was) and such an entry is at most
    /// ``stepsBeforeSearch`` entries on: keys looked up in ascending order (rows, identifiers, a
    /// captured list of ids) then cost a step each, where a search descends the tree from its
    /// root, a cache miss per level in a large store. Returns whether it found one (`false`: the
    /// table ends first), or `nil` when it did not step far enough: the caller searches, as it
    /// would have.
    ///
    /// Keys that ascend far apart (each author's books) would step in vain every time: after a
    /// seek that stepped in vain, the next ones search at once, for twice as many seeks each time
    /// (up to 64) until a step lands again.
    private func stepForward(to key: MDB_val) throws(StorageError) -> Bool? {
        guard !transaction.hasWrites, position.pointee.key.mv_data != nil else { return nil }
        if position.pointee.searchesBeforeStepping > 0 {
            position.pointee.searchesBeforeStepping -= 1
            return nil
        }
        var wanted = key
        guard mdb_cmp(transaction.pointer, table.handle, &position.pointee.key, &wanted) < 0 else { return nil }
        for _ in 0..<Self.stepsBeforeSearch {
            guard try move(MDB_NEXT) else { return false }
            if mdb_cmp(transaction.pointer, table.handle, &position.pointee.key, &wanted) >= 0 {
                position.pointee.missedSteps = 0
                return true
            }
        }
        let missed = min(position.pointee.missedSteps * 2 + 1, 64)
        (position.pointee.missedSteps, position.pointee.searchesBeforeStepping) = (missed, missed)
        return nil
    }

    /// Moves to the first entry whose key is at least `key`. - Complexity: O(log *n*).
    ///
    /// ```swift
    /// if try cursor.seek(atLeast: lowerBound) { … }
    /// ```
    package func seek(atLeast key: [UInt8]) throws(StorageError) -> Bool {
        try withMDBValue(key) { (key) throws(StorageError) -> Bool in try seek(atLeastValue: key) }
    }

    /// The same for key bytes held elsewhere (a list of keys stored end to end).
    ///
    /// ```swift
    /// let found = try keys.withKey(3) { try cursor.seek(atLeast: $0) }
    /// ```
    package func seek(atLeast key: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        try withMDBValue(key) { (key) throws(StorageError) -> Bool in try seek(atLeastValue: key) }
    }

    private func seek(atLeastValue key: MDB_val) throws(StorageError) -> Bool {
        if let stepped = try stepForward(to: key) { return stepped }
        position.pointee.key = key
        return try move(MDB_SET_RANGE)
    }

    /// Moves to the entry with exactly this key and value (a duplicate table). - Complexity: O(log *n*).
    ///
    /// ```swift
    /// if try cursor.seek(key: owner, value: target) { … }
    /// ```
    package func seek(key: [UInt8], value: [UInt8]) throws(StorageError) -> Bool {
        let found = try withMDBValues(key, value) { (key, value) throws(StorageError) -> Bool in
            (position.pointee.key, position.pointee.value) = (key, value)
            return try move(MDB_GET_BOTH)
        }
        // MDB_GET_BOTH leaves `current` pointing at the caller's bytes, which are gone now:
        // point it into the store again.
        guard found else { return false }
        return try move(MDB_GET_CURRENT)
    }

    /// Writes `value` in place of the value at the cursor, whose key is `key` (a table without
    /// duplicate keys, in a write transaction): no second search, where a put looks the key up
    /// again. The cursor stays on the entry; `current` is stale until the next move.
    ///
    /// ```swift
    /// if try cursor.seek(exactly: key) { try cursor.replaceCurrentValue(with: newValue, key: key) }
    /// ```
    package func replaceCurrentValue(
        with value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer
    ) throws(StorageError) {
        // The caller's key, not the cursor's: LMDB may move the entry while it writes, and the
        // cursor's key points into the page.
        try transaction.storing(value, key: key, in: table) { (value) throws(StorageError) -> Void in
            try withMDBValue(key) { (key) throws(StorageError) -> Void in
                try withMDBValue(value) { (data) throws(StorageError) -> Void in
                    try transaction.checkUsable("Writing to table '\(table)'")
                    transaction.markWriting()
                    _ = try transaction.run("Writing to table '\(table)'", "mdb_cursor_put") {
                        mdb_cursor_put(pointer, &key, &data, UInt32(MDB_CURRENT))
                    }
                }
            }
        }
    }

    /// The number of values of the current key (a duplicate table).
    ///
    /// ```swift
    /// let values = try cursor.duplicateCount()
    /// ```
    package func duplicateCount() throws(StorageError) -> Int {
        var count = 0
        _ = try transaction.run("Counting the values of a key in table '\(table)'", "mdb_cursor_count") {
            mdb_cursor_count(pointer, &count)
        }
        return count
    }

    /// A page of fixed-size values of the current key (`MDB_GET_MULTIPLE`/`MDB_NEXT_MULTIPLE`).
    func multiple(_ operation: MDB_cursor_op) throws(StorageError) -> UnsafeRawBufferPointer? {
        try move(operation) ? bytes(of: position.pointee.value) : nil
    }

    /// Positions the cursor on the first entry of `range` in `direction`.
    package func position(at range: KeyRange, direction: ScanDirection) throws(StorageError) -> Bool {
        let duplicates = table.flags.contains(.duplicateSort)
        switch direction {
        case .forward:
            guard let lower = range.lower else { return try first() }
            guard try seek(atLeast: lower.key) else { return false }
            if !lower.isInclusive, compareCurrentKey(with: lower.key) == 0 {
                return try duplicates ? nextKey() : next()
            }
            return true
        case .backward:
            guard let upper = range.upper else { return try last() }
            guard try seek(atLeast: upper.key) else { return try last() }
            if upper.isInclusive, compareCurrentKey(with: upper.key) == 0 {
                return try duplicates ? lastDuplicate() : true
            }
            // The cursor is past the range: step back to the previous key's last value.
            return try previous()
        }
    }

    /// Whether `key` (just landed on) is still inside `range`, walking in `direction`.
    package func isWithin(
        _ range: KeyRange, key: UnsafeRawBufferPointer, direction: ScanDirection
    ) throws(StorageError) -> Bool {
        let bound = direction == .forward ? range.upper : range.lower
        guard let bound else { return true }
        let order = bound.key.withUnsafeBytes { boundKey in
            withMDBValue(key) { key in
                withMDBValue(boundKey) { boundKey in
                    mdb_cmp(transaction.pointer, table.handle, &key, &boundKey)
                }
            }
        }
        let beyond = direction == .forward ? order > 0 : order < 0
        return !(beyond || (order == 0 && !bound.isInclusive))
    }

    private func compareCurrentKey(with key: [UInt8]) -> Int32 {
        withMDBValue(key) { key in mdb_cmp(transaction.pointer, table.handle, &position.pointee.key, &key) }
    }

    private func move(_ operation: MDB_cursor_op) throws(StorageError) -> Bool {
        let found = try transaction.run("Moving a cursor in table '\(table)'", "mdb_cursor_get") {
            mdb_cursor_get(pointer, &position.pointee.key, &position.pointee.value, operation)
        }
        // A failed seek leaves the key pointing at the caller's bytes: never hand those out.
        if !found { position.pointee.forget() }
        if table.isSealed {
            position.pointee.unreadable = nil
            if found && !position.pointee.leavesValueSealed { try openCurrentValue() }
        }
        return found
    }

    /// Why the value at the cursor could not be opened (a sealed value that does not
    /// authenticate), when ``toleratingUnreadableValues(_:)`` asked for it: `current.value` is
    /// empty then. `nil` otherwise.
    ///
    /// ```swift
    /// if let damage = cursor.unreadable { report(cursor.current.key, damage) }
    /// ```
    package var unreadable: StorageError? { position.pointee.unreadable }

    /// Runs `body` with moves that land on an unreadable sealed value succeeding, the value
    /// empty and ``unreadable`` saying why, instead of throwing: a scan then goes on past it.
    ///
    /// ```swift
    /// try cursor.toleratingUnreadableValues { try cursor.next() }
    /// ```
    package func toleratingUnreadableValues<R>(_ body: () throws -> R) rethrows -> R {
        let previous = position.pointee.toleratesUnreadable
        position.pointee.toleratesUnreadable = true
        defer { position.pointee.toleratesUnreadable = previous }
        return try body()
    }

    /// Replaces the sealed value the cursor landed on with its plaintext, opened into the
    /// position's own buffer: what `current` hands out until the next move.
    private func openCurrentValue() throws(StorageError) {
        let stored = bytes(of: position.pointee.value)
        let size = ValueCipher.openedSize(of: stored) ?? 0
        if position.pointee.plaintextBytes == nil || position.pointee.plaintextCapacity < size {
            let buffer = position.pointee.plaintext ?? ValueBuffer()
            position.pointee.plaintext = buffer
            let room = buffer.reserve(max(size, 256))
            (position.pointee.plaintextBytes, position.pointee.plaintextCapacity) = (room.baseAddress, room.count)
        }
        do {
            let plaintext = try transaction.opening(
                stored, key: bytes(of: position.pointee.key), in: table,
                into: UnsafeMutableRawBufferPointer(
                    start: position.pointee.plaintextBytes, count: position.pointee.plaintextCapacity))
            position.pointee.value = MDB_val(mv_size: plaintext.count, mv_data: UnsafeMutableRawPointer(mutating: plaintext.baseAddress))
        } catch {
            guard position.pointee.toleratesUnreadable else {
                position.pointee.forget()
                throw error
            }
            position.pointee.value = MDB_val()
            position.pointee.unreadable = error
        }
    }
}

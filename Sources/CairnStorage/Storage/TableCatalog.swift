/// A store's named tables: opening each (once: the handle is cached by the environment's
/// state), their names, and the flags each was created with. Its own type, not part of
/// ``LMDBEnvironment``, which keeps transactions and the map; the environment's `openTable` and
/// `tableNames` reach it.
///
/// ```swift
/// let catalog = TableCatalog(environment: environment)
/// let people = try catalog.open("e/Person", create: true)!
/// ```
package struct TableCatalog {
    let environment: LMDBEnvironment

    /// The catalogue of `environment`'s store.
    ///
    /// ```swift
    /// let catalog = TableCatalog(environment: environment)
    /// ```
    package init(environment: LMDBEnvironment) { self.environment = environment }

    /// The named table `name`, opened once and cached; `nil` if it does not exist and `create`
    /// is `false`.
    ///
    /// Opening runs its own short transaction, so call it before, not inside, a transaction's
    /// closure. Opening an existing table with other flags than it was created with is an error.
    ///
    /// ```swift
    /// let index = try catalog.open("i/Book/year", flags: [.duplicateSort, .duplicateFixed], create: true)!
    /// ```
    /// - Throws: ``StorageError`` (`.tooManyTables`, `.readOnly`, `.other` for mismatched flags).
    package func open(_ name: String, flags: TableFlags = [], create: Bool = false) throws(StorageError) -> Table? {
        try environment.checkProcess()
        precondition(
            ThreadTransactionDepth.current == 0,
            "LMDBEnvironment.openTable(_:flags:create:) was called inside a transaction's closure; open tables first")
        if let table = environment.state.cachedTable(name) {
            guard table.flags == flags else { throw mismatchedFlags(table, flags) }
            return table
        }
        if create && environment.configuration.isReadOnly {
            throw StorageError(
                code: .readOnly,
                message:
                    "Table '\(name)' does not exist and the store is read-only. Open the store writable once to create it.",
                path: environment.path)
        }
        // Table handles are opened under the writer lock: LMDB allows one mdb_dbi_open at a time.
        environment.state.writerLock.lock()
        defer { environment.state.writerLock.unlock() }
        if let table = environment.state.cachedTable(name) {
            guard table.flags == flags else { throw mismatchedFlags(table, flags) }
            return table
        }
        let table: Table?
        do throws(LMDBError) {
            table = try environment.retryingMapChanges { () throws(LMDBError) in
                try environment.state.openTableInOwnTransaction(
                    name, flags: flags, create: create, readOnly: environment.configuration.isReadOnly)
            }
        } catch LMDBError.incompatible {
            throw StorageError(
                code: .other,
                message: "Table '\(name)' exists with other flags than \(flags.rawValue) (see TableFlags). "
                    + "Open it with the flags it was created with.",
                path: environment.path)
        } catch {
            throw error.storageError(operation: "Opening table '\(name)'", path: environment.path)
        }
        return table
    }

    private func mismatchedFlags(_ table: Table, _ flags: TableFlags) -> StorageError {
        StorageError(
            code: .other,
            message: "Table '\(table.name)' is open with flags \(table.flags.rawValue), not \(flags.rawValue). "
                + "Open it with the flags it was created with.",
            path: environment.path)
    }

    /// The names of every named table in the store, in byte order.
    ///
    /// ```swift
    /// for name in try catalog.names() { print(name) }
    /// ```
    /// - Complexity: O(*t*) in the number of tables.
    package func names() throws -> [String] {
        try environment.read { txn in
            var names: [String] = []
            try txn.scan(environment.state.mainTable) { key, _ in
                // Keys starting with a zero byte are Cairn's own (CommitMarker), not tables.
                if key.first != 0 { names.append(String(decoding: key, as: UTF8.self)) }
                return true
            }
            return names
        }
    }

    /// The flags a named table was created with, read from its record in the main table.
    package func storedFlags(of name: String) throws -> TableFlags {
        try environment.read { txn in
            // mdb_dbi_flags needs an open handle; read the flags from the MDB_db record instead:
            // md_flags is the 16-bit field at offset 4 of the 48-byte record.
            let record = try txn.get(Array(name.utf8), in: environment.state.mainTable)
            guard let record, record.count >= 6 else {
                throw StorageError(
                    code: .damaged,
                    message: "Table '\(name)' has no valid record in the store's catalogue: the store is damaged. "
                        + "Restore it from a backup.",
                    path: environment.path)
            }
            let flags = UInt32(record[4]) | UInt32(record[5]) << 8
            return TableFlags(
                rawValue: flags
                    & (TableFlags.duplicateSort.rawValue | TableFlags.duplicateFixed.rawValue
                        | TableFlags.integerKey.rawValue | TableFlags.integerDuplicates.rawValue))
        }
    }
}

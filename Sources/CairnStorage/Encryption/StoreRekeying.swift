/// Rewrites a store under another data key: encrypting a plaintext store, decrypting an
/// encrypted one, or rotating an encrypted store's data key (and changing its secret at once,
/// if asked).
///
/// The store is copied table by table into a new store beside it, created with the new secret
/// (so with a new random data key, or none): every value is read through the old cipher and
/// written through the new one, keys and order unchanged, and the copy leaves out free pages as
/// a compaction does. The copy's data file then replaces the store's with one `rename`
/// (``StoreCompaction/replaceDataFile(_:with:)``): a crash or an I/O error at any moment leaves
/// the old store or the new one, whole, and the store must not be open anywhere meanwhile.
///
/// ```swift
/// var configuration = StorageConfiguration(path: path)
/// configuration.sealedTables = sealed
/// try StoreRekeying.rewrite(configuration, to: .passphrase(passphrase))   // encrypts it
/// ```
package enum StoreRekeying {
    /// Entries copied per write transaction by default: small enough for LMDB's dirty-page limit.
    package static let entriesPerTransaction = 20_000

    /// Rewrites the store `configuration` names (opened with its current secret,
    /// `configuration.encryption`) under `secret`: `nil` decrypts it.
    ///
    /// ```swift
    /// try StoreRekeying.rewrite(configuration, to: nil)   // decrypts it
    /// ```
    /// - Parameters:
    ///   - configuration: The store, with its current secret and its sealed tables.
    ///   - secret: The secret to rewrite it under; `nil` for plaintext.
    ///   - entriesPerTransaction: How many entries each write of the copy holds (at least all
    ///     the values of one key).
    ///   - leavingOut: The tables not to copy: derived tables the new data key makes wrong (the
    ///     store's owner fills them again when it next opens the store).
    /// - Returns: The sizes before and after.
    /// - Throws: ``StorageError`` as opening the store does (`.wrongEncryptionKey`, …), `.inUse`
    ///   when it is open in this or another process, or what writing the copy meets.
    @discardableResult
    package static func rewrite(
        _ configuration: StorageConfiguration, to secret: StoreEncryption?,
        entriesPerTransaction: Int = entriesPerTransaction, leavingOut: (String) -> Bool = { _ in false }
    ) throws -> StoreCompaction.Outcome {
        try StoreCompaction.replaceDataFile(configuration) { source, copy in
            var target = configuration
            target.path = copy
            target.encryption = secret
            // The copy is flushed as a whole before it replaces anything (below): syncing each of
            // its transactions would protect nothing more.
            target.durability = .unsynced
            let copied: UInt64
            do {
                let destination = try LMDBEnvironment.create(target)
                if let secret, let generation = try source.dataKeyGeneration() {
                    try destination.changeSecret(to: secret, generation: generation &+ 1)
                }
                copied = try copyTables(
                    from: source, to: destination, chunk: entriesPerTransaction, leavingOut: leavingOut)
            }
            try StoreFiles.sync(StoreFiles.dataFile(in: copy))
            try StoreFiles.sync(copy)
            return copied
        }
    }

    /// Copies every table's entries, with its flags, but those `leavingOut` names, and returns
    /// the commit it copied.
    private static func copyTables(
        from source: LMDBEnvironment, to destination: LMDBEnvironment, chunk size: Int,
        leavingOut: (String) -> Bool
    ) throws -> UInt64 {
        let catalog = TableCatalog(environment: source)
        var commit: UInt64?
        for name in try source.tableNames() where !leavingOut(name) {
            let flags = try catalog.storedFlags(of: name)
            guard let from = try source.openTable(name, flags: flags),
                let to = try destination.openTable(name, flags: flags, create: true)
            else { continue }
            var after: [UInt8]?
            repeat {
                let (entries, seen) = try source.read { txn in
                    (try chunk(of: from, after: after, size: size, txn), txn.id)
                }
                // Nothing else may write the store while it is copied (see replaceDataFile).
                guard commit == nil || commit == seen else { throw changedWhileCopying(source.path) }
                commit = seen
                try destination.write { txn in
                    let options: PutOptions = flags.contains(.duplicateSort) ? .appendDuplicate : .append
                    for (key, value) in entries { try txn.put(value, for: key, in: to, options: options) }
                }
                after = entries.count < size ? nil : entries.last?.key
            } while after != nil
        }
        return try commit ?? source.read { txn in txn.id }
    }

    /// The entries after the key `after` (from the first without one), at least `size` of them
    /// when there are, ending with all the values of their last key.
    private static func chunk(
        of table: Table, after: [UInt8]?, size: Int, _ txn: borrowing ReadTransaction
    ) throws -> [(key: [UInt8], value: [UInt8])] {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try txn.scan(table, KeyRange(from: after.map { .exclusive($0) })) { key, value in
            if entries.count >= size && !key.elementsEqual(entries[entries.count - 1].key) {
                return false
            }
            entries.append((Array(key), Array(value)))
            return true
        }
        return entries
    }

    private static func changedWhileCopying(_ path: String) -> StorageError {
        StorageError(
            code: .inUse,
            message: "The store changed while it was being copied; nothing was replaced. Run this again when no "
                + "other process or container uses it.",
            path: path)
    }
}

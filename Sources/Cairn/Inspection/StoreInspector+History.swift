import Foundation

/// One transaction of a store's history as `cairn history` lists it.
package struct InspectedTransaction: Encodable, Sendable {
    /// What happened to some rows of one entity.
    package struct Change: Encodable, Sendable {
        /// `insert`, `update`, `delete`, or `relationships` (only edges were rewritten).
        package var kind: String
        package var entity: String
        /// The changed models' identifiers ("Book/42").
        package var ids: [String]
        /// For updates, the attributes and relationships that changed, when the entry names them.
        package var fields: [String]?
    }

    /// The transaction's token: its commit, which later transactions' exceed.
    package var token: UInt64
    package var timestamp: Date?
    package var author: String?
    package var processIdentifier: UInt64?
    package var bundleIdentifier: String?
    package var changes: [Change]
    /// Set when the entry cannot be read (its checksum failed); then nothing else is.
    package var damaged: Bool = false
}

extension StoreInspector {
    /// Calls `body` with each transaction of the store's history after `token` (all when `nil`),
    /// oldest first, read in one read transaction.
    ///
    /// ```swift
    /// try inspector.transactions(after: 41) { transaction in print(transaction.token); return true }
    /// ```
    /// - Parameters:
    ///   - token: Only transactions with a larger token.
    ///   - body: Called with each; returns `false` to stop.
    /// - Throws: `StorageError` `.notFound` when the history after `token` was deleted (the
    ///   transactions after it can no longer all be listed); what reading the store throws.
    package func transactions(after token: UInt64?, _ body: (InspectedTransaction) throws -> Bool) throws {
        guard tableNames.contains(StoreLayout.historyTable) else { return }
        let history = try table(StoreLayout.historyTable)
        try environment.read { txn in
            if let token, try !ChangeLog.keepsEntries(after: token, meta: meta, txn: txn) {
                let floor = try ChangeLog.floor(meta: meta, txn: txn)
                throw StorageError(
                    code: .notFound,
                    message: "The history after transaction \(token) was deleted; the oldest transaction kept follows "
                        + "\(floor &- 1). List the history without --since, or from a later token.",
                    path: path)
            }
            let range = token.map { KeyRange(from: .exclusive(EntryLayout.historyKey(commit: $0))) } ?? .all
            try ChangeLog.scan(history, range, txn: txn) { stored in
                switch stored {
                case .entry(let commit, let entry): return try body(transaction(commit, entry))
                case .damagedEntry(let commit): return try body(InspectedTransaction(token: commit, changes: [], damaged: true))
                case .damagedKey(let error): throw error
                }
            }
        }
    }

    private func transaction(_ commit: UInt64, _ entry: EntryLayout.HistoryEntry) -> InspectedTransaction {
        var changes: [InspectedTransaction.Change] = []
        for group in entry.groups {
            let names = entry.fieldNames[group.entity] ?? []
            let fields = group.fieldPositions.compactMap { $0 < names.count ? names[$0] : nil }
            // A hierarchy's rows are recorded under its table's entity: each under its own class.
            var byClass: [(String, [String])] = []
            for row in group.rows {
                let id = identifier(group.entity, row)
                if byClass.last?.0 == id.entityName {
                    byClass[byClass.count - 1].1.append("\(id)")
                } else {
                    byClass.append((id.entityName, ["\(id)"]))
                }
            }
            for (entity, ids) in byClass {
                changes.append(
                    InspectedTransaction.Change(
                        kind: Self.name(of: group.kind),
                        entity: entity, ids: ids, fields: fields.isEmpty ? nil : fields))
            }
        }
        return InspectedTransaction(
            token: commit,
            timestamp: entry.timestamp == 0 ? nil : Date(timeIntervalSince1970: Double(entry.timestamp) / 1_000_000),
            author: entry.author, processIdentifier: entry.process?.identifier,
            bundleIdentifier: entry.process?.bundle, changes: changes)
    }

    /// How `cairn history` names a group's kind.
    private static func name(of kind: UInt8) -> String {
        switch ChangeLog.Kind(rawValue: kind) {
        case .inserted: "insert"
        case .updated: "update"
        case .deleted: "delete"
        case .edges: "relationships"
        case nil: "kind \(kind)"
        }
    }
}

import Foundation

/// What `cairn inspect` reports: the store's format and schema, its entities with their
/// attributes, relationships, constraints, indexes and row counts, its files, its history and
/// the processes reading it.
///
/// ```swift
/// let summary = try StoreInspector(path: path).summary()
/// print(summary.entities.map { "\($0.name): \($0.rows)" })
/// ```
package struct StoreSummary: Encodable, Sendable {
    package struct Attribute: Encodable, Sendable {
        package var name: String
        package var type: String
        /// The record field that holds it.
        package var tag: UInt32
    }

    package struct Relationship: Encodable, Sendable {
        package var name: String
        package var destination: String
        package var toMany: Bool
        package var inverse: String?
        package var deleteRule: String?
        package var edges: Int
    }

    package struct KeyedTable: Encodable, Sendable {
        package var attributes: [String]
        package var entries: Int
        /// The attributes keyed by their keyed hash (an encrypted store's sensitive ones).
        package var hashed: [String] = []
    }

    /// A full-text index (`@Attribute(.spotlight)`): its blocks of postings and the bytes of
    /// the pages they fill.
    package struct TextIndex: Encodable, Sendable {
        package var attribute: String
        package var blocks: Int
        package var bytes: Int
        /// Whether its terms are keyed hashes (an encrypted store's).
        package var hashed: Bool
    }

    /// A vector index (`@Attribute(.vector(…))`): its vectors and the bytes of the pages they
    /// and their graph's links fill.
    package struct VectorIndex: Encodable, Sendable {
        package var attribute: String
        package var vectors: Int
        package var bytes: Int
    }

    package struct Entity: Encodable, Sendable {
        package var name: String
        package var superentity: String?
        package var rows: Int
        package var attributes: [Attribute]
        package var relationships: [Relationship]
        package var uniqueConstraints: [KeyedTable]
        package var indexes: [KeyedTable]
        package var textIndexes: [TextIndex] = []
        package var vectorIndexes: [VectorIndex] = []
    }

    package struct Files: Encodable, Sendable {
        package var dataFileBytes: Int
        package var mapBytes: Int
        package var pageSize: Int
        package var pagesUsed: Int
        /// Pages inside the file that later writes reuse (`cairn compact` returns them).
        package var freePages: Int
    }

    package struct History: Encodable, Sendable {
        package var transactions: Int
        /// The oldest and newest transaction's token (commit), if any.
        package var first: UInt64?
        package var last: UInt64?
        /// Transactions below this were deleted (`deleteHistory`); 0 when none were.
        package var floor: UInt64
    }

    package struct Reader: Encodable, Sendable {
        package var processIdentifier: Int32
        /// The commit the reader's snapshot holds, or `nil` when the slot is idle (a process keeps
        /// idle slots for its next reads).
        package var transaction: UInt64?
    }

    package var path: String
    package var formatVersion: Int
    package var storeIdentifier: String
    package var schemaVersion: String?
    /// The newest commit.
    package var lastCommit: UInt64
    package var entities: [Entity]
    package var files: Files
    package var history: History
    /// The reader slots of other processes with the store open.
    package var readers: [Reader]
}

extension StoreInspector {
    /// Reads the store's summary, in one read transaction for the counts.
    ///
    /// - Complexity: O(*e*) in the store's entities and tables; O(*n*) in the rows of a table a
    ///   hierarchy of models shares (their classes are counted row by row).
    package func summary() throws -> StoreSummary {
        let info = environment.info
        var summary = StoreSummary(
            path: path, formatVersion: formatVersion, storeIdentifier: storeIdentifier, schemaVersion: schemaVersion,
            lastCommit: UInt64(info.lastTransactionID), entities: [],
            files: StoreSummary.Files(
                dataFileBytes: environment.dataFileSize ?? 0, mapBytes: info.mapSize, pageSize: info.pageSize,
                pagesUsed: info.lastPage + 1, freePages: try environment.freePages()),
            history: StoreSummary.History(transactions: 0, floor: 0),
            // This process's own slot (the summary's read) is not another reader.
            readers: try environment.readerSlots().filter { $0.processIdentifier != getpid() }.map {
                StoreSummary.Reader(processIdentifier: $0.processIdentifier, transaction: $0.transactionID)
            })
        let history = tableNames.contains(StoreLayout.historyTable) ? try table(StoreLayout.historyTable) : nil
        let tables = try Dictionary(uniqueKeysWithValues: tableNames.map { ($0, try table($0)) })
        let sharedRoots = Set(entityNames.filter { catalog.sharesTable($0) }.map { catalog.root(of: $0) })
        // Entries per table, and the rows of each class of each shared records table, in one snapshot.
        var entries: [String: Int] = [:]
        var bytes: [String: Int] = [:]
        var classRows: [String: [Int: Int]] = [:]
        try environment.read { txn in
            for (name, table) in tables {
                let statistics = try txn.statistics(of: table)
                entries[name] = statistics.entries
                let pages = statistics.branchPages + statistics.leafPages + statistics.overflowPages
                bytes[name] = pages * statistics.pageSize
            }
            for root in sharedRoots {
                var counts: [Int: Int] = [:]
                // A missing table (a damaged name) has no rows to count; verify reports it.
                guard let records = tables[StoreLayout.recordsTable(of: root)] else { continue }
                try txn.scan(records) { key, _ in
                    // A damaged key counts for no class; verify reports it.
                    if let row = try? EntryLayout.row(key: key, table: records) {
                        counts[Store.EntityTables.classNumber(ofRow: row), default: 0] += 1
                    }
                    return true
                }
                classRows[root] = counts
            }
            if let history {
                (summary.history.first, summary.history.last) = try ChangeLog.commitRange(of: history, txn: txn)
            }
            summary.history.floor = try ChangeLog.floor(meta: meta, txn: txn)
        }
        summary.history.transactions = entries[StoreLayout.historyTable] ?? 0
        for name in entityNames {
            let description = descriptions[name]!
            let rows =
                catalog.sharesTable(name) ? classRows[catalog.root(of: name)]?[catalog.classNumber(of: name)] ?? 0 : entries[StoreLayout.recordsTable(of: name)] ?? 0
            func keyed(_ kind: StoreLayout.KeyTableKind) -> [StoreSummary.KeyedTable] {
                catalog.keyedTables(of: name, kind).map {
                    StoreSummary.KeyedTable(
                        attributes: $0.attributes, entries: entries[$0.name] ?? 0, hashed: $0.hashed.sorted())
                }
            }
            summary.entities.append(
                StoreSummary.Entity(
                    name: name, superentity: description.superentity, rows: rows,
                    attributes: description.attributes.map {
                        StoreSummary.Attribute(name: $0.name, type: $0.type, tag: $0.tag)
                    },
                    relationships: description.relationships.map { relationship in
                        StoreSummary.Relationship(
                            name: relationship.name, destination: relationship.destination,
                            toMany: relationship.isToMany, inverse: relationship.inverse,
                            deleteRule: relationship.deleteRule,
                            edges: catalog.edgeTableName(of: relationship, entity: name).flatMap { entries[$0] } ?? 0)
                    },
                    uniqueConstraints: keyed(.unique), indexes: keyed(.index),
                    textIndexes: textIndexes(of: name, entries: entries, bytes: bytes),
                    vectorIndexes: vectorIndexes(of: name, entries: entries, bytes: bytes)))
        }
        return summary
    }

    /// The full-text indexes `entity` declares, with their blocks and the bytes of their pages.
    private func textIndexes(of entity: String, entries: [String: Int], bytes: [String: Int]) -> [StoreSummary.TextIndex] {
        StoreLayout.textTables(of: entity, among: tableNames).map { table in
            let attribute = String(table.split(separator: "/").last ?? "")
            let hashed = attribute.first == StoreLayout.hashedMarker
            return StoreSummary.TextIndex(
                attribute: hashed ? String(attribute.dropFirst()) : attribute, blocks: entries[table] ?? 0,
                bytes: bytes[table] ?? 0, hashed: hashed)
        }
    }

    /// The vector indexes `entity` declares, with their vectors (a node and its links each, and
    /// the header) and the bytes of their pages.
    private func vectorIndexes(
        of entity: String, entries: [String: Int], bytes: [String: Int]
    ) -> [StoreSummary.VectorIndex] {
        StoreLayout.vectorTables(of: entity, among: tableNames).map { table in
            // The header entry, then a node and a links entry per vector.
            StoreSummary.VectorIndex(
                attribute: String(table.split(separator: "/").last ?? ""),
                vectors: max((entries[table] ?? 0) - 1, 0) / 2, bytes: bytes[table] ?? 0)
        }
    }
}

import Foundation

/// What ``ModelContext/upsert(_:chunkSize:)`` did: which rows it inserted, which it updated, and
/// which it left unchanged because they already held the given values.
///
/// ```swift
/// let report = try context.upsert(authors)
/// print(report.insertedCount, report.updatedCount, report.unchangedCount)
/// let newIDs = report.inserted
/// ```
///
/// Rows are kept as runs of consecutive row ids, so a report of a million new rows (which get
/// consecutive ids) takes a few bytes, and memory stays flat however long the input is; the
/// identifier arrays are made when asked for.
public struct UpsertReport: Sendable {
    /// The entity the models belong to.
    ///
    /// ```swift
    /// report.entityName   // "Author"
    /// ```
    public let entityName: String
    let storeIdentifier: String
    var insertedRows = RowRuns()
    var updatedRows = RowRuns()
    var unchangedRows = RowRuns()
    /// For an upsert of models of several classes of a hierarchy: each class's entity name by
    /// its class number (the top bits of its rows' ids); empty otherwise.
    var entityNamesByClass: [Int: String] = [:]

    /// How many models were new and inserted.
    ///
    /// ```swift
    /// print(report.insertedCount)
    /// ```
    public var insertedCount: Int { insertedRows.count }
    /// How many stored models took new values.
    ///
    /// ```swift
    /// print(report.updatedCount)
    /// ```
    public var updatedCount: Int { updatedRows.count }
    /// How many stored models already held the given values; nothing was written for them.
    ///
    /// ```swift
    /// print(report.unchangedCount)
    /// ```
    public var unchangedCount: Int { unchangedRows.count }

    /// The identifiers of the inserted models, in input order.
    ///
    /// ```swift
    /// for id in report.inserted { print(id) }
    /// ```
    public var inserted: [PersistentIdentifier] { identifiers(insertedRows) }
    /// The identifiers of the updated models, in input order.
    ///
    /// ```swift
    /// for id in report.updated { print(id) }
    /// ```
    public var updated: [PersistentIdentifier] { identifiers(updatedRows) }
    /// The identifiers of the models left unchanged, in input order.
    ///
    /// ```swift
    /// for id in report.unchanged { print(id) }
    /// ```
    public var unchanged: [PersistentIdentifier] { identifiers(unchangedRows) }

    private func identifiers(_ rows: RowRuns) -> [PersistentIdentifier] {
        rows.map { row in
            let entity =
                entityNamesByClass.isEmpty
                ? entityName : entityNamesByClass[Store.EntityTables.classNumber(ofRow: row)] ?? entityName
            return PersistentIdentifier(entityName: entity, storeIdentifier: storeIdentifier, rowID: row)
        }
    }
}

import Foundation

/// How a fetch finds its candidates, as ``ModelContext/explain(_:)`` reports it.
///
/// The planner looks at the predicate's conditions on attributes joined by `&&`: equalities on the
/// attributes of a uniqueness constraint or on an index's leading attributes, a captured list
/// (`ids.contains($0.id)`), or a range (`<`, `<=`, `>`, `>=`) on an indexed attribute, let it read
/// only the matching rows instead of every row; a `fetchLimit` with an indexed first sort key
/// reads in index order and stops early, and so does a `fetchLimit` without a sort. The parts of
/// the predicate the access path does not guarantee (a range, a condition on an attribute without
/// an index) are then evaluated on each candidate; an exact lookup (identifiers, a unique key,
/// index keys, or a captured list of them) needs no evaluation on the rows it finds.
///
/// ```swift
/// let plan = try context.explain(FetchDescriptor<Book>(predicate: #Predicate { $0.year >= 1900 }))
/// print(plan)   // "index range on i/Book/year (year >= 1900), about 120 rows, then the predicate on each candidate"
/// ```
public struct FetchPlan: Sendable, CustomStringConvertible {
    /// Where the candidates come from.
    ///
    /// ```swift
    /// if case .fullScan = plan.accessPath { … }
    /// ```
    public enum AccessPath: Sendable, Hashable {
        /// Every row of the entity is read.
        case fullScan
        /// The rows of the identifiers the predicate names (`$0.persistentModelID == id` or
        /// `ids.contains($0.persistentModelID)`), looked up in the entity's table.
        case identifiers(table: String, count: Int)
        /// One lookup in a uniqueness constraint's table.
        case uniqueKey(table: String, attribute: String)
        /// The rows under one key of an index.
        case indexEquality(table: String, attribute: String)
        /// Lookups of several keys in a unique or index table (`values.contains($0.attribute)`).
        case keyList(table: String, attribute: String, count: Int)
        /// The rows in a range of an index's keys; the bounds as text, such as `>= 1900`.
        case indexRange(table: String, attribute: String, lower: String?, upper: String?)
        /// The rows in a range of a compound (several-attribute) unique or index table: equalities
        /// on its leading attributes, then optionally a range on the next, as text such as
        /// `["lastName == Hardy", "firstName >= T"]`.
        case compoundIndex(table: String, attributes: [String], conditions: [String])
        /// The rows of an index (within optional bounds) in the order of the descriptor's first
        /// sort key, read until its `fetchLimit` (after `fetchOffset`) is certain, so only about
        /// that many rows are read when most match.
        case indexOrder(table: String, attribute: String, lower: String?, upper: String?, descending: Bool)
    }

    /// Where the candidates come from.
    ///
    /// ```swift
    /// plan.accessPath   // .indexRange(table: "i/Book/year", …)
    /// ```
    public let accessPath: AccessPath
    /// Whether part of the predicate is left to evaluate on each candidate: `false` when there is
    /// no predicate, or when the access path finds exactly the rows that satisfy it (identifiers,
    /// a unique key, index keys or a captured list of them, joined by `&&`).
    ///
    /// ```swift
    /// plan.evaluatesPredicate   // false for #Predicate { $0.isbn == isbn } on a unique isbn
    /// ```
    public let evaluatesPredicate: Bool
    /// How many stored rows the access path reads, estimated from the tables.
    ///
    /// ```swift
    /// plan.estimatedRows   // 120
    /// ```
    public let estimatedRows: Int
    /// The class whose rows (with its subclasses') are the only candidates, when they are fewer
    /// than the fetched entity's: the fetched model is a subclass, whose rows share a table with
    /// its hierarchy, or the predicate asks for one (`$0 is Car`). `nil` otherwise.
    ///
    /// ```swift
    /// try context.explain(FetchDescriptor<Vehicle>(predicate: #Predicate { $0 is Car })).rowsOf   // "Car"
    /// ```
    public let rowsOf: String?
    /// What the fetch asks that a table cannot give, and so is done on each candidate instead: in
    /// an encrypted store, the unique and index tables of an attribute marked
    /// ``Schema/Attribute/Option/allowsCloudEncryption`` hold keyed hashes of its values, which
    /// find equal values but keep no order, so a range on it or a sort by it cannot use them.
    /// Empty when there is nothing to say.
    ///
    /// ```swift
    /// let plan = try context.explain(FetchDescriptor<Patient>(predicate: #Predicate { $0.email > "m" }))
    /// print(plan.notes)   // ["u/Patient/#email holds keyed hashes of email, …"]
    /// ```
    public let notes: [String]

    init(
        accessPath: AccessPath, evaluatesPredicate: Bool, estimatedRows: Int, rowsOf: String? = nil,
        notes: [String] = []
    ) {
        self.accessPath = accessPath
        self.evaluatesPredicate = evaluatesPredicate
        self.estimatedRows = estimatedRows
        self.rowsOf = rowsOf
        self.notes = notes
    }

    /// The plan in one line.
    ///
    /// ```swift
    /// print(plan)
    /// ```
    public var description: String {
        let access: String
        switch accessPath {
        case .fullScan: access = "full scan"
        case .identifiers(let table, let count): access = "\(count) identifier lookups on \(table)"
        case .uniqueKey(let table, let attribute): access = "unique key on \(table) (\(attribute) ==)"
        case .indexEquality(let table, let attribute): access = "index equality on \(table) (\(attribute) ==)"
        case .keyList(let table, let attribute, let count):
            access = "\(count) key lookups on \(table) (\(attribute) in a list)"
        case .indexRange(let table, let attribute, let lower, let upper):
            access =
                "index range on \(table) (\(attribute) " + [lower, upper].compactMap { $0 }.joined(separator: ", ")
                + ")"
        case .compoundIndex(let table, _, let conditions):
            access = "compound index range on \(table) (\(conditions.joined(separator: ", ")))"
        case .indexOrder(let table, let attribute, let lower, let upper, let descending):
            let bounds = [lower, upper].compactMap { $0 }
            access =
                "index order on \(table) (\(attribute)\(descending ? " descending" : "")"
                + (bounds.isEmpty ? "" : " " + bounds.joined(separator: ", ")) + ") until the limit"
        }
        return access + (rowsOf.map { " of \($0) rows" } ?? "") + ", about \(estimatedRows) rows"
            + (evaluatesPredicate ? ", then the predicate on each candidate" : "")
            + notes.map { "; " + $0 }.joined()
    }
}

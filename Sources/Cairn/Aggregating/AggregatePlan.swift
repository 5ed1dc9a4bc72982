import Foundation

/// How ``ModelContext/aggregate(_:computing:)`` computes its values, as
/// ``ModelContext/explain(_:computing:)`` reports it.
///
/// ```swift
/// let plan = try context.explain(FetchDescriptor<Book>(), groupedBy: \.genre, computing: .count)
/// print(plan)   // "counts per key of i/Book/genre, reading no record"
/// ```
public struct AggregatePlan: Sendable, CustomStringConvertible {
    /// Where the values come from.
    ///
    /// ```swift
    /// if case .models(let reason) = plan.method { print(reason) }
    /// ```
    public enum Method: Sendable, Hashable {
        /// A count without a predicate: the entity table's row count.
        case rowCount(table: String)
        /// Minimums and maximums (and counts) without a predicate: the first or last entries of
        /// an index on each attribute, whose rows' records are read.
        case indexEnds(tables: [String])
        /// Counts per group without a predicate: the runs of equal keys of an index on the
        /// grouping attribute, one record read per group for its key.
        case indexGroups(table: String)
        /// Without a predicate, the entries of an index whose keys hold every attribute the
        /// grouping and the aggregates read: no record is read (but for a key cut short by
        /// its length, whose row's record is).
        case indexEntries(table: String)
        /// The candidate rows' records, as the fetch plan finds them: the named fields of each,
        /// read without making a model. Models with unsaved changes count by their unsaved values.
        case records(fields: [String])
        /// The models the descriptor matches, each key path read of each; `reason` says why the
        /// records were not enough.
        case models(reason: String)
    }

    /// Where the values come from.
    ///
    /// ```swift
    /// plan.method   // .records(fields: ["genre", "pages"])
    /// ```
    public let method: Method
    /// How the candidate rows are found when records or models are read; `nil` for a method that
    /// reads an index or a count only.
    ///
    /// ```swift
    /// plan.fetchPlan?.accessPath   // .indexRange(table: "i/Book/year", …)
    /// ```
    public let fetchPlan: FetchPlan?

    /// The plan in one line.
    ///
    /// ```swift
    /// print(plan)
    /// ```
    public var description: String {
        let method: String
        switch self.method {
        case .rowCount(let table): method = "the row count of \(table), reading no record"
        case .indexEnds(let tables): method = "the ends of \(tables.joined(separator: ", ")), reading a record at each"
        case .indexGroups(let table): method = "counts per key of \(table), reading no record but one per group"
        case .indexEntries(let table): method = "the entries of \(table), whose keys hold every value, reading no record"
        case .records(let fields):
            method = "fields \(fields.joined(separator: ", ")) of each candidate's record, making no model"
        case .models(let reason): method = "each matching model (\(reason))"
        }
        return method + (fetchPlan.map { "; candidates: \($0)" } ?? "")
    }
}

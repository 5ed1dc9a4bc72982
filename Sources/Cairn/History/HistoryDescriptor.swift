import Foundation

/// Which history transactions to fetch or delete, and in what order, as SwiftData's
/// `HistoryDescriptor`.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken && $0.author != "sync" }
/// let transactions = try context.fetchHistory(descriptor)
/// ```
///
/// A condition on the token (`$0.token > t`, `>=`, `<`, `<=`, `==`, alone or joined with `&&`)
/// bounds the range of the history read; the rest of the predicate is evaluated on each
/// transaction in the range.
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// The transactions to include; `nil` for all.
    ///
    /// ```swift
    /// descriptor.predicate = #Predicate { $0.timestamp > yesterday }
    /// ```
    public var predicate: Predicate<TransactionType>?
    /// The most transactions to return; 0 for no limit. Taken after sorting.
    ///
    /// ```swift
    /// descriptor.fetchLimit = 100
    /// ```
    public var fetchLimit: UInt64
    /// The order of the transactions; empty for commit order (oldest first).
    ///
    /// ```swift
    /// descriptor.sortBy = [SortDescriptor(\.timestamp, order: .reverse)]
    /// ```
    public var sortBy: [SortDescriptor<TransactionType>]

    /// A descriptor of the transactions `predicate` accepts, in commit order.
    ///
    /// ```swift
    /// let all = HistoryDescriptor<DefaultHistoryTransaction>()
    /// ```
    /// - Parameter predicate: The transactions to include; `nil` for all.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.init(predicate: predicate, sortBy: [])
    }

    /// A descriptor of the transactions `predicate` accepts, in the order `sortBy` gives.
    ///
    /// ```swift
    /// let newestFirst = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.timestamp, order: .reverse)])
    /// ```
    /// - Parameters:
    ///   - predicate: The transactions to include; `nil` for all.
    ///   - sortBy: The order; empty for commit order.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = 0
    }
}

extension HistoryDescriptor: Sendable {}

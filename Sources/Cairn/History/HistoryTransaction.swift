import Foundation

/// One transaction of a store's history: what one save committed, as SwiftData's
/// `HistoryTransaction`.
///
/// ```swift
/// func process<T: HistoryTransaction>(_ transactions: [T]) {
///     for transaction in transactions { print(transaction.author ?? "-", transaction.changes.count) }
/// }
/// ```
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's position in the history.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// When the transaction was committed.
    ///
    /// ```swift
    /// transaction.timestamp < .now
    /// ```
    var timestamp: Date { get }
    /// The models the transaction inserted, updated and deleted.
    ///
    /// ```swift
    /// for change in transaction.changes { print(change.changedPersistentIdentifier) }
    /// ```
    var changes: [HistoryChange] { get }
    /// The transaction's position in the history.
    ///
    /// ```swift
    /// lastToken = transaction.token
    /// ```
    var token: TokenType { get }
    /// The transaction's identifier in its store.
    ///
    /// ```swift
    /// print(transaction.transactionIdentifier)
    /// ```
    var transactionIdentifier: TransactionIdentifier { get }
    /// The identifier of the store the transaction was committed to.
    ///
    /// ```swift
    /// transaction.storeIdentifier == container.storeIdentifier
    /// ```
    var storeIdentifier: String { get }
    /// The ``ModelContext/author`` of the context that saved, if it had one.
    ///
    /// ```swift
    /// if transaction.author == "widget" { … }
    /// ```
    var author: String? { get }
}

/// A transaction of a Cairn store's history: one save, from any context of any process, with
/// the models it inserted, updated and deleted (``HistoryChange``).
///
/// ```swift
/// let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
/// for transaction in transactions {
///     for change in transaction.changes {
///         switch change {
///         case .insert(let insert as DefaultHistoryInsert<Book>): print("new", insert.changedPersistentIdentifier)
///         case .update(let update as DefaultHistoryUpdate<Book>): print(update.updatedAttributes)
///         case .delete(let delete as DefaultHistoryDelete<Book>): print(delete.tombstone[\.title] ?? "")
///         default: break
///         }
///     }
/// }
/// ```
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// A transaction's identifier: its commit id in the store.
    public typealias TransactionIdentifier = Int64
    /// A transaction's position in the history.
    public typealias TokenType = DefaultHistoryToken

    /// The transaction's identifier (``transactionIdentifier``).
    ///
    /// ```swift
    /// let byID = Dictionary(uniqueKeysWithValues: transactions.map { ($0.id, $0) })
    /// ```
    public var id: Int64 { transactionIdentifier }
    /// When the transaction was committed (to the microsecond).
    ///
    /// ```swift
    /// let recent = transactions.filter { $0.timestamp > .now.addingTimeInterval(-3600) }
    /// ```
    public let timestamp: Date
    /// The models the transaction inserted, updated and deleted, one change per model: a model
    /// inserted and then related in the same save is an insert; a model whose relationships
    /// another model's change rewrote (an inverse) is an update of those relationships.
    /// Models of entities the schema no longer has are left out.
    ///
    /// ```swift
    /// let deleted = transaction.changes.filter { if case .delete = $0 { true } else { false } }
    /// ```
    public let changes: [HistoryChange]
    /// The transaction's position in the history: keep it to fetch what came after.
    ///
    /// ```swift
    /// descriptor.predicate = #Predicate { $0.token > token }
    /// ```
    public let token: DefaultHistoryToken
    /// The transaction's commit id in its store: ascending in commit order.
    ///
    /// ```swift
    /// transactions.map(\.transactionIdentifier)   // [41, 42, 45]
    /// ```
    public let transactionIdentifier: Int64
    /// The identifier of the store (``ModelContainer/storeIdentifier``).
    ///
    /// ```swift
    /// transaction.storeIdentifier == container.storeIdentifier
    /// ```
    public let storeIdentifier: String
    /// The bundle identifier of the app that saved (its process name where it has none).
    ///
    /// ```swift
    /// if transaction.bundleIdentifier == "com.example.widget" { … }
    /// ```
    public let bundleIdentifier: String
    /// The process identifier of the process that saved, as text.
    ///
    /// ```swift
    /// let mine = transaction.processIdentifier == String(ProcessInfo.processInfo.processIdentifier)
    /// ```
    public let processIdentifier: String
    /// The ``ModelContext/author`` of the context that saved, if it had one.
    ///
    /// ```swift
    /// let fromWidget = transactions.filter { $0.author == "widget" }
    /// ```
    public let author: String?

    init(
        timestamp: Date, changes: [HistoryChange], token: DefaultHistoryToken, storeIdentifier: String,
        bundleIdentifier: String, processIdentifier: String, author: String?
    ) {
        self.timestamp = timestamp
        self.changes = changes
        self.token = token
        self.transactionIdentifier = Int64(truncatingIfNeeded: token.transaction)
        self.storeIdentifier = storeIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.author = author
    }

    /// Whether the two are the same transaction of the same store.
    ///
    /// ```swift
    /// transactions[0] == transactions[0]   // true
    /// ```
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.token == rhs.token
    }

    /// Hashes the transaction's store and identifier.
    ///
    /// ```swift
    /// let seen: Set<DefaultHistoryTransaction> = Set(transactions)
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
    }
}

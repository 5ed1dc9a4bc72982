import Foundation

/// The token of a transaction in a Cairn store's history (``DefaultHistoryTransaction/token``):
/// the store and the transaction's commit, a position in the store's change log. (Declared with
/// the change log, below the history, so that a save can name the generation it made:
/// ``ModelContext/NotificationKey/queryGeneration``.)
///
/// Tokens of one store order as their transactions were committed, in every context and
/// process. Keep the last one you processed and fetch the transactions after it:
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// if let token = lastToken {
///     descriptor.predicate = #Predicate { $0.token > token }
/// }
/// let transactions = try context.fetchHistory(descriptor)
/// lastToken = transactions.last?.token ?? lastToken
/// ```
///
/// A token survives reopening the store. Once the history up to a token is deleted
/// (``ModelContext/deleteHistory(_:)``), a fetch of the transactions after it throws
/// ``SwiftDataError/historyTokenExpired``: start again from a fresh fetch.
public struct DefaultHistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The transaction identifier by store identifier.
    public typealias TokenType = [String: Int64]

    /// The identifier of the store the token belongs to (``ModelContainer/storeIdentifier``).
    ///
    /// ```swift
    /// token.storeIdentifier == container.storeIdentifier
    /// ```
    public let storeIdentifier: String
    /// The transaction's commit id in the store.
    let transaction: UInt64

    init(storeIdentifier: String, transaction: UInt64) {
        self.storeIdentifier = storeIdentifier
        self.transaction = transaction
    }

    /// The transaction identifier, as an `Int`.
    ///
    /// ```swift
    /// print(token.id)   // 42
    /// ```
    public var id: Int { Int(truncatingIfNeeded: transaction) }

    /// The transaction identifier by store identifier: `[storeIdentifier: transactionIdentifier]`.
    ///
    /// ```swift
    /// token.tokenValue?[container.storeIdentifier]   // 42
    /// ```
    public var tokenValue: [String: Int64]? { [storeIdentifier: Int64(truncatingIfNeeded: transaction)] }

    /// Whether `lhs` comes before `rhs`: by transaction, then (for tokens of different stores,
    /// which do not order) by store identifier.
    ///
    /// ```swift
    /// transactions[0].token < transactions[1].token   // true
    /// ```
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        (lhs.transaction, lhs.storeIdentifier) < (rhs.transaction, rhs.storeIdentifier)
    }

    /// Encodes the token as its ``tokenValue``, a one-entry dictionary.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(token)   // {"6F9619FF-…":42}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode([storeIdentifier: Int64(truncatingIfNeeded: transaction)])
    }

    /// Decodes a token encoded by ``encode(to:)``.
    ///
    /// ```swift
    /// let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
    /// ```
    /// - Throws: `DecodingError.dataCorrupted` unless the value is a one-entry dictionary whose
    ///   transaction identifier is not negative.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode([String: Int64].self)
        guard value.count == 1, let (store, transaction) = value.first, transaction >= 0 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "A DefaultHistoryToken is one store identifier with a transaction identifier of 0 or more; "
                        + "this value has \(value.count) entries. Use a token encoded from a transaction's token."))
        }
        self.init(storeIdentifier: store, transaction: UInt64(transaction))
    }
}

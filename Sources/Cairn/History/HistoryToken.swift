import Foundation

/// A position in a store's history, as SwiftData's `HistoryToken`: comparable, so "the
/// transactions after this one" is a predicate, and codable, so an app can keep it between runs.
///
/// ```swift
/// let data = try JSONEncoder().encode(transactions.last!.token)
/// let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
/// ```
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The token's value as it is encoded.
    associatedtype TokenType: Codable, Hashable, Sendable

    /// The token's value: for ``DefaultHistoryToken``, the transaction identifier by store
    /// identifier.
    ///
    /// ```swift
    /// token.tokenValue   // ["6F9619FF-…": 42]
    /// ```
    var tokenValue: TokenType? { get }
}

// The change log declares the token (a position in it); the history makes it a `HistoryToken`.
extension DefaultHistoryToken: HistoryToken {}

import Foundation

/// A history request that cannot be answered, named as SwiftData names it so that code written
/// for SwiftData catches it unchanged.
///
/// ```swift
/// do {
///     let transactions = try context.fetchHistory(descriptor)
/// } catch SwiftDataError.historyTokenExpired {
///     lastToken = nil   // the history after it was deleted: start again from a full fetch
/// }
/// ```
///
/// Cairn throws it only from ``ModelContext/fetchHistory(_:)`` and
/// ``ModelContext/deleteHistory(_:)``; saves, fetches and schemas have their own errors
/// (``SaveError``, ``FetchError``, ``SchemaError``). Two errors are equal when their codes are.
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    private let code: String
    /// What failed and how to fix it.
    ///
    /// ```swift
    /// print(error.message)
    /// ```
    public let message: String

    private init(_ code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The history the token points into was deleted (``ModelContext/deleteHistory(_:)``, or the
    /// store was erased or replaced): the transactions after it cannot all be listed. Discard the
    /// token and start again from a fetch without one.
    ///
    /// ```swift
    /// catch SwiftDataError.historyTokenExpired { lastToken = nil }
    /// ```
    public static let historyTokenExpired = SwiftDataError(
        "historyTokenExpired",
        message: "The history after this token was deleted. Discard the token and fetch the history without one.")

    /// The history request is not one the store can answer: its predicate threw, or its token
    /// belongs to another store.
    ///
    /// ```swift
    /// catch SwiftDataError.invalidTransactionFetchRequest { … }
    /// ```
    public static let invalidTransactionFetchRequest = SwiftDataError(
        "invalidTransactionFetchRequest", message: "The history request cannot be answered.")

    /// This error with a message that says what failed here.
    func with(message: String) -> SwiftDataError { SwiftDataError(code, message: message) }

    /// Whether the two have the same code.
    ///
    /// ```swift
    /// error == .historyTokenExpired
    /// ```
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    ///
    /// ```swift
    /// let codes: Set<SwiftDataError> = [.historyTokenExpired]
    /// ```
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Whether `error` is a ``SwiftDataError`` with `pattern`'s code: what `catch
    /// SwiftDataError.historyTokenExpired` matches with.
    ///
    /// ```swift
    /// if case SwiftDataError.historyTokenExpired = error { … }
    /// ```
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        (error as? SwiftDataError) == pattern
    }

    /// The code and the message.
    ///
    /// ```swift
    /// print(error)   // "SwiftDataError.historyTokenExpired: The history after …"
    /// ```
    public var description: String { "SwiftDataError.\(code): \(message)" }
}

import Foundation

/// The identity of a stored model: which store, which entity, which row. Safe to pass between
/// threads and actors, to hash, and to encode.
///
/// A model inserted into a context has a temporary identifier until its first successful save,
/// when it gets a permanent one, as in SwiftData.
///
/// ```swift
/// let id = book.persistentModelID
/// let sameBook = otherContext.model(for: id) as? Book
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The name of the model's entity.
    ///
    /// ```swift
    /// id.entityName   // "Book"
    /// ```
    public let entityName: String
    /// The identifier of the store that holds the model; `nil` while the identifier is temporary.
    ///
    /// ```swift
    /// id.storeIdentifier   // "5D5C…"
    /// ```
    public let storeIdentifier: String?
    let kind: Kind

    enum Kind: Hashable, Comparable, Codable, Sendable {
        /// A saved model's row in its entity's table.
        case row(UInt64)
        /// An inserted model that has not been saved yet: a number unique in this process,
        /// increasing in the order models were first given one.
        case temporary(UInt64)

        static func < (lhs: Kind, rhs: Kind) -> Bool {
            switch (lhs, rhs) {
            case (.row(let a), .row(let b)): a < b
            case (.row, .temporary): true
            case (.temporary, .row): false
            case (.temporary(let a), .temporary(let b)): a < b
            }
        }
    }

    /// The identifier of a saved model.
    init(entityName: String, storeIdentifier: String, rowID: UInt64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.kind = .row(rowID)
    }

    /// A new temporary identifier for an inserted model.
    static func temporary(entityName: String) -> PersistentIdentifier {
        PersistentIdentifier(entityName: entityName, storeIdentifier: nil, kind: .temporary(TemporaryNumbers.next()))
    }

    /// Hashes the row (or temporary number) only: identifiers are hashed in every identity-map
    /// and change-set lookup, and hashing the two strings cost more than the rest of a lookup.
    /// Equal identifiers still hash equally; the rare same-row pair of two entities is told
    /// apart by `==`.
    ///
    /// ```swift
    /// var seen: Set<PersistentIdentifier> = []
    /// seen.insert(book.persistentModelID)
    /// ```
    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .row(let row): hasher.combine(row)
        case .temporary(let number): hasher.combine(~number)
        }
    }

    private init(entityName: String, storeIdentifier: String?, kind: Kind) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.kind = kind
    }

    /// Whether the identifier is temporary: its model has not been saved yet.
    ///
    /// ```swift
    /// context.insert(book)
    /// book.persistentModelID.isTemporary   // true until context.save()
    /// ```
    public var isTemporary: Bool {
        if case .temporary = kind { return true }
        return false
    }

    /// The model's row id in its entity's table, or `nil` while the identifier is temporary.
    var rowID: UInt64? {
        if case .row(let rowID) = kind { return rowID }
        return nil
    }

    /// Orders by store, then entity, then row; temporary identifiers after permanent ones.
    ///
    /// ```swift
    /// let ordered = ids.sorted()
    /// ```
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        ((lhs.storeIdentifier ?? ""), lhs.entityName, lhs.kind) < (
            (rhs.storeIdentifier ?? ""), rhs.entityName, rhs.kind
        )
    }

    /// The entity and the row (or `temporary`).
    ///
    /// ```swift
    /// print(id)   // "Book/42"
    /// ```
    public var description: String {
        switch kind {
        case .row(let rowID): "\(entityName)/\(rowID)"
        case .temporary(let number): "\(entityName)/temporary-\(number)"
        }
    }
}

/// The process-wide source of temporary identifier numbers.
private enum TemporaryNumbers {
    nonisolated(unsafe) private static var last: UInt64 = 0
    private static let lock = NSLock()

    static func next() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}

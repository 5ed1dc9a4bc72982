import Foundation

/// A change a history transaction made to one model, as SwiftData's `HistoryChange`: cast the
/// payload to the model type you look for.
///
/// ```swift
/// switch change {
/// case .insert(let insert as DefaultHistoryInsert<Book>): add(insert.changedPersistentIdentifier)
/// case .update(let update as DefaultHistoryUpdate<Book>) where update.updatedAttributes.contains(\Book.title): retitle()
/// case .delete(let delete as DefaultHistoryDelete<Book>): remove(delete.tombstone[\.isbn] as? String)
/// default: break
/// }
/// ```
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model's attributes or relationships changed.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the model that changed.
    ///
    /// ```swift
    /// let touched = Set(transaction.changes.map(\.changedPersistentIdentifier))
    /// ```
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let insert): insert.changedPersistentIdentifier
        case .update(let update): update.changedPersistentIdentifier
        case .delete(let delete): delete.changedPersistentIdentifier
        }
    }
}

/// The insertion of a model, in a history transaction.
///
/// ```swift
/// if case .insert(let insert as any HistoryInsert<Book>) = change { print(insert.changedPersistentIdentifier) }
/// ```
public protocol HistoryInsert<Model>: Sendable {
    /// The model's type.
    associatedtype Model: PersistentModel
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// insert.changeIdentifier   // 0
    /// ```
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction's identifier.
    ///
    /// ```swift
    /// insert.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    var transactionIdentifier: TransactionIdentifier { get }
    /// The inserted model's identifier.
    ///
    /// ```swift
    /// let book = context.model(for: insert.changedPersistentIdentifier)
    /// ```
    var changedPersistentIdentifier: PersistentIdentifier { get }
}

/// The update of a model, in a history transaction: which of its attributes and relationships
/// changed (not their values; fetch the model for those).
///
/// ```swift
/// if case .update(let update as any HistoryUpdate<Book>) = change { print(update.updatedAttributes) }
/// ```
public protocol HistoryUpdate<Model>: Sendable {
    /// The model's type.
    associatedtype Model: PersistentModel
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// update.changeIdentifier   // 3
    /// ```
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction's identifier.
    ///
    /// ```swift
    /// update.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    var transactionIdentifier: TransactionIdentifier { get }
    /// The updated model's identifier.
    ///
    /// ```swift
    /// let book = context.model(for: update.changedPersistentIdentifier)
    /// ```
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The key paths of the attributes and relationships that changed.
    ///
    /// ```swift
    /// update.updatedAttributes.contains(\Book.title)
    /// ```
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// The deletion of a model, in a history transaction, with the values of its attributes marked
/// `.preserveValueOnDeletion`.
///
/// ```swift
/// if case .delete(let delete as any HistoryDelete<Book>) = change { print(delete.tombstone[\.isbn] ?? "") }
/// ```
public protocol HistoryDelete<Model>: Sendable {
    /// The model's type.
    associatedtype Model: PersistentModel
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// delete.changeIdentifier   // 5
    /// ```
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction's identifier.
    ///
    /// ```swift
    /// delete.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    var transactionIdentifier: TransactionIdentifier { get }
    /// The deleted model's identifier.
    ///
    /// ```swift
    /// forget(delete.changedPersistentIdentifier)
    /// ```
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The values of the model's `.preserveValueOnDeletion` attributes when it was deleted.
    ///
    /// ```swift
    /// let isbn = delete.tombstone[\.isbn] as? String
    /// ```
    var tombstone: HistoryTombstone<Model> { get }
}

/// The insertion of a `Model` in a ``DefaultHistoryTransaction``.
///
/// ```swift
/// case .insert(let insert as DefaultHistoryInsert<Book>): print(insert.changedPersistentIdentifier)
/// ```
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// A transaction's identifier.
    public typealias TransactionIdentifier = Int64
    /// A change's identifier: its position in the transaction.
    public typealias ChangeIdentifier = Int64
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// insert.changeIdentifier   // 0
    /// ```
    public let changeIdentifier: Int64
    /// The transaction's identifier.
    ///
    /// ```swift
    /// insert.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    public let transactionIdentifier: Int64
    /// The inserted model's identifier.
    ///
    /// ```swift
    /// let book = context.model(for: insert.changedPersistentIdentifier) as? Book
    /// ```
    public let changedPersistentIdentifier: PersistentIdentifier
}

/// The update of a `Model` in a ``DefaultHistoryTransaction``.
///
/// ```swift
/// case .update(let update as DefaultHistoryUpdate<Book>): print(update.updatedAttributes)
/// ```
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate {
    /// A transaction's identifier.
    public typealias TransactionIdentifier = Int64
    /// A change's identifier: its position in the transaction.
    public typealias ChangeIdentifier = Int64
    /// A changed property's key path.
    public typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// update.changeIdentifier   // 1
    /// ```
    public let changeIdentifier: Int64
    /// The transaction's identifier.
    ///
    /// ```swift
    /// update.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    public let transactionIdentifier: Int64
    /// The updated model's identifier.
    ///
    /// ```swift
    /// let book = context.model(for: update.changedPersistentIdentifier) as? Book
    /// ```
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The key paths of the attributes and relationships that changed, in declaration order.
    /// An insert that took over a stored model with the same unique values (an upsert) lists
    /// every attribute.
    ///
    /// ```swift
    /// update.updatedAttributes.contains(\Book.title)
    /// ```
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]
}

/// The deletion of a `Model` in a ``DefaultHistoryTransaction``.
///
/// ```swift
/// case .delete(let delete as DefaultHistoryDelete<Book>): print(delete.tombstone[\.isbn] ?? "")
/// ```
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    /// A transaction's identifier.
    public typealias TransactionIdentifier = Int64
    /// A change's identifier: its position in the transaction.
    public typealias ChangeIdentifier = Int64
    /// The change's position in its transaction.
    ///
    /// ```swift
    /// delete.changeIdentifier   // 2
    /// ```
    public let changeIdentifier: Int64
    /// The transaction's identifier.
    ///
    /// ```swift
    /// delete.transactionIdentifier == transaction.transactionIdentifier
    /// ```
    public let transactionIdentifier: Int64
    /// The deleted model's identifier.
    ///
    /// ```swift
    /// forget(delete.changedPersistentIdentifier)
    /// ```
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The values of the model's `.preserveValueOnDeletion` attributes when it was deleted.
    ///
    /// ```swift
    /// let isbn = delete.tombstone[\.isbn] as? String
    /// ```
    public let tombstone: HistoryTombstone<Model>
}

/// The values a deleted model's `.preserveValueOnDeletion` attributes held, as SwiftData's
/// `HistoryTombstone`: read one by key path, or go through them all as `(key path, value)`
/// pairs.
///
/// ```swift
/// @Model final class Book {
///     @Attribute(.unique, .preserveValueOnDeletion) var isbn: String
///     var title: String
/// }
/// // …
/// if case .delete(let delete as DefaultHistoryDelete<Book>) = change {
///     let isbn = delete.tombstone[\.isbn] as? String   // kept
///     let title = delete.tombstone[\.title]            // nil: not preserved
/// }
/// ```
///
/// `@unchecked Sendable`: the values are attribute values decoded from the store (value types),
/// never changed after the tombstone is made.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// A `(key: PartialKeyPath<Model>, value: any Sendable)` pair.
    public typealias Element = Any

    /// The preserved values, in declaration order.
    let values: [(key: PartialKeyPath<Model>, value: any Sendable)]

    /// The preserved value of the attribute at `keyPath`; `nil` when it is not preserved (or
    /// the deleted row could not be read).
    ///
    /// ```swift
    /// let isbn = tombstone[\.isbn] as? String
    /// ```
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.key == keyPath }?.value
    }

    /// Goes through the preserved values.
    ///
    /// ```swift
    /// for case let (key, value) as (PartialKeyPath<Book>, any Sendable) in tombstone { print(key, value) }
    /// ```
    public func makeIterator() -> Iterator { Iterator(base: values.makeIterator()) }

    /// Goes through a tombstone's values as `(key: PartialKeyPath<Model>, value: any Sendable)` pairs.
    ///
    /// ```swift
    /// var iterator = tombstone.makeIterator()
    /// while let pair = iterator.next() { print(pair) }
    /// ```
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[(key: PartialKeyPath<Model>, value: any Sendable)]>

        /// The next pair, or `nil` after the last.
        ///
        /// ```swift
        /// let first = iterator.next()
        /// ```
        public mutating func next() -> Any? { base.next() }
    }
}

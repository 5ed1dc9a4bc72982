import CairnSyncProtocol
import Foundation

/// Two writes of one attribute of a synced model, made on two replicas, where the later one was
/// made without the earlier one: what a resolver (`SyncConfiguration.resolveConflicts(of:with:)`)
/// decides between. Without a resolver the later write wins.
///
/// Every replica that meets both writes asks the resolver with the same two writes in the same
/// order (earlier, later), so a resolver that decides from the values alone decides the same
/// everywhere. When it keeps the earlier write, the replica deciding writes that value again as a
/// new write, which reaches every replica.
///
/// ```swift
/// configuration.resolveConflicts(of: Chore.self) { conflict in
///     // A chore's priority only rises: keep the higher of two concurrent writes.
///     guard conflict.fieldName == "priority", let (earlier, later) = conflict.values(as: Int.self) else { return .keepLater }
///     return earlier > later ? .keepEarlier : .keepLater
/// }
/// ```
public struct SyncConflict: @unchecked Sendable {
    // `@unchecked Sendable`: the two values are attribute values decoded for this conflict
    // alone, never mutated, handed to the resolver on the replica's executor.

    /// The model's entity name.
    public let entityName: String
    /// The attribute both writes set.
    public let fieldName: String
    /// When the earlier write was made (its replica's clock).
    public let earlierDate: Date
    /// When the later write was made.
    public let laterDate: Date
    let earlierValue: Any?
    let laterValue: Any?

    /// The two values written, as `type` (the attribute's type); `nil` when the attribute is of
    /// another type.
    ///
    /// ```swift
    /// if let (earlier, later) = conflict.values(as: String?.self) { … }
    /// ```
    public func values<Value>(as type: Value.Type = Value.self) -> (earlier: Value, later: Value)? {
        guard let earlier = Self.cast(earlierValue, to: type), let later = Self.cast(laterValue, to: type) else { return nil }
        return (earlier, later)
    }

    private static func cast<Value>(_ value: Any?, to type: Value.Type) -> Value? {
        if let value { return value as? Value }
        return (Optional<Any>.none as Any) as? Value
    }
}

/// Which of a ``SyncConflict``'s two writes stays.
///
/// ```swift
/// return earlier > later ? .keepEarlier : .keepLater
/// ```
public enum SyncConflictResolution: Sendable {
    /// The earlier write's value stays: the deciding replica writes it again.
    case keepEarlier
    /// The later write's value stays, as it does without a resolver.
    case keepLater
}

/// Decides a ``SyncConflict`` for one model type; called on the sync engine's executor, so it
/// must not touch a `ModelContext`, and decide from the conflict alone.
///
/// ```swift
/// let higherWins: SyncConflictResolver = { conflict in .keepLater }
/// ```
public typealias SyncConflictResolver = @Sendable (SyncConflict) -> SyncConflictResolution

/// A synced model deleted on one replica and edited on another where the deletion did not see the
/// edit: what a deletion resolver (`SyncConfiguration.resolveDeletions(of:with:)`) decides.
/// Without one, the deletion wins.
///
/// It is asked on a replica that holds the model when the deletion arrives and the model has
/// edits made later than the deletion, or made here and not pushed yet. Keeping the edited model
/// makes it a new synced row (its identifier derived from the deleted one's and the deletion, so
/// every replica keeping it keeps one row) with all its values, which reaches every replica; what
/// the deletion's delete rules reached elsewhere (cascaded or nullified relationships) stays as the
/// deletion left it.
///
/// ```swift
/// configuration.resolveDeletions(of: Note.self) { deletion in
///     // An edit made after a note was deleted elsewhere brings it back.
///     deletion.editedFieldNames.isEmpty ? .delete : .keepEdited
/// }
/// ```
public struct SyncDeletion: Sendable {
    /// The model's entity name.
    public let entityName: String
    /// When the deletion was made (its replica's clock).
    public let deletedDate: Date
    /// When the newest edit the deletion did not see was made.
    public let editedDate: Date
    /// The attributes and relationships those edits set.
    public let editedFieldNames: Set<String>
}

/// Whether a ``SyncDeletion``'s model stays deleted.
///
/// ```swift
/// return .keepEdited
/// ```
public enum SyncDeletionResolution: Sendable {
    /// The deletion wins, as it does without a resolver.
    case delete
    /// The edited model stays, as a new synced row.
    case keepEdited
}

/// Decides a ``SyncDeletion`` for one model type; called on the sync engine's executor, so it
/// must not touch a `ModelContext`, and decide from the deletion alone.
///
/// ```swift
/// let editsWin: SyncDeletionResolver = { _ in .keepEdited }
/// ```
public typealias SyncDeletionResolver = @Sendable (SyncDeletion) -> SyncDeletionResolution

/// The resolvers a replica asks, by entity name: of concurrent writes of an attribute, and of a
/// deletion against edits.
package struct SyncResolvers: Sendable {
    package var conflicts: [String: SyncConflictResolver] = [:]
    package var deletions: [String: SyncDeletionResolver] = [:]

    package init() {}
}

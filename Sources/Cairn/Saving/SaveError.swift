/// A save that the models' own rules refused: a delete blocked by a `.deny` relationship, or a
/// relationship with fewer or more models than its counts allow. Nothing was written, and the
/// context still holds all its changes.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as SaveError where error.code == .deleteDenied {
///     print(error.message)            // names the models in the way
///     print(error.models)             // their identifiers
/// }
/// ```
public struct SaveError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal this is. New codes may be added; keep a `default` in a `switch`.
    ///
    /// ```swift
    /// if error.code == .deleteDenied { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code's name.
        ///
        /// ```swift
        /// SaveError.Code.deleteDenied.description   // "deleteDenied"
        /// ```
        public var description: String { name }

        /// A model to delete still has related models through a `.deny` relationship.
        ///
        /// ```swift
        /// catch SaveError.Code.deleteDenied { … }
        /// ```
        public static let deleteDenied = Code("deleteDenied")
        /// A to-many relationship holds fewer models than its `minimumModelCount` or more than its
        /// `maximumModelCount`.
        ///
        /// ```swift
        /// catch SaveError.Code.modelCountOutOfRange { … }
        /// ```
        public static let modelCountOutOfRange = Code("modelCountOutOfRange")
        /// A changed model's unique values equal another stored model's.
        ///
        /// ```swift
        /// catch SaveError.Code.uniquenessViolated { … }
        /// ```
        public static let uniquenessViolated = Code("uniquenessViolated")
        /// A model changed in this context was deleted by another context or process since it was
        /// loaded. Delete it here too, or roll back, then save again.
        ///
        /// ```swift
        /// catch let error as SaveError where error.code == .modelDeletedElsewhere {
        ///     for id in error.models { context.delete(context.model(for: id)) }
        /// }
        /// ```
        public static let modelDeletedElsewhere = Code("modelDeletedElsewhere")
        /// ``ModelContext/upsert(_:chunkSize:)`` was given models of an entity without a uniqueness
        /// constraint to match them by.
        ///
        /// ```swift
        /// catch let error as SaveError where error.code == .noUniquenessConstraint { … }
        /// ```
        public static let noUniquenessConstraint = Code("noUniquenessConstraint")
        /// `save()` ran while a to-many relationship was being changed in place: inside a closure
        /// that the change runs (`author.books.removeAll { … }`). Save after the change.
        ///
        /// ```swift
        /// catch let error as SaveError where error.code == .changeInProgress { … }
        /// ```
        public static let changeInProgress = Code("changeInProgress")
        /// An argument is out of its range, such as a `chunkSize` of zero or less. Nothing was saved.
        ///
        /// ```swift
        /// catch let error as SaveError where error.code == .invalidArgument { print(error.message) }
        /// ```
        public static let invalidArgument = Code("invalidArgument")
    }

    /// What kind of refusal this is.
    ///
    /// ```swift
    /// error.code   // .deleteDenied
    /// ```
    public var code: Code
    /// What was refused and how to fix it.
    ///
    /// ```swift
    /// print(error.message)
    /// ```
    public var message: String
    /// The models concerned: the blocking ones, or the one whose relationship is out of range.
    ///
    /// ```swift
    /// for id in error.models { print(id) }
    /// ```
    public var models: [PersistentIdentifier]
    /// Whether another writer changed a unique value's entry between the save's planning and its
    /// transaction: planning again sees the change (``ModelContext/upsert(_:chunkSize:)`` does).
    var isClaimedMeanwhile = false

    /// Creates a save error.
    ///
    /// ```swift
    /// SaveError(code: .deleteDenied, message: "… Delete the chapters first.", models: ids)
    /// ```
    public init(code: Code, message: String, models: [PersistentIdentifier]) {
        self.code = code
        self.message = message
        self.models = models
    }

    /// The code and the message.
    ///
    /// ```swift
    /// print(error)   // "SaveError.deleteDenied: …"
    /// ```
    public var description: String { "SaveError.\(code): \(message)" }
}

extension SaveError.Code {
    /// Matches a thrown error against a code, so that `catch SaveError.Code.deleteDenied` works.
    ///
    /// ```swift
    /// do { try context.save() } catch SaveError.Code.deleteDenied { … }
    /// ```
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SaveError)?.code == code
    }
}

extension SaveError {
    /// The error for a save inside a change in place of a to-many relationship, whose list is
    /// out of its model until the change ends.
    static var changeInProgress: SaveError {
        SaveError(
            code: .changeInProgress,
            message: "save() was called while a to-many relationship was being changed in place (from a closure "
                + "that the change runs, such as the one of author.books.removeAll(where:)). Nothing was saved. Save "
                + "after the change.",
            models: [])
    }

    /// The error for changed models whose rows another context deleted.
    static func deletedElsewhere(_ models: [PersistentIdentifier]) -> SaveError {
        SaveError(
            code: .modelDeletedElsewhere,
            message: "\(models.map(\.description).joined(separator: ", ")) changed here but deleted by another context "
                + "or process since. Nothing was saved. Delete \(models.count == 1 ? "it" : "them") in this context "
                + "(or roll back) and save again, or insert a new model with the values to keep.",
            models: models)
    }

    /// The error for a unique value whose entry another writer changed since the save was
    /// planned: it claimed the value, or deleted or moved the row an insert was taking over.
    static func claimedMeanwhile(_ model: PersistentIdentifier) -> SaveError {
        var error = SaveError(
            code: .uniquenessViolated,
            message: "Another writer stored or removed a \(model.entityName) with the same unique values while this "
                + "save was prepared. Save again: the save is planned anew against what is stored now.",
            models: [model])
        error.isClaimedMeanwhile = true
        return error
    }
}
